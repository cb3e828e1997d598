// An in-memory OperatorContext for driving one operator in tests: heap state, real timers, a
// manual processing-time clock, and an output collector that records rows with their kinds.
import { ROW_KIND_SHORT, RowKind, type Batch, type Row } from '../../core/batch.js'
import type { Operator, OperatorContext, OperatorMetrics } from '../../core/operator.js'
import { TimerServiceImpl, type TimersSnapshot } from '../../runtime/timers.js'
import { HeapKeyedStateBackend, type HeapSnapshot } from '../../state/heap/heap-backend.js'
import type { KeyRef } from '../../core/keyed-state.js'
import { makeKey } from '../../state/key-encoding.js'
import { DEFAULT_JOB_CONFIG } from '../../common/config/index.js'
import type { AggCall } from '../../core/aggregates.js'
import type { DataType } from '../../common/types.js'
import { aggregateResultType } from '../../expr/aggregate-types.js'

export interface HarnessOptions {
  /** Input columns the key is built from (the exchange keys). */
  readonly keys: readonly number[]
  /** Per input, its key columns, for operators with several inputs (joins); input 0 defaults to `keys`. */
  readonly inputKeys?: readonly (readonly number[])[]
  /** Initial processing time (ms). */
  readonly now?: number
  /** Initial TTL clock (ms); defaults to `now`. */
  readonly ttlTime?: number
  /** Restores state and timers (before open, as the runtime does). */
  readonly restore?: HarnessCheckpoint
}

/** What a checkpoint of one operator holds: keyed state and timers, as plain data. */
export interface HarnessCheckpoint {
  readonly state: HeapSnapshot
  readonly timers: TimersSnapshot
}

export interface Harness {
  readonly ctx: OperatorContext
  readonly state: HeapKeyedStateBackend
  readonly timers: TimerServiceImpl
  readonly metrics: OperatorMetrics
  /** Every emitted row, in order, as `[kind, ...values]`, e.g. ['+I', 'a', 1]. */
  readonly out: unknown[][]
  /** Rows emitted since the last call. */
  take(): unknown[][]
  /** Feeds rows to `input` (0 by default); `kinds` as '+I' | '-U' | '+U' | '-D' strings (all +I when omitted). */
  process(rows: Row[], kinds?: readonly string[], input?: number): void
  /** Fires due event timers (current key set for each), then calls onWatermark, as the runtime does. */
  watermark(wm: number): void
  /** Sets the processing-time clock (and TTL clock) and fires due processing-time timers. */
  processingTime(now: number): void
  /** The final watermark, every processing-time timer, then endInput (as the runtime ends a bounded input). */
  end(): void
  /** A deep copy of state and timers. */
  checkpoint(): HarnessCheckpoint
}

export async function harness(op: Operator, options: HarnessOptions): Promise<Harness> {
  let now = options.now ?? 0
  const state = new HeapKeyedStateBackend()
  state.setTtlTime(options.ttlTime ?? now)
  const timers = new TimerServiceImpl(() => state.getCurrentKey()!, { clock: () => now })
  const metrics: OperatorMetrics = { lateRecordsDropped: 0, rowsIn: 0, rowsOut: 0 }
  const out: unknown[][] = []
  let taken = 0
  const keyCols = options.keys
  const ctx: OperatorContext = {
    operatorId: 'test-op',
    state,
    timers,
    metrics,
    config: DEFAULT_JOB_CONFIG,
    output: {
      emit(batch: Batch) {
        metrics.rowsOut += batch.rows.length // counted by the runtime, as the executor does
        batch.rows.forEach((row, i) => out.push([ROW_KIND_SHORT[batch.kinds === null ? 0 : batch.kinds[i]!], ...row]))
      },
    },
    keysOf(rows: readonly Row[], input = 0): readonly KeyRef[] {
      const cols = options.inputKeys?.[input] ?? keyCols
      return rows.map(row => makeKey(cols.map(k => row[k])))
    },
  }
  if (options.restore !== undefined) {
    const copy = structuredClone(options.restore)
    state.restore(copy.state)
    timers.restore(copy.timers)
  }
  await op.open(ctx)
  const fire = (domain: 'event' | 'processing') => (ts: number, key: KeyRef, ns: string | number) => {
    state.setCurrentKey(key)
    op.onTimer?.(ts, ns, domain)
  }
  const watermark = (wm: number): void => {
    // As the runtime does (TaskRunner.advanceWatermark): the final watermark is announced first.
    if (wm === Number.POSITIVE_INFINITY && op.onFinalWatermark?.() === true) timers.deleteAllEventTimers()
    timers.advanceWatermark(wm, fire('event'))
    op.onWatermark?.(wm)
  }
  return {
    ctx,
    state,
    timers,
    metrics,
    out,
    take() {
      const rows = out.slice(taken)
      taken = out.length
      return rows
    },
    process(rows, kinds, input = 0) {
      const codes = kinds === undefined ? null : Uint8Array.from(kinds, k => {
        const code = ROW_KIND_SHORT.indexOf(k as (typeof ROW_KIND_SHORT)[number])
        if (code < 0) throw new Error(`bad row kind ${k}`)
        return code
      })
      metrics.rowsIn += rows.length
      op.processBatch({ rows, kinds: codes }, input)
    },
    watermark,
    processingTime(t) {
      now = t
      state.setTtlTime(t)
      timers.advanceProcessingTime(t, fire('processing'))
    },
    end() {
      watermark(Number.POSITIVE_INFINITY)
      // As the runtime does at end of input: every processing-time timer fires, then endInput.
      timers.advanceProcessingTime(Number.POSITIVE_INFINITY, fire('processing'))
      op.endInput?.()
    },
    checkpoint() {
      return structuredClone({ state: state.snapshot(), timers: timers.snapshot() })
    },
  }
}

export { RowKind }

/** An AggCall as the planner would emit it: `aggCall('SUM', 1, T.int())`, `aggCall('COUNT', null)`. */
export function aggCall(
  fn: AggCall['fn'],
  arg: number | null,
  argType: DataType | null = null,
  extra: { distinct?: boolean; filter?: number } = {},
): AggCall {
  return {
    fn,
    arg,
    argType,
    distinct: extra.distinct ?? false,
    filter: extra.filter ?? null,
    type: aggregateResultType(fn, argType),
    name: `${fn}_${arg ?? 'star'}`,
  }
}
