// The interface every operator implements, and what the runtime gives it.
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
  /** The operator's current event-time watermark (-Infinity before the first). */
  currentWatermark(): number
  currentProcessingTime(): number
}

/** Counters an operator reports (late rows dropped, rows in/out). */
export interface OperatorMetrics {
  lateRecordsDropped: number
  rowsIn: number
  rowsOut: number
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
   */
  stateRequests?(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined) => void): void
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
  /** Called after due event timers have fired and before the watermark is forwarded. */
  onWatermark?(watermark: number): void
  /**
   * All inputs have ended (bounded sources, or a cancelled job); emit what is still pending. A bounded
   * source's final watermark has already been processed; a cancelled job has none.
   */
  endInput?(): void
  close?(): void | Promise<void>
}
