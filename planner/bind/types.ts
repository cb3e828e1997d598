// SQL type names from the AST → DataType.
import type * as ast from '../../grammar/ast.js'
import type { DataType } from '../../common/types.js'
import { T } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'

export function typeFromAst(t: ast.TypeName): DataType {
  const nullable = !t.notNull
  const p = t.params
  switch (t.name.toUpperCase()) {
    case 'BOOLEAN':
      return T.boolean(nullable)
    case 'TINYINT':
      return T.tinyint(nullable)
    case 'SMALLINT':
      return T.smallint(nullable)
    case 'INT':
    case 'INTEGER':
      return T.int(nullable)
    case 'BIGINT':
      return T.bigint(nullable)
    case 'DOUBLE':
      return T.double(nullable)
    case 'FLOAT':
    case 'REAL':
      return T.float(nullable)
    case 'DECIMAL':
    case 'NUMERIC':
    case 'DEC': {
      const precision = p[0] ?? 10
      const scale = p[1] ?? 0
      if (precision < 1 || precision > 38) throw WeirError.plan(`DECIMAL precision must be between 1 and 38, got ${precision}`, { span: t.span })
      if (scale < 0 || scale > precision) {
        throw WeirError.plan(`DECIMAL scale must be between 0 and the precision (${precision}), got ${scale}`, { span: t.span })
      }
      return T.decimal(precision, scale, nullable)
    }
    case 'STRING':
    case 'VARCHAR':
    case 'CHAR':
      return T.string(nullable)
    case 'TIMESTAMP':
      return T.timestamp(checkPrecision(t), nullable)
    case 'TIMESTAMP_LTZ':
      return T.timestampLtz(checkPrecision(t), nullable)
    case 'DATE':
      return T.date(nullable)
    case 'BYTES':
    case 'VARBINARY':
    case 'BINARY':
      return T.bytes(nullable)
    case 'TIME': {
      const precision = t.params[0] ?? 0
      if (precision < 0 || precision > 9) throw WeirError.plan(`TIME precision must be between 0 and 9, got ${precision}`, { span: t.span })
      return T.time(precision, nullable)
    }
    case 'ROW':
      return T.row((t.fields ?? []).map(f => ({ name: f.name.value, type: typeFromAst(f.type) })), nullable)
    case 'ARRAY':
      return T.array(typeFromAst(t.elements![0]!), nullable)
    case 'MAP':
      return T.map(typeFromAst(t.elements![0]!), typeFromAst(t.elements![1]!), nullable)
    case 'MULTISET':
      return T.multiset(typeFromAst(t.elements![0]!), nullable)
    default:
      throw WeirError.unsupported(`type ${t.name} is not supported`, {
        span: t.span,
        help:
          'supported types: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), STRING, VARCHAR, TIMESTAMP(3), TIMESTAMP_LTZ(3), DATE, TIME(p), BYTES',
      })
  }
}

function checkPrecision(t: ast.TypeName): number {
  const precision = t.params[0] ?? 3
  if (precision < 0 || precision > 9) throw WeirError.plan(`timestamp precision must be between 0 and 9, got ${precision}`, { span: t.span })
  // Values are milliseconds: higher precisions are accepted and held at millisecond resolution.
  return precision
}
