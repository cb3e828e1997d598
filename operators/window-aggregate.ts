// Window aggregates over TUMBLE, HOP, CUMULATE and SESSION windows, in event or processing time.
// Accumulators live per (key, window) with the window's end (sessions: an id) as namespace; a timer
// at end − 1 emits the final row [...keys, ...aggs, window_start, window_end, window_time] and clears it.
//
// An event-time HOP whose size is a multiple of its slide, over aggregates that merge without state
// (AggregateHandler.plainOnly), keeps accumulators per slice instead, as Flink's sliced windows do: a
// slice is one slide wide, so a row updates one accumulator, not size / slide of them. A key's slices
// are one state entry with one pending timer (operators/hop-slices.ts).
//
// A window attached to the input (spec.attached: GROUP BY the window_start and window_end of a window
// aggregate's output) is not assigned: each row belongs to the window its window_end names, kept and
// fired like an assigned one.
import { invariant } from '../common/assert.js'
import { WeirError } from '../common/errors.js'
import { BatchBuilder, RowKind, type Batch, type Row } from '../core/batch.js'
import type { WindowAggregateSpec } from '../core/job-graph.js'
import { slicesHop } from '../core/window-slicing.js'
import type { Operator, OperatorContext, OperatorDescriptor, TimerDomain } from '../core/operator.js'
import { valueState, type KeyRef, type Namespace, type PrefetchRequest, type ValueState } from '../core/keyed-state.js'
import { AggregateHandler, KeyGrouper, type Accumulator } from './aggregates.js'
import { HopSlices } from './hop-slices.js'
import { assignWindowEnds, maxWindowsPerRow, validateWindow, windowStartOf, type AlignedWindowSpec } from './windows.js'

/** Numbers per session in the 'sessions' state: start, end, namespace, pending timer. */
const SESSION_FIELDS = 4

/** Windows of one key loaded during a batch; past this many they are written back and reloaded. */
const WINDOW_CACHE = 16

/** The per-key list of open sessions: the first round of a session prefetch loads only it. */
const SESSION_LIST = ['sessions'] as const

/**
 * Emits insert-only, final rows. Event-time windows fire from the watermark (the runtime fires
 * the due timers, then calls onWatermark); processing-time windows from processing-time timers,
 * which the runtime fires all when bounded input ends (a cancelled job fires only those due).
 *
 * @example
 * const op = new WindowAggregateOperator({ kind: 'WindowAggregate', window: { kind: 'TUMBLE', size: 60_000, offset: 0 },
 *   timeIndex: 2, timeDomain: 'event', keys: [0], aggs })
 */
export class WindowAggregateOperator implements Operator {
  readonly spec: WindowAggregateSpec
  private readonly handler: AggregateHandler
  private readonly eventTime: boolean
  private readonly aligned: AlignedWindowSpec | null
  /** Sliced HOP (see the file's head), or null when windows are kept whole. */
  private readonly slices: HopSlices | null
  private readonly gap: number
  private ctx!: OperatorContext
  private readonly grouper = new KeyGrouper()
  private readonly pending = new BatchBuilder()
  // Window ends of one row, and the (end, accumulator) pairs of the current key loaded this batch.
  private readonly rowEnds: Float64Array
  private readonly cacheEnds = new Float64Array(WINDOW_CACHE)
  private readonly cacheAccs: (Accumulator | null)[] = new Array<Accumulator | null>(WINDOW_CACHE).fill(null)
  private cacheSize = 0
  /** stateRequests: per key, the one window or slice its rows of the batch asked for last. */
  private readonly asked = new Map<KeyRef, number>()
  /**
   * SESSION: per key, the open sessions as flat [start, end, namespace, timer] quadruples. `timer`
   * is the time of the session's one pending timer; it may lag behind end − 1 when the session grew
   * (growing does not touch timers), and then firing it re-registers at end − 1.
   */
  private sessions!: ValueState<number[]>
  /** The states of a session's own namespace (its accumulator, value counts): the second round loads only these. */
  private accStates: readonly string[] = []
  /**
   * Processing-time windows depend on the clock when the batch runs, so they cannot name their
   * namespaces in advance: prefetch every namespace of a key. (Event-time sessions load in two
   * rounds instead, see prefetchSessions.)
   */
  readonly prefetchAllNamespaces: boolean
  /**
   * Event-time sessions only (two rounds, see prefetchSessions). Other windows name their state up
   * front (stateRequests), so the runtime may read a batch's state ahead while it processes the batch
   * before: an operator with this method never gets that overlap.
   */
  readonly prefetchState?: (batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>) => Promise<void>

  constructor(spec: WindowAggregateSpec) {
    validateWindow(spec.window)
    this.spec = spec
    this.eventTime = spec.timeDomain === 'event'
    this.aligned = spec.window.kind === 'SESSION' ? null : spec.window
    this.gap = spec.window.kind === 'SESSION' ? spec.window.gap : 0
    invariant(spec.attached === undefined || (this.aligned !== null && this.eventTime), 'an attached window is an event-time TUMBLE, HOP or CUMULATE')
    this.rowEnds = new Float64Array(this.aligned === null ? 1 : maxWindowsPerRow(this.aligned))
    this.prefetchAllNamespaces = !this.eventTime
    if (this.aligned === null && this.eventTime) this.prefetchState = (batch, input, load) => this.prefetchSessions(batch, input, load)
    // Window aggregates take insert-only input (the planner rejects updating input).
    // One decision (core/window-slicing.ts) for this operator, EXPLAIN and the checkpoint's signature.
    const w = spec.window
    this.handler = new AggregateHandler(spec.aggs, { retracting: false })
    const sliced = slicesHop(spec) && w.kind === 'HOP'
    invariant(!sliced || this.handler.plainOnly, 'a sliced HOP window aggregate keeps state beside its accumulators')
    // Slices under a state of their own (hop-slices.ts): a checkpoint of whole windows is never read as slices.
    this.slices = sliced
      ? new HopSlices(this.handler, w.size, w.slide, w.offset, spec.timeIndex, (key, acc, start, end) => this.emitWindow(key, acc, start, end))
      : null
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
    if (this.slices !== null) {
      this.slices.open(ctx)
      return
    }
    this.handler.open(ctx.state)
    if (this.aligned === null) this.sessions = ctx.state.getValueState(valueState<number[]>(SESSION_LIST[0]!))
    this.accStates = this.handler.stateNames()
  }

  /**
   * Event-time sessions: first each key's session list, then every session it names and a new
   * session per row (namespace = the row's time) — point reads only, no prefix scans.
   */
  private async prefetchSessions(batch: Batch, input: number, load: (requests: readonly PrefetchRequest[]) => Promise<void>): Promise<void> {
    const ctx = this.ctx
    const timeIndex = this.spec.timeIndex
    const byKey = new Map<string, { key: KeyRef; times: number[] }>()
    const rows = batch.rows
    const keys = ctx.keysOf(rows, input)
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const key = keys[i]!
      let entry = byKey.get(key.encoded)
      if (entry === undefined) byKey.set(key.encoded, entry = { key, times: [] })
      const ts = row[timeIndex] as number | null
      if (ts != null) entry.times.push(ts)
    }
    await load([...byKey.values()].map(e => ({ key: e.key, namespace: '', states: SESSION_LIST })))
    const state = ctx.state
    const second: PrefetchRequest[] = []
    const gap = this.gap
    for (const { key, times } of byKey.values()) {
      state.setCurrentKey(key)
      const list = this.sessions.value()
      if (list !== undefined) { for (let j = 0; j < list.length; j += SESSION_FIELDS) second.push({ key, namespace: list[j + 2]!, states: this.accStates }) }
      // A row that falls into no stored session may open one named by its time (it may also
      // join a session opened earlier in this batch; loading its namespace then is harmless).
      for (const ts of times) {
        let joins = false
        if (list !== undefined) {
          for (let j = 0; j < list.length; j += SESSION_FIELDS) {
            if (list[j]! <= ts + gap && list[j + 1]! >= ts) {
              joins = true
              break
            }
          }
        }
        if (!joins) second.push({ key, namespace: ts, states: this.accStates })
      }
    }
    await load(second)
  }

  /** A session timer reads the key's session list as well as the session's own state. */
  timerStateRequests(key: KeyRef, namespace: Namespace): readonly PrefetchRequest[] {
    if (!this.eventTime) return [{ key }]
    if (this.aligned === null) return [{ key, namespace: '', states: SESSION_LIST }, { key, namespace, states: this.accStates }]
    if (this.slices !== null) return this.slices.timerStateRequests(key)
    return [{ key, namespace }]
  }

  /** Event-time TUMBLE/HOP/CUMULATE: each row's key with every window it falls in that has not fired. */
  stateRequests(batch: Batch, input: number, add: (key: KeyRef, namespace: Namespace | undefined) => void): void {
    const ctx = this.ctx
    const rows = batch.rows
    const keys = ctx.keysOf(rows, input)
    if (this.prefetchAllNamespaces || this.aligned === null) {
      for (let i = 0; i < rows.length; i++) add(keys[i]!, undefined)
      return
    }
    if (this.slices !== null) {
      this.slices.stateRequests(rows, keys, add)
      return
    }
    const window = this.aligned
    const ends = this.rowEnds
    const timeIndex = this.spec.timeIndex
    const wm = ctx.timers.currentWatermark()
    // A row in one window (TUMBLE) asks only if the key's last such row asked for another: rows of a
    // key share its KeyRef, and most of a batch's rows repeat a (key, window).
    const asked = this.asked
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const ts = row[timeIndex] as number | null
      if (ts == null) continue
      const key = keys[i]!
      const count = this.windowEndsOf(window, ts, ends)
      if (count === 1) {
        const end = ends[0]!
        if (end - 1 > wm && asked.get(key) !== end) {
          asked.set(key, end)
          add(key, end)
        }
        continue
      }
      for (let w = 0; w < count; w++) if (ends[w]! - 1 > wm) add(key, ends[w]!)
    }
    asked.clear()
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    this.flush()
    const ctx = this.ctx
    if (batch.kinds !== null) {
      for (const kind of batch.kinds) {
        if (kind === RowKind.UPDATE_BEFORE || kind === RowKind.DELETE) {
          throw WeirError.internal('a window aggregate received a retraction; its input must be insert-only')
        }
      }
    }
    const ng = this.grouper.group(rows, ctx.keysOf(rows, input))
    if (this.slices !== null) ctx.metrics.lateRecordsDropped += this.slices.process(rows, this.grouper, ng)
    else if (this.aligned !== null) this.processAligned(rows, ng, this.aligned)
    else this.processSessions(rows, ng)
    this.grouper.release()
  }

  onTimer(timestamp: number, namespace: Namespace, domain: TimerDomain): void {
    const key = this.ctx.state.getCurrentKey()!
    if (this.slices !== null) this.slices.fire(key, namespace as number)
    else if (this.aligned !== null) this.fireAligned(key, namespace as number)
    else this.fireSession(key, timestamp, namespace as number)
    // Event-time results go out together at onWatermark; processing time has no such call.
    if (domain === 'processing') this.flush()
  }

  onWatermark(_watermark: number): void {
    this.flush()
  }

  /** Results of windows fired before the end go out; windows still open stay unless the runtime fired them (bounded input). */
  endInput(): void {
    this.flush()
  }

  private processAligned(rows: Row[], ng: number, window: AlignedWindowSpec): void {
    const ctx = this.ctx
    const state = ctx.state
    const handler = this.handler
    const grouper = this.grouper
    const next = grouper.next
    const timeIndex = this.spec.timeIndex
    const eventTime = this.eventTime
    const wm = eventTime ? ctx.timers.currentWatermark() : Number.NEGATIVE_INFINITY
    const procTime = eventTime ? 0 : ctx.timers.currentProcessingTime()
    const ends = this.rowEnds
    let dropped = 0
    for (let g = 0; g < ng; g++) {
      state.setCurrentKey(grouper.keys[g]!)
      let mapNs = Number.NaN
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) {
        const row = rows[i]!
        const ts = eventTime ? row[timeIndex] as number | null : procTime
        if (ts == null) {
          dropped++
          continue
        }
        const count = this.windowEndsOf(window, ts, ends)
        let accepted = false
        for (let w = 0; w < count; w++) {
          const end = ends[w]!
          if (end - 1 <= wm) continue // this window has fired already
          accepted = true
          const acc = this.accumulatorOf(end)
          if (handler.hasMaps && mapNs !== end) {
            handler.setNamespace(end)
            mapNs = end
          }
          handler.accumulate(acc, row)
        }
        if (!accepted) dropped++
      }
      this.writeBack()
    }
    ctx.metrics.lateRecordsDropped += dropped
  }

  /** The ends of the windows a row falls in; an attached window's time column is its window_end (one window). */
  private windowEndsOf(window: AlignedWindowSpec, ts: number, ends: Float64Array): number {
    if (this.spec.attached === undefined) return assignWindowEnds(window, ts, ends)
    ends[0] = ts
    return 1
  }

  /**
   * The accumulator of window `end` for the current key: from the bundle's cache,
   * else loaded and cached, writing the cache back first when it is full.
   */
  private accumulatorOf(end: number): Accumulator {
    const cacheEnds = this.cacheEnds
    for (let c = 0; c < this.cacheSize; c++) if (cacheEnds[c] === end) return this.cacheAccs[c]!
    if (this.cacheSize === WINDOW_CACHE) this.writeBack()
    const acc = this.loadWindow(end)
    cacheEnds[this.cacheSize] = end
    this.cacheAccs[this.cacheSize++] = acc
    return acc
  }

  /** The accumulator of window `end` for the current key; a new window registers its timer. */
  private loadWindow(end: number): Accumulator {
    const handler = this.handler
    handler.accState.setNamespace(end)
    let acc = handler.accState.value()
    if (acc === undefined) {
      acc = handler.createAccumulator()
      this.registerTimer(end - 1, end)
    }
    return acc
  }

  private writeBack(): void {
    const accState = this.handler.accState
    for (let c = 0; c < this.cacheSize; c++) {
      accState.setNamespace(this.cacheEnds[c]!)
      accState.update(this.cacheAccs[c]!)
      this.cacheAccs[c] = null
    }
    this.cacheSize = 0
  }

  private fireAligned(key: KeyRef, end: number): void {
    const handler = this.handler
    handler.setNamespace(end)
    const acc = handler.accState.value()
    if (acc === undefined) return
    this.emitWindow(key, acc, windowStartOf(this.aligned!, end), end)
    handler.clear()
  }

  private processSessions(rows: Row[], ng: number): void {
    const ctx = this.ctx
    const state = ctx.state
    const handler = this.handler
    const grouper = this.grouper
    const next = grouper.next
    const timeIndex = this.spec.timeIndex
    const gap = this.gap
    const wm = this.eventTime ? ctx.timers.currentWatermark() : Number.NEGATIVE_INFINITY
    const procTime = this.eventTime ? 0 : ctx.timers.currentProcessingTime()
    let dropped = 0
    for (let g = 0; g < ng; g++) {
      state.setCurrentKey(grouper.keys[g]!)
      const stored = this.sessions.value()
      const list = stored === undefined ? [] : stored.slice()
      let changed = false
      // One loaded accumulator: the session the previous row went to.
      let curNs = Number.NaN
      let curAcc: Accumulator | null = null
      for (let i = grouper.first[g]!; i !== -1; i = next[i]!) {
        const row = rows[i]!
        const ts = this.eventTime ? row[timeIndex] as number | null : procTime
        if (ts == null) {
          dropped++
          continue
        }
        let start = ts, end = ts + gap
        // Sessions [s, e) and [ts, ts + gap) merge when they intersect or touch (Flink: s <= end && e >= start).
        let target = -1
        let merges = 0
        for (let j = 0; j < list.length; j += SESSION_FIELDS) {
          if (list[j]! <= ts + gap && list[j + 1]! >= ts) {
            if (target < 0) target = j
            else merges++
            if (list[j]! < start) start = list[j]!
            if (list[j + 1]! > end) end = list[j + 1]!
          }
        }
        // Open sessions have not fired, so a row that joins one is never late.
        if (target < 0 && end - 1 <= wm) {
          dropped++
          continue
        }
        changed = true
        if (target < 0) {
          if (curAcc !== null) this.storeAcc(curNs, curAcc)
          curNs = ts
          curAcc = handler.createAccumulator()
          list.push(start, end, ts, end - 1)
          this.registerTimer(end - 1, ts)
        } else {
          const ns = list[target + 2]!
          if (curNs !== ns) {
            if (curAcc !== null) this.storeAcc(curNs, curAcc)
            curNs = ns
            handler.accState.setNamespace(ns)
            curAcc = handler.accState.value() ?? handler.createAccumulator()
          }
          if (merges > 0) {
            // Merge every other intersecting session into the target's state, and drop it.
            for (let j = list.length - SESSION_FIELDS; j > target; j -= SESSION_FIELDS) {
              if (list[j]! <= ts + gap && list[j + 1]! >= ts) {
                this.deleteTimer(list[j + 3]!, list[j + 2]!)
                handler.mergeNamespace(curAcc!, ns, list[j + 2]!)
                list.splice(j, SESSION_FIELDS)
              }
            }
          }
          list[target] = start
          list[target + 1] = end
        }
        if (handler.hasMaps) handler.setNamespace(curNs)
        handler.accumulate(curAcc!, row)
      }
      if (curAcc !== null) this.storeAcc(curNs, curAcc)
      if (changed) this.sessions.update(list)
    }
    ctx.metrics.lateRecordsDropped += dropped
  }

  private storeAcc(ns: number, acc: Accumulator): void {
    this.handler.accState.setNamespace(ns)
    this.handler.accState.update(acc)
  }

  private fireSession(key: KeyRef, timestamp: number, ns: number): void {
    const list = this.sessions.value()
    if (list === undefined) return
    let j = 0
    while (j < list.length && !(list[j + 2] === ns && list[j + 3] === timestamp)) j += SESSION_FIELDS
    if (j >= list.length) return // not this session's pending timer
    const end = list[j + 1]!
    if (end - 1 !== timestamp) {
      // The session grew since this timer was set: move the timer to its end. If that is due
      // already, the timer service fires it in this same advance, in end order.
      const moved = list.slice()
      moved[j + 3] = end - 1
      this.sessions.update(moved)
      this.registerTimer(end - 1, ns)
      return
    }
    this.closeSession(key, list, j)
  }

  /** Emits session `j` of `list` (the current key's sessions) and drops its state. */
  private closeSession(key: KeyRef, list: readonly number[], j: number): void {
    const start = list[j]!, end = list[j + 1]!, ns = list[j + 2]!
    const handler = this.handler
    handler.setNamespace(ns)
    const acc = handler.accState.value()
    if (acc !== undefined) this.emitWindow(key, acc, start, end)
    handler.clear()
    const rest = list.slice(0, j).concat(list.slice(j + SESSION_FIELDS))
    if (rest.length === 0) this.sessions.clear()
    else this.sessions.update(rest)
  }

  private emitWindow(key: KeyRef, acc: Accumulator, start: number, end: number): void {
    const nk = this.spec.keys.length
    const na = this.spec.aggs.length
    const row: Row = new Array(nk + na + 3)
    const values = key.values
    for (let k = 0; k < nk; k++) row[k] = values[k]
    this.handler.getValue(acc, row, nk)
    row[nk + na] = start
    row[nk + na + 1] = end
    row[nk + na + 2] = end - 1
    this.pending.push(row, RowKind.INSERT)
  }

  private registerTimer(timestamp: number, ns: number): void {
    if (this.eventTime) this.ctx.timers.registerEventTimeTimer(timestamp, ns)
    else this.ctx.timers.registerProcessingTimeTimer(timestamp, ns)
  }

  private deleteTimer(timestamp: number, ns: number): void {
    if (this.eventTime) this.ctx.timers.deleteEventTimeTimer(timestamp, ns)
    else this.ctx.timers.deleteProcessingTimeTimer(timestamp, ns)
  }

  private flush(): void {
    const batch = this.pending.take()
    if (batch === null) return
    this.ctx.output.emit(batch)
  }
}

/** Accumulators per (key, window); a timer in the window's time domain emits each window. */
export const windowAggregate: OperatorDescriptor<WindowAggregateSpec> = {
  traits: spec => ({ keyedState: true, input: 'batch', ttlSweep: false, timers: [spec.timeDomain] }),
  create: spec => new WindowAggregateOperator(spec),
}
