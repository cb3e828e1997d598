// Prints bound expressions back as SQL-like text for EXPLAIN.
import type { Rex } from '../core/rex.js'
import { formatType, type Field } from '../common/types.js'
import { formatValue } from '../common/values.js'
import { formatDuration } from '../common/durations.js'
import { userCallRef } from '../expr/functions/user.js'

const INFIX = new Set(['+', '-', '*', '/', '%', '=', '<>', '<', '<=', '>', '>=', 'AND', 'OR', '||'])

export function formatRex(rex: Rex, fields: readonly Field[]): string {
  switch (rex.kind) {
    case 'Input':
      return fields[rex.index]?.name ?? `$${rex.index}`
    case 'Literal':
      if (rex.value === null) return 'NULL'
      if (rex.type.kind === 'STRING') return `'${String(rex.value).replace(/'/g, "''")}'`
      if (rex.type.kind === 'INTERVAL' && rex.type.yearMonth === true) return `INTERVAL '${formatValue(rex.value, rex.type)}' YEAR TO MONTH`
      if (rex.type.kind === 'INTERVAL') return `INTERVAL '${formatDuration(rex.value as number)}'`
      if (rex.type.kind === 'TIMESTAMP' || rex.type.kind === 'TIMESTAMP_LTZ') return `TIMESTAMP '${formatValue(rex.value, rex.type)}'`
      if (rex.type.kind === 'BYTES') return formatValue(rex.value, rex.type)
      if (rex.type.kind === 'TIME') return `TIME '${formatValue(rex.value, rex.type)}'`
      return formatValue(rex.value, rex.type)
    case 'Call': {
      const a = rex.args.map(x => formatRex(x, fields))
      if (INFIX.has(rex.op) && a.length === 2) return `(${a[0]} ${rex.op} ${a[1]})`
      switch (rex.op) {
        case 'NOT':
          return `NOT ${a[0]}`
        case 'NEG':
          return `-${a[0]}`
        case 'IS_NULL':
          return `${a[0]} IS NULL`
        case 'IS_NOT_NULL':
          return `${a[0]} IS NOT NULL`
        case 'CAST':
        case 'TRY_CAST':
          return `${rex.op}(${a[0]} AS ${formatType(rex.type)})`
        case 'CASE': {
          let s = 'CASE'
          for (let i = 0; i + 1 < a.length; i += 2) s += ` WHEN ${a[i]} THEN ${a[i + 1]}`
          if (a.length % 2 === 1) s += ` ELSE ${a[a.length - 1]}`
          return `${s} END`
        }
        case 'FIELD': {
          const row = rex.args[0]!.type
          const i = rex.args[1]!.kind === 'Literal' ? (rex.args[1].value as number) : -1
          return row.kind === 'ROW' && row.fields[i] !== undefined ? `${a[0]}.${row.fields[i].name}` : `${rex.op}(${a.join(', ')})`
        }
        case 'ITEM':
          return `${a[0]}[${a[1]}]`
        case 'ARRAY':
        case 'MAP':
          return `${rex.op}[${a.join(', ')}]`
        default:
          return `${userCallRef(rex.op)?.name ?? rex.op}(${a.join(', ')})`
      }
    }
  }
}
