// An aggregate call as the planner binds it and the operators compute it: the logical plan's
// Aggregate and WindowAggregate nodes and the job graph's aggregate specs hold the same calls.
import type { DataType } from '../common/types.js'

/**
 * An aggregate call over pre-projected input columns (arguments and FILTER conditions are columns).
 *
 * @example { fn: 'SUM', arg: 2, argType: T.bigint(), distinct: false, filter: null, type: T.bigint(), name: 'total' }
 */
export interface AggCall {
  readonly fn: AggFunctionName
  /** Input column of the argument; null for COUNT(*). */
  readonly arg: number | null
  readonly argType: DataType | null
  readonly distinct: boolean
  /** Input column (BOOLEAN) of the FILTER (WHERE …) condition; null when none. Rows count only where it is TRUE. */
  readonly filter: number | null
  /** Result type. */
  readonly type: DataType
  /** Output column name, for EXPLAIN. */
  readonly name: string
  /** LISTAGG's separator (a literal); ',' when absent. */
  readonly separator?: string
  /** APPROX_PERCENTILE's percentage in [0, 1] and relative accuracy α in (0, 1) (literals). */
  readonly percentile?: { readonly q: number; readonly accuracy: number }
  /** PERCENTILE's percentages, each in [0, 1] (literals); `array` when written as an ARRAY (the result is then ARRAY<DOUBLE>). */
  readonly percentages?: { readonly values: readonly number[]; readonly array: boolean }
  /** ARRAY_AGG(x IGNORE NULLS): NULL values are skipped (by default ARRAY_AGG keeps them, as Flink). */
  readonly ignoreNulls?: boolean
  /**
   * JSON_OBJECTAGG's second argument: the input column of the value's JSON text (NULL: skipped, ABSENT ON NULL). `arg` is the key.
   * PERCENTILE's frequency: the input column of the count each row stands for (NULL or ≤ 0: skipped).
   */
  readonly valueArg?: number
  /** A user-defined aggregate (fn 'USER'): where its definition is, loaded on each thread that runs it. */
  readonly user?: {
    readonly name: string
    readonly module: string
    readonly export: string
    /** 'weir.udf.on-error' = 'skip': a row the function fails on is left out (and counted). */
    readonly skip: boolean
    /** It defines retract (may consume an updating input) and merge (SESSION windows). */
    readonly retract: boolean
    readonly merge: boolean
  }
  /** A user-defined aggregate's argument columns, in order (`arg` is the first). */
  readonly args?: readonly number[]
}

/** The aggregate functions, by their canonical names (STDDEV and VARIANCE bind as STDDEV_SAMP and VAR_SAMP). */
export type AggFunctionName =
  | 'COUNT'
  | 'SUM'
  | 'MIN'
  | 'MAX'
  | 'AVG'
  | 'STDDEV_POP'
  | 'STDDEV_SAMP'
  | 'VAR_POP'
  | 'VAR_SAMP'
  | 'FIRST_VALUE'
  | 'LAST_VALUE'
  | 'LISTAGG'
  | 'ARRAY_AGG'
  | 'JSON_OBJECTAGG'
  | 'COLLECT'
  | 'APPROX_COUNT_DISTINCT'
  | 'APPROX_PERCENTILE'
  | 'PERCENTILE'
  | 'USER'
