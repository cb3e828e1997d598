// The interface every operator implements, what the runtime gives it, and what each operator kind
// declares to the runtime (its traits) beside the factory that creates it.
import type { Batch, Row } from './batch.js'
import type { KeyedStateBackend, KeyRef, Namespace, PrefetchRequest } from './keyed-state.js'
import type { JobConfig } from '../common/config/index.js'

export type TimerDomain = 'event' | 'processing'

/** Timers scoped to the current key; fired through `Operator.onTimer` with that key set again. */
export interface TimerService {
  registerEventTimeTimer(timestamp: number, namespace?: Namespace): void
  deleteEventTimeTimer(timestamp: number, namespace?: Namespace): void
  registerProcessingTimeTimer(timestamp: number, namespace?: Namespace): void
  deleteProcessingTimeTimer(timestamp: number, namespace?: Namespace): void
  /**
   * Whether `key` has an event-time timer at `timestamp` in `namespace` (registered, not yet fired or
   * deleted). Timers live in memory, so an operator that keeps one timer per stored (key, namespace)
   * can tell from them, with no state read, whether anything is stored there.
   */
  hasEventTimeTimer(timestamp: number, namespace: Namespace, key: KeyRef): boolean
  /** The operator's current event-time watermark (-Infinity before the first). */
  currentWatermark(): number
  currentProcessingTime(): number
}

/** Counters an operator reports (late rows dropped, rows in/out). */
export interface OperatorMetrics {
  lateRecordsDropped: number
  rowsIn: number
  rowsOut: number
  /** Rows (or timers) an operator skipped as bad: a process function's handler threw, with 'weir.process-function.on-error' = 'skip'. */
  rowsSkipped?: number
}

export interface Output {
  emit(batch: Batch): void
}

export interface OperatorContext {
  /** Stable id of this operator in the plan. */
  readonly operatorId: string
  /** Keyed state, present for keyed operators (those with a hash or single input exchange). */
  readonly state: KeyedStateBackend
  readonly timers: TimerService
  readonly output: Output
  readonly metrics: OperatorMetrics
  /**
   * The key of every row of a batch of input `input` (per the plan's exchange keys; `[]`-valued for
   * a single exchange), computed once per batch: the runtime's prefetch and the operator's
   * processing of the same rows share them (each key is an encoding and a hash). Treat the array
   * as read-only.
   */
  keysOf(rows: readonly Row[], input?: number): readonly KeyRef[]
  /** The job's configuration. */
  readonly config: JobConfig
}

/**
 * A stream operator. All calls are made by the runtime, one at a time, never concurrently.
 * `processBatch` is synchronous: the runtime has already made the state of every key in the batch resident.
 */
export interface Operator {
  open(ctx: OperatorContext): void | Promise<void>
  processBatch(batch: Batch, input: number): void
  /**
   * The (key, namespace) pairs `processBatch` will touch, for a disk backend to prefetch. Without
   * it the runtime requests each row's key in namespace ''. Window operators name their windows.
   * `appendOnly`: the batch only appends to that pair's lists (PrefetchRequest.appendOnly), so a
   * disk backend need not read them; or to the lists named (PrefetchRequest.appendOnlyStates).
   */
  stateRequests?(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined, appendOnly?: boolean | readonly string[]) => void): void
  /**
   * For operators whose namespaces are found in state (sessions): loads what a batch will touch in
   * rounds — e.g. first each key's session list, then the sessions it names. Wins over stateRequests.
   */
  prefetchState?(batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>): Promise<void>
  /** The state a due timer touches; without it the runtime loads the timer's (key, namespace). */
  timerStateRequests?(key: KeyRef, namespace: Namespace): readonly PrefetchRequest[]
  /**
   * True when the operator reaches namespaces it cannot name in advance (session windows merge
   * sessions found in state): the runtime then prefetches every namespace of each key, for
   * batches and for timers alike.
   */
  readonly prefetchAllNamespaces?: boolean
  /** Called with the current key set for each timer due (event timers when the watermark reaches them). */
  onTimer?(timestamp: number, namespace: Namespace, domain: TimerDomain): void
  /**
   * The watermark to forward once the operator has taken `watermark` (default: the same). An operator
   * that may still emit rows older than its input watermark (an interval join) holds it back.
   */
  outputWatermark?(watermark: number): number
  /**
   * Called once when the event-time watermark reaches +Infinity (every input has ended), before any
   * timer fires for it. True says the operator has let go of all its keyed state for good
   * (ListState.dropAll) and would do nothing at any of its event timers: the runtime deletes them all
   * unfired instead of calling onTimer for each (an inner interval join keeps one per stored bucket).
   */
  onFinalWatermark?(): boolean
  /** Called after due event timers have fired and before the watermark is forwarded. */
  onWatermark?(watermark: number): void
  /**
   * All inputs have ended (bounded sources, or a cancelled job); emit what is still pending. A bounded
   * source's final watermark has already been processed; a cancelled job has none.
   */
  endInput?(): void
  close?(): void | Promise<void>
}

/**
 * What the runtime needs to know of an operator before it creates one, declared by the operator
 * kind for a spec: the runtime reads these and never the operator's kind.
 */
export interface OperatorTraits {
  /**
   * It keeps keyed state: its subtasks get the job's state backend ('state.backend'), checkpoints
   * snapshot that state with the subtask's timers, and a restore must find it. Without, a heap
   * backend it never touches, and nothing in checkpoints.
   */
  readonly keyedState: boolean
  /**
   * How `processBatch` takes rows: 'batch', a whole batch per call; 'row', one row per call, so each
   * row's changes are emitted on their own (a group aggregate with mini-batch off).
   */
  readonly input: 'batch' | 'row'
  /** Its state expires (a TTL): after each batch the runtime sweeps expired entries, in proportion to the rows. */
  readonly ttlSweep: boolean
  /**
   * The domains it registers timers in (needs `keyedState`: timers are scoped to a key and
   * checkpointed with the state). The runtime fires and schedules only these; registering in
   * another is an internal error.
   */
  readonly timers: readonly TimerDomain[]
  /**
   * The columns `ctx.keysOf` keys its input rows by where no hash exchange keys them (a local
   * aggregate groups a batch's rows as the exchange after it will key them). Absent: none, one key.
   */
  readonly groupKeys?: readonly number[]
}

/**
 * An operator kind as the runtime sees it: its traits for a spec, and how to create it.
 * operators/catalog.ts lists one per kind of spec.
 *
 * @example
 * export const union: OperatorDescriptor<UnionSpec> = {
 *   traits: () => STATELESS,
 *   create: () => new UnionOperator(),
 * }
 */
export interface OperatorDescriptor<S> {
  traits(spec: S, config: JobConfig): OperatorTraits
  create(spec: S): Operator
}

/** The traits of an operator that keeps no state and registers no timers. */
export const STATELESS: OperatorTraits = Object.freeze({ keyedState: false, input: 'batch', ttlSweep: false, timers: Object.freeze([]) })
