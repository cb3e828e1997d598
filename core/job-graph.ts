// The physical plan: the one contract between the planner and the runtime. Plain data that could be
// written to JSON, but for the bigints of DECIMAL and large BIGINT literals inside expressions.
import type { Field } from '../common/types.js'
import type { JobConfig } from '../common/config/index.js'
import { inputsUsed, type Rex } from './rex.js'
import type { AggCall } from './aggregates.js'
import type { TimeDomain, WindowSpec } from './windows.js'
import type { DeduplicateSpec, RankSpec } from './rank.js'
import type { SortSpec } from './sort.js'

export type { DeduplicateSpec, RankSpec } from './rank.js'
export type { SortSpec } from './sort.js'
import type { MarkerJoinSpec, ScalarJoinSpec, SemiJoinSpec, SetOpSpec, WindowSemiJoinSpec } from './subquery-specs.js'
export type { MarkerJoinSpec, ScalarJoinSpec, SemiJoinSpec, SetOpSpec, WindowSemiJoinSpec } from './subquery-specs.js'
import type { OverAggregateSpec } from './over-aggregate.js'
import type { UnnestSpec } from './unnest.js'
import type { ProcessFunctionSpec } from './process-function.js'

export type { OverAggregateSpec } from './over-aggregate.js'
export type { UnnestSpec } from './unnest.js'
export type { ProcessFunctionSpec, ProcessStateInfo } from './process-function.js'

export type ChangelogMode = 'insert-only' | 'updating'

/** How rows travel from a producer to a consumer. */
export type Exchange =
  | { readonly kind: 'forward' }
  /** Rows go to the subtask owning the key group of these columns. */
  | { readonly kind: 'hash'; readonly keys: readonly number[] }
  /** Every row goes to subtask 0 (global aggregates without keys). */
  | { readonly kind: 'single' }

export interface JobGraph {
  readonly name: string
  readonly nodes: readonly PhysicalNode[]
  /** The job's configuration: the options in force when it was planned, read once. */
  readonly config: JobConfig
  /**
   * Sub-plan reuse (planner/physical/reuse.ts): each operator id the plan had that is not in `nodes`
   * because an identical operator over the same inputs computes it, mapped to that operator's id.
   * A checkpoint records it, so one taken with other merges is refused rather than misread.
   */
  readonly reused?: Readonly<Record<string, string>>
}

export interface PhysicalNode {
  /** Stable id derived from the plan (position + kind), so checkpoints map back onto the query. */
  readonly id: string
  readonly spec: OperatorSpec
  readonly inputs: readonly { readonly node: string; readonly exchange: Exchange }[]
  /** Output schema. */
  readonly schema: readonly Field[]
  readonly changelog: ChangelogMode
}

export interface SourceSpec {
  readonly kind: 'Source'
  readonly table: string
  readonly connector: string
  readonly options: Readonly<Record<string, string>>
  /** Columns the connector reads (physical and metadata columns of the table). */
  readonly physicalSchema: readonly Field[]
  /** Per physicalSchema column: its metadata key, or null for a column of the record. Absent: none is metadata. */
  readonly metadata?: readonly (string | null)[]
  /** PARTITIONED BY: the names of the physicalSchema columns whose values a filesystem table keeps in its folder names. */
  readonly partitionKeys?: readonly string[]
  /**
   * Output row = these expressions over the physical row (physical columns pass through as Input
   * refs; computed columns such as `ts AS TO_TIMESTAMP(s)` or `pt AS PROCTIME()` are evaluated).
   */
  readonly projection: readonly Rex[]
  /** Rows kept by a pushed-down filter (over the PHYSICAL row, like `projection`), if any. */
  readonly filter?: Rex
  /**
   * Event-time watermark: the WATERMARK FOR expression over the PHYSICAL row (computed columns already
   * substituted), so it works whatever columns the projection keeps. Bounded out-of-orderness: the
   * source's watermark is the maximum of this over the rows it has read (minimum over its splits).
   */
  readonly watermark?: { readonly expr: Rex; readonly column: string; readonly text: string }
  /** 'scan.watermark.alignment.*': read so as not to run ahead of the group's slowest source by more than the drift. */
  readonly alignment?: { readonly group: string; readonly maxDriftMs: number }
}

export interface CalcSpec {
  readonly kind: 'Calc'
  readonly projection: readonly Rex[]
  readonly condition?: Rex
}

/** GROUPING SETS: each input row once per projection (one per grouping set), with its row kind. */
export interface ExpandSpec {
  readonly kind: 'Expand'
  readonly projections: readonly (readonly Rex[])[]
}

/** Window TVF without aggregation: appends window_start, window_end, window_time (one row per window for HOP/CUMULATE). */
export interface WindowAssignSpec {
  readonly kind: 'WindowAssign'
  readonly window: WindowSpec
  readonly timeIndex: number
  readonly timeDomain: TimeDomain
}

/**
 * Window aggregate. Output row: [...keys, ...aggs, window_start, window_end, window_time].
 * Emits final rows (insert-only) when the watermark passes a window's end; late rows are dropped and counted.
 */
export interface WindowAggregateSpec {
  readonly kind: 'WindowAggregate'
  readonly window: WindowSpec
  /** Input column holding the time attribute. */
  readonly timeIndex: number
  readonly timeDomain: TimeDomain
  readonly keys: readonly number[]
  readonly aggs: readonly AggCall[]
  /**
   * A window attached to the input (Flink's WindowAttachedWindowingStrategy): the input's columns
   * holding each row's window_start and window_end (a window aggregate's output, renamed or not), so
   * no window is assigned; timeIndex is the end column. Absent: windows are assigned from timeIndex.
   */
  readonly attached?: { readonly start: number; readonly end: number }
}

/**
 * Non-windowed GROUP BY (and SELECT DISTINCT, with no aggs). Output row: [...keys, ...aggs].
 * Emits +I for a new group, -U/+U when it changes, -D when its last row is retracted.
 */
export interface GroupAggregateSpec {
  readonly kind: 'GroupAggregate'
  readonly keys: readonly number[]
  readonly aggs: readonly AggCall[]
  readonly inputUpdating: boolean
  /** State TTL in ms; 0 means state never expires. */
  readonly ttlMs: number
  /** False: no consumer reads -U rows (an upsert sink by the group keys, a blackhole), so an update is its +U alone. Absent: true. */
  readonly emitUpdateBefore?: boolean
  /**
   * 'global': the second phase of a two-phase aggregation. Its input rows are a LocalGroupAggregate's
   * partial accumulators ([...keys, ...accumulator], core/partial-aggregate.ts), merged instead of
   * accumulated; `keys` are their first columns, `aggs` the calls as the local one computes them (over
   * its input). Its state is the one-phase aggregate's, so checkpoints restore across the strategy.
   */
  readonly phase?: 'global'
  /** Why the aggregate stays one-phase though 'table.optimizer.agg-phase-strategy' asked for two (for EXPLAIN). */
  readonly onePhase?: string
}

/**
 * The first phase of a two-phase aggregation, chained to its input ahead of the hash exchange: folds
 * each input batch's rows per group key into an accumulator, with no state, and emits one row per
 * key ([...keys, ...accumulator], core/partial-aggregate.ts) before the batch is done — so it holds
 * nothing across a watermark or a checkpoint barrier. Only mergeable calls (COUNT, SUM, MIN, MAX, AVG)
 * over an insert-only input.
 */
export interface LocalGroupAggregateSpec {
  readonly kind: 'LocalGroupAggregate'
  readonly keys: readonly number[]
  readonly aggs: readonly AggCall[]
}

/** One input of a regular join, as the join keeps it in state. */
export interface JoinSideSpec {
  /** Its join key columns (the columns its exchange hashes). */
  readonly keys: readonly number[]
  /**
   * A unique key of its rows that the planner knows (a GROUP BY's keys, a PRIMARY KEY): state holds
   * one entry per unique key. Absent: one entry per distinct row, with its count.
   */
  readonly uniqueKey?: readonly number[]
  /** Its rows are kept in the output when nothing matches them, NULL-padded (the outer side of an outer join). */
  readonly outer: boolean
  /** It carries retractions (-U/-D). */
  readonly updating: boolean
  /** State TTL in ms; 0 means its state never expires. */
  readonly ttlMs: number
  /** Its column count. */
  readonly width: number
}

/**
 * Regular join of input 0 (left) and input 1 (right) on equal keys. Output row: [...left, ...right];
 * NULL keys never match. See operators/join/regular-join.ts for the changelog it emits.
 */
export interface JoinSpec {
  readonly kind: 'Join'
  readonly joinType: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL'
  readonly left: JoinSideSpec
  readonly right: JoinSideSpec
  /** The non-equi rest of the condition, over the output row. */
  readonly residual?: Rex
}

/**
 * Temporal join of input 0 (the probe rows) with input 1 (a versioned table's changelog), both keyed
 * by the table's primary key. Output row: [...probe, ...version]. See operators/join/temporal-join.ts.
 */
export interface TemporalJoinSpec {
  readonly kind: 'TemporalJoin'
  readonly joinType: 'INNER' | 'LEFT'
  /** 'event': the version valid at the probe's time, once the watermark passes it; 'processing': the latest version at arrival. */
  readonly timeDomain: 'event' | 'processing'
  readonly leftKeys: readonly number[]
  readonly rightKeys: readonly number[]
  /** The probe's time column and the versions' rowtime column (event time; -1 for processing time). */
  readonly leftTime: number
  readonly rightTime: number
  readonly leftWidth: number
  readonly rightWidth: number
  /** The non-key rest of the condition, over the output row, tested against the version found. */
  readonly residual?: Rex
  /** The deduplicating view whose rows (input 1, append-only) are the versions, for EXPLAIN. */
  readonly versionedView?: string
}

/**
 * Interval join: a regular join's sides (append-only) whose rows pair only where
 * `lower <= left time - right time <= upper` (ms, inclusive). Each side's rows leave state when time
 * makes a match impossible; the output is insert-only. See operators/join/interval-join.ts.
 */
export interface IntervalJoinSpec {
  readonly kind: 'IntervalJoin'
  readonly joinType: JoinSpec['joinType']
  readonly left: JoinSideSpec
  readonly right: JoinSideSpec
  readonly residual?: Rex
  readonly timeDomain: TimeDomain
  /** The time column of each side (its own column index). */
  readonly leftTime: number
  readonly rightTime: number
  readonly lower: number
  readonly upper: number
}

/**
 * Window join: both sides windowed alike, keyed by the equi keys with window_start and window_end
 * among them; a window's rows are joined and dropped when the watermark passes its end.
 * See operators/join/window-join.ts.
 */
export interface WindowJoinSpec {
  readonly kind: 'WindowJoin'
  readonly joinType: JoinSpec['joinType']
  readonly left: JoinSideSpec
  readonly right: JoinSideSpec
  readonly residual?: Rex
  readonly window: WindowSpec
  /** The window_end column of each side (its own column index). */
  readonly leftEnd: number
  readonly rightEnd: number
}

/** Merges its inputs (UNION ALL). */
export interface UnionSpec {
  readonly kind: 'Union'
}

export interface SinkSpec {
  readonly kind: 'Sink'
  readonly table: string
  readonly connector: string
  readonly options: Readonly<Record<string, string>>
  readonly schema: readonly Field[]
  /** Per schema column, the metadata key it writes (SinkContext.metadata); absent when the sink writes no metadata. */
  readonly metadata?: readonly (string | null)[]
  /** PARTITIONED BY: the names of the schema columns whose values name the folders rows go to (SinkContext.partitionKeys). */
  readonly partitionKeys?: readonly string[]
  /** INSERT … PARTITION (…) naming every partition column: their values (SinkContext.staticPartition). */
  readonly staticPartition?: readonly unknown[]
  /** What the sink receives. */
  readonly inputChangelog: ChangelogMode
  /** Primary key columns of the sink table, if declared. */
  readonly primaryKey: readonly number[]
  /** Columns the sink table declares NOT NULL that the query may fill with NULL (checked per row, as Flink's sink NOT NULL enforcer does). */
  readonly notNull?: readonly number[]
  /** INSERT OVERWRITE (SinkContext.overwrite). */
  readonly overwrite?: true
}

/** Collects results for a SELECT run from the CLI or the REPL (materialized as a changelog). */
export interface CollectSpec {
  readonly kind: 'Collect'
  readonly schema: readonly Field[]
  readonly inputChangelog: ChangelogMode
}

/**
 * Before a sink that writes updates as upserts by its PRIMARY KEY (upsert-kafka), when the query's
 * rows are not unique by that key: keeps every live row per key (`keys`, the sink's key columns) and
 * hands the sink one upsert per key — the key's newest row, or a delete when it has none left — so a
 * -U that moves a row to another key is not lost (the sink drops -U rows). Flink's SinkUpsertMaterializer.
 */
export interface UpsertMaterializeSpec {
  readonly kind: 'UpsertMaterialize'
  readonly keys: readonly number[]
  /**
   * The input is an upsert stream (+I/+U set a key's row, -D deletes it by key, no -U): the operator
   * keeps the last row per key and emits retractions (-U before +U, -D of the stored row), as Flink's
   * ChangelogNormalize. Absent: a retract stream, emitted as one upsert per key (no -U).
   */
  readonly upsertInput?: true
  /** State TTL in ms ('table.exec.state.ttl'); 0 means state never expires. */
  readonly ttlMs: number
}

/** A bounded source of literal rows (VALUES). */
export interface ValuesSpec {
  readonly kind: 'Values'
  readonly rows: readonly (readonly Rex[])[]
}

export type OperatorSpec =
  | SourceSpec
  | ValuesSpec
  | CalcSpec
  | ExpandSpec
  | UnnestSpec
  | WindowAssignSpec
  | WindowAggregateSpec
  | GroupAggregateSpec
  | LocalGroupAggregateSpec
  | OverAggregateSpec
  | UnionSpec
  | JoinSpec
  | TemporalJoinSpec
  | SemiJoinSpec
  | SetOpSpec
  | ScalarJoinSpec
  | MarkerJoinSpec
  | IntervalJoinSpec
  | WindowJoinSpec
  | WindowSemiJoinSpec
  | SinkSpec
  | CollectSpec
  | DeduplicateSpec
  | RankSpec
  | SortSpec
  | UpsertMaterializeSpec
  | ProcessFunctionSpec

/** The nodes the runtime runs itself: sources and sinks through their connectors, VALUES, and a SELECT's collector. */
export type EndpointSpec = SourceSpec | ValuesSpec | SinkSpec | CollectSpec

/** The nodes an operator runs (operators/catalog.ts has each kind's descriptor). */
export type TransformSpec = Exclude<OperatorSpec, EndpointSpec>

/** Whether the runtime runs the node itself (no operator of operators/). */
export function isEndpoint(spec: OperatorSpec): spec is EndpointSpec {
  return spec.kind === 'Source' || spec.kind === 'Values' || spec.kind === 'Sink' || spec.kind === 'Collect'
}

/** Which physical columns a source's job reads: those its projection, filter and watermark use. */
export function sourceReadColumns(spec: SourceSpec): boolean[] {
  const used = new Set<number>()
  for (const r of spec.projection) inputsUsed(r, used)
  if (spec.filter) inputsUsed(spec.filter, used)
  if (spec.watermark) inputsUsed(spec.watermark.expr, used)
  return spec.physicalSchema.map((_, i) => used.has(i))
}
