// Logical plan nodes: a closed union; every layer switches over `kind` with assertNever.
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import type { AggCall } from '../../core/aggregates.js'
import type { TimeDomain, WindowSpec } from '../../core/windows.js'
import type { CatalogTable } from '../catalog.js'
import type { CatalogFunction } from '../functions.js'
import { assertNever } from '../../common/assert.js'
import type { Over } from './over.js'
import type { Deduplicate, Rank, Sort } from './rank.js'
import type { Unnest } from './unnest.js'

export type { Over } from './over.js'
export type { Deduplicate, Rank, Sort } from './rank.js'
export type { Unnest } from './unnest.js'

/** Reads a table; `columns` are indexes into the table's columns (physical and computed), `filter` is pushed down. */
export interface Scan {
  readonly kind: 'Scan'
  readonly table: CatalogTable
  readonly alias: string
  readonly columns: readonly number[]
  readonly filter?: Rex
  readonly fields: readonly Field[]
  readonly span: Span
  /** Read by several statements of a statement set: one source, never fused with a reader's projection (statement-set.ts). */
  readonly shared?: boolean
}

/** Literal rows. */
export interface Values {
  readonly kind: 'Values'
  readonly rows: readonly (readonly Rex[])[]
  readonly fields: readonly Field[]
  readonly span: Span
}

/** Computes one output column per expression. Stateless. */
export interface Project {
  readonly kind: 'Project'
  readonly input: LogicalPlan
  readonly exprs: readonly Rex[]
  readonly fields: readonly Field[]
  readonly span: Span
}

/** Keeps rows whose condition is TRUE. Stateless. */
export interface Filter {
  readonly kind: 'Filter'
  readonly input: LogicalPlan
  readonly condition: Rex
  readonly fields: readonly Field[]
  readonly span: Span
}

/** Non-windowed GROUP BY (or DISTINCT): output [...keys, ...aggs]; updating. */
export interface Aggregate {
  readonly kind: 'Aggregate'
  readonly input: LogicalPlan
  readonly keys: readonly number[]
  readonly aggs: readonly AggCall[]
  /** 0 = state never expires. */
  readonly ttlMs: number
  /** Where the TTL came from, for EXPLAIN: 'table.exec.state.ttl', a STATE_TTL hint, or none. */
  readonly ttlSource: string
  readonly distinct: boolean
  readonly fields: readonly Field[]
  readonly span: Span
}

/** GROUP BY window_start, window_end over a window TVF: output [...keys, ...aggs, window_start, window_end, window_time]. */
export interface WindowAggregate {
  readonly kind: 'WindowAggregate'
  readonly input: LogicalPlan
  readonly window: WindowSpec
  readonly timeIndex: number
  readonly timeDomain: TimeDomain
  readonly keys: readonly number[]
  readonly aggs: readonly AggCall[]
  /** The window is the input's own (its window_start, window_end columns; timeIndex = end), not assigned: see WindowAggregateSpec. */
  readonly attached?: { readonly start: number; readonly end: number }
  readonly fields: readonly Field[]
  readonly span: Span
}

/** A window TVF whose rows are used directly: input columns plus window_start, window_end, window_time. */
export interface WindowTvf {
  readonly kind: 'WindowTvf'
  readonly input: LogicalPlan
  readonly window: WindowSpec
  readonly timeIndex: number
  readonly timeDomain: TimeDomain
  readonly timeColumn: string
  readonly partitionKeys: readonly number[]
  readonly fields: readonly Field[]
  readonly span: Span
}

/** A user's process table function over its input partitioned by `keys`: output [...key columns, ...the function's output]. */
export interface ProcessTable {
  readonly kind: 'ProcessTable'
  readonly input: LogicalPlan
  readonly fn: CatalogFunction
  readonly keys: readonly number[]
  readonly args: Readonly<Record<string, string | number | boolean | null>>
  readonly fields: readonly Field[]
  readonly span: Span
}

/** UNION ALL. */
export interface Union {
  readonly kind: 'Union'
  readonly inputs: readonly LogicalPlan[]
  readonly fields: readonly Field[]
  readonly span: Span
}

/** Regular join kinds (planner/bind/join-binder.ts decides a join's kind). */
export type JoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL'

/** How long one side's join state lives: 0 = forever; `source` says where it came from, for EXPLAIN. */
export interface SideTtl {
  readonly ms: number
  readonly source: string
}

/**
 * A regular (unbounded) join on equal keys: output [...left fields, ...right fields], each side kept
 * in state keyed by its join key. NULL keys never match.
 */
export interface Join {
  readonly kind: 'Join'
  readonly joinType: JoinType
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  /** Pairwise equal: left column leftKeys[i] = right column rightKeys[i]. */
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** The rest of the condition, over [...left columns, ...right columns]; a pair joins only where it is TRUE. */
  readonly residual?: Rex
  readonly leftTtl: SideTtl
  readonly rightTtl: SideTtl
  /** Set when the condition bounds the join in time (interval and window joins; planner/bind/time-join.ts). */
  readonly time?: JoinTime
  readonly fields: readonly Field[]
  readonly span: Span
}

/**
 * A temporal join (planner/bind/temporal-join.ts): each row of `left` (the probe side) with the
 * version of its key in `right` (a versioned table) valid at the row's time — event time, or the
 * latest version at arrival for processing time. Output [...left fields, ...right fields].
 */
export interface TemporalJoin {
  readonly kind: 'TemporalJoin'
  readonly joinType: 'INNER' | 'LEFT'
  readonly timeDomain: 'event' | 'processing'
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  /** Pairwise equal; rightKeys are the versioned table's primary key. */
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** The probe's time column (the AS OF column), and the versions' rowtime column (event time only, else -1). */
  readonly leftTime: number
  readonly rightTime: number
  /** The rest of the condition, over [...left columns, ...right columns]: tested against the version found. */
  readonly residual?: Rex
  /** Set when `right` is the rows of this deduplicating view, each a version of its key (planner/bind/versioned-view.ts). */
  readonly versionedView?: string
  readonly fields: readonly Field[]
  readonly span: Span
}

/**
 * A semi or anti join (`IN` / `EXISTS` subqueries): the rows of `left` that have (semi) or lack
 * (anti) a row of `right` with equal keys; output = left's fields. See planner/bind/subquery-binder.ts.
 */
export interface SemiJoin {
  readonly kind: 'SemiJoin'
  readonly anti: boolean
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /**
   * NOT IN: left column `left` is compared with right column `right` under SQL's NULL rules within
   * each key (the keys are then the correlation's alone).
   */
  readonly nullAware?: { readonly left: number; readonly right: number }
  /**
   * A window semi/anti join (planner/bind/window-semi-join.ts): both inputs windowed alike and the
   * keys equate window_start and window_end, so a key's state is one window's rows, decided when the
   * watermark passes the window's end. `leftEnd` / `rightEnd`: each input's window_end column.
   */
  readonly window?: { readonly window: WindowSpec; readonly leftEnd: number; readonly rightEnd: number }
  readonly ttl: SideTtl
  readonly fields: readonly Field[]
  readonly span: Span
}

/** INTERSECT / EXCEPT [ALL] of two inputs with the same columns, over whole rows. */
export interface SetOp {
  readonly kind: 'SetOp'
  readonly op: 'INTERSECT' | 'EXCEPT'
  readonly all: boolean
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  readonly ttl: SideTtl
  readonly fields: readonly Field[]
  readonly span: Span
}

/**
 * Every row of `left` with the single row of a scalar subquery `right` (NULLs while it has none):
 * output [...left fields, ...right fields]. More than one row fails the job, naming `label`.
 */
export interface ScalarJoin {
  readonly kind: 'ScalarJoin'
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  /** A correlated subquery: left's correlation columns, and right's (the subquery's row per key). */
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** The right row a left row gets while its key has none (COUNT's 0 of an empty group); NULLs when absent. */
  readonly empty?: readonly unknown[]
  readonly label: string
  readonly ttl: SideTtl
  readonly fields: readonly Field[]
  readonly span: Span
}

/**
 * An `IN` / `EXISTS` subquery where its truth value is needed (under OR, in CASE, in the SELECT
 * list): every row of `left` with a BOOLEAN marker column, the predicate's value under SQL's
 * three-valued logic. Output [...left fields, marker]. See operators/join/marker-join.ts.
 */
export interface MarkerJoin {
  readonly kind: 'MarkerJoin'
  readonly left: LogicalPlan
  readonly right: LogicalPlan
  /** Equality keys (correlation, and IN values that are never NULL). */
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** IN's values compared under SQL's NULL rules within a key (empty: EXISTS, or all are keys). */
  readonly leftValues: readonly number[]
  readonly rightValues: readonly number[]
  readonly label: string
  readonly ttl: SideTtl
  readonly fields: readonly Field[]
  readonly span: Span
}

/**
 * How a join's condition bounds it in time, so each side's rows leave state as time passes:
 * an interval join (`lower <= left time - right time <= upper`, in ms, both inclusive) or a window
 * join (both inputs windowed alike, window_start and window_end equal; they are among the keys).
 */
export type JoinTime =
  | { readonly kind: 'interval'; readonly domain: TimeDomain; readonly leftTime: number; readonly rightTime: number; readonly lower: number;
    readonly upper: number }
  | { readonly kind: 'window'; readonly window: WindowSpec; readonly leftEnd: number; readonly rightEnd: number }

/** Writes into a table, or collects rows for a SELECT. */
export interface Sink {
  readonly kind: 'Sink'
  readonly input: LogicalPlan
  /** Undefined for a collected SELECT. */
  readonly table?: CatalogTable
  readonly fields: readonly Field[]
  readonly span: Span
  /** INSERT OVERWRITE: what the table held is replaced by what the (bounded) query writes. */
  readonly overwrite?: true
  /** INSERT … PARTITION (…) naming every partition column: their values, in PARTITIONED BY order. */
  readonly staticPartition?: readonly unknown[]
}

/**
 * GROUPING SETS: each input row once per grouping set (`projections[i]` computes the row of set i:
 * the keys outside the set NULL, and the set's id). Stateless; a retraction expands to retractions.
 */
export interface Expand {
  readonly kind: 'Expand'
  readonly input: LogicalPlan
  readonly projections: readonly (readonly Rex[])[]
  readonly fields: readonly Field[]
  readonly span: Span
}

export type LogicalPlan = Scan | Values | Project | Expand | Unnest | Filter | Aggregate | WindowAggregate | WindowTvf | Union | Join | TemporalJoin | SemiJoin
  | SetOp | ScalarJoin | MarkerJoin | Sink | Over | Deduplicate | Rank | Sort | ProcessTable

export function inputsOf(plan: LogicalPlan): readonly LogicalPlan[] {
  switch (plan.kind) {
    case 'Scan':
    case 'Values':
      return []
    case 'Union':
      return plan.inputs
    case 'Join':
    case 'TemporalJoin':
    case 'SemiJoin':
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return [plan.left, plan.right]
    case 'Project':
    case 'Expand':
    case 'Unnest':
    case 'Filter':
    case 'Aggregate':
    case 'WindowAggregate':
    case 'WindowTvf':
    case 'ProcessTable':
    case 'Over':
    case 'Deduplicate':
    case 'Rank':
    case 'Sort':
    case 'Sink':
      return [plan.input]
    default:
      return assertNever(plan)
  }
}

/** The same node with new inputs (same count and order as inputsOf). */
export function withInputs(plan: LogicalPlan, inputs: readonly LogicalPlan[]): LogicalPlan {
  switch (plan.kind) {
    case 'Scan':
    case 'Values':
      return plan
    case 'Union':
      return { ...plan, inputs }
    case 'Join':
    case 'TemporalJoin':
    case 'SemiJoin':
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return { ...plan, left: inputs[0]!, right: inputs[1]! }
    case 'Project':
    case 'Expand':
    case 'Unnest':
    case 'Filter':
    case 'Aggregate':
    case 'WindowAggregate':
    case 'WindowTvf':
    case 'ProcessTable':
    case 'Over':
    case 'Deduplicate':
    case 'Rank':
    case 'Sort':
    case 'Sink':
      return { ...plan, input: inputs[0]! }
    default:
      return assertNever(plan)
  }
}
