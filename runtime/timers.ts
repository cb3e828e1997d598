// Event-time and processing-time timers of one operator subtask: per domain, a binary min-heap of
// timestamps with a bucket of (namespace, key) timers each; deduplicated, O(1) delete.
import { WeirError } from '../common/errors.js'
import type { KeyRef, Namespace } from '../core/keyed-state.js'
import { DEFAULT_MAX_PARALLELISM, makeKey } from '../state/key-encoding.js'
import type { TimerDomain, TimerService } from '../core/operator.js'

/** Called for each due timer, in timestamp order; the caller sets `key` as the current key first. */
export type FireTimer = (timestamp: number, key: KeyRef, namespace: Namespace) => void

export interface TimerServiceOptions {
  /** Processing-time clock (default Date.now). */
  readonly clock?: () => number
  /** For restore: keys are rebuilt with this many key groups. */
  readonly maxParallelism?: number
  /**
   * The domains the operator declared (OperatorTraits.timers), default both: registering in another
   * is an internal error, since the runtime fires only the declared ones.
   */
  readonly domains?: readonly TimerDomain[]
  /** Who the timers are for, in that error. */
  readonly operatorId?: string
}

/** A timer as a checkpoint stores it: plain data. */
export interface TimerEntry {
  readonly timestamp: number
  readonly key: readonly unknown[]
  readonly namespace: Namespace
}

export interface TimersSnapshot {
  readonly event: readonly TimerEntry[]
  readonly processing: readonly TimerEntry[]
  readonly watermark: number
}

/**
 * The timers due at one timestamp: namespace → encoded key → key. Firing follows insertion order,
 * so timers of one timestamp fire in the order they were registered (grouped by namespace).
 */
type Bucket = Map<Namespace, Map<string, KeyRef>>

/**
 * Timers of one domain. A binary min-heap of the distinct timestamps that have timers, and a
 * bucket per timestamp. Windows make many keys share one timestamp, so registering is three Map
 * lookups and no allocation beyond the entry; deleting removes the entry in O(1), and a
 * timestamp whose bucket emptied is skipped when it reaches the top of the heap.
 */
class TimerQueue {
  private heap: number[] = []
  private readonly buckets = new Map<number, Bucket>()
  private count = 0
  /**
   * The keys of the (timestamp, namespace) added to last, while its bucket is live: most adds repeat
   * it (a window's keys, a sliced HOP's next windows registered as a window fires). Forgotten whenever
   * a bucket goes.
   */
  private lastTs = Number.NaN
  private lastNs: Namespace | undefined = undefined
  private lastKeys: Map<string, KeyRef> | null = null

  get size(): number {
    return this.count
  }

  add(ts: number, key: KeyRef, ns: Namespace): void {
    let keys = this.lastKeys
    if (keys === null || ts !== this.lastTs || ns !== this.lastNs) {
      let bucket = this.buckets.get(ts)
      if (bucket === undefined) {
        bucket = new Map()
        this.buckets.set(ts, bucket)
        this.push(ts)
      }
      let found = bucket.get(ns)
      if (found === undefined) bucket.set(ns, found = new Map())
      keys = found
      this.lastTs = ts
      this.lastNs = ns
      this.lastKeys = keys
    }
    const size = keys.size
    keys.set(key.encoded, key)
    if (keys.size !== size) this.count++
  }

  has(ts: number, key: KeyRef, ns: Namespace): boolean {
    return this.buckets.get(ts)?.get(ns)?.has(key.encoded) === true
  }

  delete(ts: number, key: KeyRef, ns: Namespace): void {
    const keys = this.buckets.get(ts)?.get(ns)
    if (keys !== undefined && keys.delete(key.encoded)) this.count--
  }

  /** Deletes every timer (not from within fireUntil). */
  clear(): void {
    this.buckets.clear()
    this.heap = []
    this.count = 0
    this.lastKeys = null
  }

  /** The earliest timestamp that still has a timer. */
  peek(): number | undefined {
    const heap = this.heap
    while (heap.length > 0) {
      const ts = heap[0]!
      const bucket = this.buckets.get(ts)
      if (bucket !== undefined && hasTimers(bucket)) return ts
      this.buckets.delete(ts)
      this.lastKeys = null
      this.pop()
    }
    return undefined
  }

  /**
   * Fires, in timestamp order, every timer at or before `time`, removing each before its call;
   * timers that `fire` registers are fired too when they are due.
   */
  fireUntil(time: number, fire: FireTimer): void {
    for (let ts = this.peek(); ts !== undefined && ts <= time; ts = this.peek()) {
      const bucket = this.buckets.get(ts)!
      // Map iteration sees entries added while iterating, so timers registered now for ts fire too.
      for (const [ns, keys] of bucket) {
        for (const [encoded, key] of keys) {
          keys.delete(encoded)
          this.count--
          fire(ts, key, ns)
        }
      }
      if (!hasTimers(bucket)) {
        if (this.buckets.get(ts) === bucket) this.buckets.delete(ts)
        this.lastKeys = null
        // The heap top may have changed if `fire` registered earlier timestamps; peek() drops ts later.
        if (this.heap[0] === ts) this.pop()
      }
    }
  }

  /** The (key, namespace) of every timer at or before `time`, without removing them (for prefetching their state). */
  due(time: number): { key: KeyRef; namespace: Namespace }[] {
    const out: { key: KeyRef; namespace: Namespace }[] = []
    if ((this.peek() ?? Infinity) > time) return out
    // Walk only the heap's nodes at or before `time` (a node's subtree is later than the node), so a
    // watermark step costs what is due, not every pending timestamp (OVER keeps one per key and row time).
    const heap = this.heap
    const seen = new Set<number>()
    const stack = [0]
    while (stack.length > 0) {
      const i = stack.pop()!
      if (i >= heap.length || heap[i]! > time) continue
      const ts = heap[i]!
      stack.push(2 * i + 1, 2 * i + 2)
      // A timestamp whose bucket emptied and filled again is in the heap twice.
      if (seen.has(ts)) continue
      seen.add(ts)
      const bucket = this.buckets.get(ts)
      if (bucket !== undefined) { for (const [ns, keys] of bucket) for (const key of keys.values()) out.push({ key, namespace: ns }) }
    }
    return out
  }

  entries(): TimerEntry[] {
    const out: TimerEntry[] = []
    for (const ts of [...this.buckets.keys()].sort((a, b) => a - b)) {
      for (const [ns, keys] of this.buckets.get(ts)!) {
        for (const key of keys.values()) out.push({ timestamp: ts, key: [...key.values], namespace: ns })
      }
    }
    return out
  }

  private push(ts: number): void {
    const heap = this.heap
    let i = heap.length
    heap.push(ts)
    while (i > 0) {
      const parent = (i - 1) >> 1
      const p = heap[parent]!
      if (p <= ts) break
      heap[i] = p
      i = parent
    }
    heap[i] = ts
  }

  private pop(): void {
    const heap = this.heap
    const last = heap.pop()!
    const n = heap.length
    if (n === 0) return
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= n) break
      if (child + 1 < n && heap[child + 1]! < heap[child]!) child++
      if (heap[child]! >= last) break
      heap[i] = heap[child]!
      i = child
    }
    heap[i] = last
  }
}

function hasTimers(bucket: Bucket): boolean {
  for (const keys of bucket.values()) if (keys.size > 0) return true
  return false
}

/**
 * The timers of one operator subtask. Operators register and delete timers for the state
 * backend's current key; the runtime advances time and, for each due timer, sets the key and
 * calls `Operator.onTimer`.
 *
 * @example
 * const timers = new TimerServiceImpl(() => backend.getCurrentKey()!)
 * timers.advanceWatermark(wm, (ts, key, ns) => { backend.setCurrentKey(key); op.onTimer!(ts, ns, 'event') })
 * op.onWatermark?.(wm)
 */
export class TimerServiceImpl implements TimerService {
  private readonly event = new TimerQueue()
  private readonly processing = new TimerQueue()
  private watermark = Number.NEGATIVE_INFINITY
  private readonly clock: () => number
  private readonly maxParallelism: number
  private readonly eventDeclared: boolean
  private readonly processingDeclared: boolean
  private readonly operatorId: string

  constructor(private readonly currentKey: () => KeyRef, options: TimerServiceOptions = {}) {
    this.clock = options.clock ?? Date.now
    this.maxParallelism = options.maxParallelism ?? DEFAULT_MAX_PARALLELISM
    const domains = options.domains ?? ['event', 'processing']
    this.eventDeclared = domains.includes('event')
    this.processingDeclared = domains.includes('processing')
    this.operatorId = options.operatorId ?? 'an operator'
  }

  registerEventTimeTimer(timestamp: number, namespace: Namespace = ''): void {
    if (!this.eventDeclared) throw this.undeclared('event')
    this.event.add(timestamp, this.currentKey(), namespace)
  }

  /**
   * Deletes every event-time timer, of every key and namespace, unfired: for the runtime when an
   * operator says at the final watermark that none of them has anything left to do (Operator.onFinalWatermark).
   */
  deleteAllEventTimers(): void {
    this.event.clear()
  }

  deleteEventTimeTimer(timestamp: number, namespace: Namespace = ''): void {
    this.event.delete(timestamp, this.currentKey(), namespace)
  }

  hasEventTimeTimer(timestamp: number, namespace: Namespace, key: KeyRef): boolean {
    return this.event.has(timestamp, key, namespace)
  }

  registerProcessingTimeTimer(timestamp: number, namespace: Namespace = ''): void {
    if (!this.processingDeclared) throw this.undeclared('processing')
    this.processing.add(timestamp, this.currentKey(), namespace)
  }

  deleteProcessingTimeTimer(timestamp: number, namespace: Namespace = ''): void {
    this.processing.delete(timestamp, this.currentKey(), namespace)
  }

  private undeclared(domain: TimerDomain): WeirError {
    return WeirError.internal(
      `operator ${this.operatorId} registered a${
        domain === 'event' ? 'n event' : ' processing'
      }-time timer but declared no timers of that domain (OperatorTraits.timers)`,
    )
  }

  currentWatermark(): number {
    return this.watermark
  }

  currentProcessingTime(): number {
    return this.clock()
  }

  /**
   * Moves the watermark to `watermark` (it never goes back) and fires every event timer at or
   * before it, in timestamp order — including timers registered by `fire` that are already due.
   */
  advanceWatermark(watermark: number, fire: FireTimer): void {
    if (watermark > this.watermark) this.watermark = watermark
    this.event.fireUntil(this.watermark, fire)
  }

  /** Fires every processing-time timer at or before `now`, in timestamp order. */
  advanceProcessingTime(now: number, fire: FireTimer): void {
    this.processing.fireUntil(now, fire)
  }

  /** When the earliest processing-time timer is due (for scheduling a wake-up), or undefined. */
  /** (key, namespace) of the event-time timers a watermark of `watermark` would fire. */
  dueEventTimers(watermark: number): { key: KeyRef; namespace: Namespace }[] {
    return this.event.due(watermark)
  }

  /** (key, namespace) of the processing-time timers due at `now`. */
  dueProcessingTimers(now: number): { key: KeyRef; namespace: Namespace }[] {
    return this.processing.due(now)
  }

  nextProcessingTimer(): number | undefined {
    return this.processing.peek()
  }

  /** The earliest event-time timer, or undefined. */
  nextEventTimer(): number | undefined {
    return this.event.peek()
  }

  /** Registered (not deleted, not fired) timers of each domain. */
  get eventTimerCount(): number {
    return this.event.size
  }
  get processingTimerCount(): number {
    return this.processing.size
  }

  snapshot(): TimersSnapshot {
    return { event: this.event.entries(), processing: this.processing.entries(), watermark: this.watermark }
  }

  /**
   * Adds the timers of `snapshot` whose keys fall in `keyGroupRange` (all by default). The
   * watermark is not restored: it comes back from the sources.
   */
  restore(snapshot: TimersSnapshot, keyGroupRange?: { readonly start: number; readonly end: number }): void {
    const add = (queue: TimerQueue, entries: readonly TimerEntry[]): void => {
      for (const e of entries) {
        const key = makeKey(e.key, this.maxParallelism)
        if (keyGroupRange !== undefined && (key.group < keyGroupRange.start || key.group > keyGroupRange.end)) continue
        if (typeof e.timestamp !== 'number') throw WeirError.execution('bad timer in checkpoint: timestamp is not a number')
        queue.add(e.timestamp, key, e.namespace)
      }
    }
    add(this.event, snapshot.event)
    add(this.processing, snapshot.processing)
  }
}
