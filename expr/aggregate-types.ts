// Result types of the built-in aggregate functions, following Flink's type inference.
import type { Span } from '../common/span.js'
import { WeirError } from '../common/errors.js'
import { formatType, isNumeric, T, withNullable, withoutTimeAttr, type DataType } from '../common/types.js'
import type { AggFunctionName } from '../core/aggregates.js'

export type { AggFunctionName }
/** Every aggregate function name Weir accepts, aliases included. */
export const AGGREGATE_FUNCTIONS: readonly string[] = [
  'COUNT',
  'SUM',
  'MIN',
  'MAX',
  'AVG',
  'STDDEV',
  'STDDEV_POP',
  'STDDEV_SAMP',
  'VARIANCE',
  'VAR_POP',
  'VAR_SAMP',
  'FIRST_VALUE',
  'LAST_VALUE',
  'LISTAGG',
  'ARRAY_AGG',
  'JSON_OBJECTAGG',
  'COLLECT',
  'APPROX_COUNT_DISTINCT',
  'APPROX_PERCENTILE',
  'PERCENTILE',
]

/** The canonical name of an aggregate as written (Flink's aliases: STDDEV is STDDEV_SAMP, VARIANCE is VAR_SAMP). */
export function canonicalAggregate(name: string): AggFunctionName {
  const upper = name.toUpperCase()
  if (upper === 'STDDEV') return 'STDDEV_SAMP'
  if (upper === 'VARIANCE') return 'VAR_SAMP'
  return upper as AggFunctionName
}

/** APPROX_PERCENTILE's relative accuracy α when its third argument is absent (1%). */
export const DEFAULT_PERCENTILE_ACCURACY = 0.01

/** DECIMAL precision Flink widens SUM and AVG results to. */
export const MAX_DECIMAL_PRECISION = 38

/**
 * The type of `fn(arg)`; `argType` is null for COUNT(*). Everything but COUNT is nullable: an
 * aggregate over no non-null values is NULL.
 *
 * @example aggregateResultType('SUM', T.decimal(10, 2)) // DECIMAL(38, 2)
 * @example aggregateResultType('AVG', T.int())          // INT (integer division)
 */
export function aggregateResultType(fn: AggFunctionName, argType: DataType | null, span?: Span, ignoreNulls = false): DataType {
  if (fn === 'COUNT' || fn === 'APPROX_COUNT_DISTINCT') return T.bigint(false)
  if (argType === null) {
    throw WeirError.plan(`${fn}(*) is not valid`, { span, help: `only COUNT takes *; write ${fn}(column)` })
  }
  const arg = withoutTimeAttr(argType)
  switch (fn) {
    case 'SUM':
    case 'AVG':
    case 'STDDEV_POP':
    case 'STDDEV_SAMP':
    case 'VAR_POP':
    case 'VAR_SAMP':
      // Flink types STDDEV and VAR as AVG: the argument's type, DECIMAL(38, max(6, scale)) for a DECIMAL.
      switch (arg.kind) {
        // Flink: SUM and AVG of an integer type keep that type (and wrap as it does).
        case 'TINYINT':
        case 'SMALLINT':
        case 'INT':
        case 'BIGINT':
        case 'DOUBLE':
          return withNullable(arg, true)
        case 'DECIMAL':
          return T.decimal(MAX_DECIMAL_PRECISION, fn === 'SUM' ? arg.scale : Math.max(6, arg.scale))
        case 'BOOLEAN':
        case 'STRING':
        case 'TIMESTAMP':
        case 'TIMESTAMP_LTZ':
        case 'DATE':
        case 'TIME':
        case 'BYTES':
        case 'INTERVAL':
        case 'NULL':
          throw rejected(fn, arg, 'CAST the argument to a numeric type', span)
      }
      break
    case 'APPROX_PERCENTILE':
      // A DOUBLE whatever the numeric argument (an estimate), NULL for no values.
      if (isNumeric(arg)) return T.double(true)
      throw rejected(fn, arg, 'APPROX_PERCENTILE takes a number: CAST the argument to a numeric type', span)
    case 'PERCENTILE':
      // Exact and interpolated: a DOUBLE whatever the numeric argument (ARRAY<DOUBLE> for an ARRAY of percentages, typed by the binder).
      if (isNumeric(arg)) return T.double(true)
      throw rejected(fn, arg, 'PERCENTILE takes a number: CAST the argument to a numeric type', span)
    case 'MIN':
    case 'MAX':
      // Flink has no MIN or MAX of BINARY values.
      if (arg.kind === 'BYTES') throw rejected(fn, arg, 'CAST the argument to STRING, or compare with HEX(x)', span)
      if (arg.kind === 'NULL') throw rejected(fn, arg, 'CAST the argument to a type, e.g. CAST(NULL AS INT)', span)
      return withNullable(arg, true)
    case 'FIRST_VALUE':
    case 'LAST_VALUE':
      if (arg.kind === 'NULL') throw rejected(fn, arg, 'CAST the argument to a type, e.g. CAST(NULL AS INT)', span)
      return withNullable(arg, true)
    case 'LISTAGG':
      if (arg.kind !== 'STRING') throw rejected(fn, arg, 'LISTAGG joins strings: CAST the argument to STRING', span)
      return T.string()
    case 'ARRAY_AGG':
      // Flink: ARRAY<argument type>, NULL for no rows; IGNORE NULLS leaves no NULL element.
      if (arg.kind === 'NULL') throw rejected(fn, arg, 'CAST the argument to a type, e.g. CAST(NULL AS INT)', span)
      return T.array(ignoreNulls ? withNullable(arg, false) : arg, true)
    case 'JSON_OBJECTAGG':
      // Flink: the key is a character string; the value was wrapped as its JSON text (grammar/json-clauses.ts). Never NULL: '{}' for no entries.
      if (arg.kind !== 'STRING') throw rejected(fn, arg, 'a JSON_OBJECTAGG key is a string: CAST the key to STRING', span)
      return T.string(false)
    case 'COLLECT':
      // Flink: MULTISET<argument type>, NULL values left out; an empty multiset for no values.
      if (arg.kind === 'NULL') throw rejected(fn, arg, 'CAST the argument to a type, e.g. CAST(NULL AS INT)', span)
      return T.multiset(withNullable(arg, false), false)
  }
  throw WeirError.internal(`unknown aggregate ${String(fn)}`)
}

function rejected(fn: AggFunctionName, arg: DataType, help: string, span: Span | undefined): WeirError {
  return WeirError.plan(`${fn} does not accept ${formatType(withNullable(arg, true))}`, { span, help })
}
