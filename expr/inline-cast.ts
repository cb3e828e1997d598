// The casts the expression compiler writes inline as JavaScript (no helper call), and when a numeric
// cast to DECIMAL needs its overflow check.
import { integralBits, type DataType } from '../common/types.js'
import { decimalView } from './coercion.js'
import { pow10 } from './decimal.js'

/** Whether a numeric cast to DECIMAL can exceed the target precision. */
export function castCanOverflow(from: DataType, to: Extract<DataType, { kind: 'DECIMAL' }>): boolean {
  const f = decimalView(from)
  return f === null || to.precision - to.scale < f.precision - f.scale
}

/** JavaScript for the casts that need no helper, or undefined. */
export function inlineCast(from: DataType, to: DataType): ((a: string) => string) | undefined {
  const id = (a: string): string => a
  const fromBits = integralBits(from)
  switch (to.kind) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT': {
      const bits = integralBits(to)
      if (fromBits === 0) return undefined
      if (fromBits <= bits) return id
      // Narrowing wraps as Java's primitive casts do; a BIGINT may be a bigint, which the helper handles.
      if (fromBits === 64) return undefined
      return bits === 16 ? a => `((${a} << 16) >> 16)` : a => `((${a} << 24) >> 24)`
    }
    case 'DOUBLE':
      if (to.float === true) return from.kind === 'DOUBLE' && from.float === true ? id : undefined
      if (from.kind === 'BIGINT') return a => `(typeof ${a} === 'number' ? ${a} : Number(${a}))`
      if (fromBits !== 0 || from.kind === 'DOUBLE') return id
      // Exact: both the unscaled value (< 10^15 < 2^53) and the power of ten are exact doubles.
      if (from.kind === 'DECIMAL' && from.precision <= 15) return from.scale === 0 ? a => `Number(${a})` : a => `(Number(${a}) / 1e${from.scale})`
      return undefined
    case 'DECIMAL':
      if (fromBits !== 0) return to.scale === 0 ? a => `BigInt(${a})` : a => `(BigInt(${a}) * ${pow10(to.scale)}n)`
      if (from.kind === 'DECIMAL' && to.scale >= from.scale) return to.scale === from.scale ? id : a => `(${a} * ${pow10(to.scale - from.scale)}n)`
      return undefined
    case 'STRING':
      if (from.kind === 'STRING') return id
      if (from.kind === 'INTERVAL') return undefined
      if (fromBits !== 0) return a => `String(${a})`
      return undefined
    case 'BOOLEAN':
      return from.kind === 'BOOLEAN' ? id : undefined
    case 'DATE':
      if (from.kind === 'DATE') return id
      if (from.kind === 'TIMESTAMP' || from.kind === 'TIMESTAMP_LTZ') return a => `Math.floor(${a} / 86400000)`
      return undefined
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      if ((from.kind === 'TIMESTAMP' || from.kind === 'TIMESTAMP_LTZ') && (to.precision >= 3 || from.precision <= to.precision)) return id
      if (from.kind === 'DATE') return a => `(${a} * 86400000)`
      return undefined
    case 'INTERVAL':
      return from.kind === 'INTERVAL' && from.yearMonth === to.yearMonth ? id : undefined
    default:
      return undefined
  }
}
