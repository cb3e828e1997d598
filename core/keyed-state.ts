// The keyed-state API operators program against. The runtime sets the current key; state calls
// never pass it. Every call here is synchronous: backends that live on disk make the keys of a
// batch resident first (`prefetch`), then the batch runs against an in-memory write-back cache.

/** A grouping key: its column values, its stable encoded form, and its key group. */
export interface KeyRef {
  readonly values: readonly unknown[]
  /** Stable, order-preserving encoding of `values` (see state/key-encoding.ts); equal keys have equal encodings. */
  readonly encoded: string
  /** Which of `max-parallelism` key groups the key hashes to. */
  readonly group: number
}

/** When a TTL timer restarts: on create and every write (Flink's default), or on reads too. */
export type TtlUpdateType = 'OnCreateAndWrite' | 'OnReadAndWrite'

export interface StateTtlConfig {
  readonly ttlMs: number
  readonly updateType: TtlUpdateType
}

export interface ValueStateDescriptor<T> {
  readonly kind: 'value'
  readonly name: string
  readonly ttl?: StateTtlConfig
  /** Present only to carry T; never read. */
  readonly __type?: T
}

export interface ListStateDescriptor<T> {
  readonly kind: 'list'
  readonly name: string
  readonly ttl?: StateTtlConfig
  readonly __type?: T
}

export interface MapStateDescriptor<K, V> {
  readonly kind: 'map'
  readonly name: string
  readonly ttl?: StateTtlConfig
  readonly __type?: [K, V]
}

export const valueState = <T>(name: string, ttl?: StateTtlConfig): ValueStateDescriptor<T> => ({ kind: 'value', name, ttl })
export const listState = <T>(name: string, ttl?: StateTtlConfig): ListStateDescriptor<T> => ({ kind: 'list', name, ttl })
export const mapState = <K, V>(name: string, ttl?: StateTtlConfig): MapStateDescriptor<K, V> => ({ kind: 'map', name, ttl })

/**
 * Scopes a state further than the key: a window, a join side. Namespaces are strings or numbers
 * (a window is usually its end timestamp, or `${start}|${end}`). The default namespace is ''.
 */
export type Namespace = string | number

interface NamespacedState {
  /** Selects the namespace for the following calls (until changed). */
  setNamespace(ns: Namespace): void
  /** Removes this state for the current key and namespace. */
  clear(): void
}

/** One value per (key, namespace). */
export interface ValueState<T> extends NamespacedState {
  /** The value, or undefined if unset or expired. */
  value(): T | undefined
  update(value: T): void
}

/** A list per (key, namespace); `add` appends without rewriting the list. */
export interface ListState<T> extends NamespacedState {
  get(): readonly T[]
  add(value: T): void
  /**
   * For a list of chunks (`T` an array type, the list read as their concatenation): appends the items
   * of `chunk` to the last element while the backend may still change it in place, or else adds
   * `chunk` as a new element; the concatenation is the same either way. On RocksDB the last element
   * takes them while it is not yet written and its list has no TTL, so a list written once per many
   * batches stores one entry for them all instead of one per batch; the heap backend adds (a
   * snapshot may still hold its elements). The list keeps `chunk`: do not change it afterwards.
   */
  addChunk(chunk: T): void
  update(values: readonly T[]): void
  /**
   * Removes the list of the current key and namespace, blind: unlike every other call it needs no
   * prefetch of the (key, namespace), and a disk backend deletes the stored elements without
   * reading them. So an operator that drops a list whole (a time bucket that expired) asks its
   * timers to prefetch nothing for it (`Operator.timerStateRequests`).
   */
  clear(): void
  /**
   * Removes the list for good, blind as `clear`: the caller promises that nothing reads or writes
   * this (key, namespace) again, not even a prefetch (an interval join's time bucket once no row can
   * join it or land in it). A disk backend then deletes a list its cache does not hold without
   * bringing it in: one range delete in the next write, with no cache entry made for it.
   */
  drop(): void
  /**
   * Drops every list of this state, of every key and namespace of this subtask, for good and blind
   * as `drop`: the caller promises that none of them is read or written again (an interval join's
   * buckets once the final watermark has passed: every one has expired). A disk backend deletes them
   * with one range delete per key group, where a `drop` per list costs one each.
   */
  dropAll(): void
}

/** A map per (key, namespace); each entry is stored on its own, so one get/put touches one entry. */
export interface MapState<K, V> extends NamespacedState {
  get(key: K): V | undefined
  put(key: K, value: V): void
  remove(key: K): void
  contains(key: K): boolean
  entries(): IterableIterator<[K, V]>
  keys(): IterableIterator<K>
  isEmpty(): boolean
  size(): number
}

/** What an operator sees of its keyed state. */
export interface KeyedStateStore {
  getValueState<T>(descriptor: ValueStateDescriptor<T>): ValueState<T>
  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T>
  getMapState<K, V>(descriptor: MapStateDescriptor<K, V>): MapState<K, V>
  /** Sets the key every state access refers to. Operators call it per key group of a batch, with the keys of `keysOf(rows)`. */
  setCurrentKey(key: KeyRef): void
  getCurrentKey(): KeyRef | undefined
}

/** Statistics a backend reports for EXPLAIN ANALYZE, tests and benchmarks. */
export interface StateStats {
  /** Live (key, namespace[, user key]) entries across all states. */
  readonly entries: number
  /** Key and value bytes a disk backend has written in its flushes, cumulative. */
  readonly bytesWritten?: number
  /** A heap backend's estimate of what its state takes on the heap. */
  readonly bytes?: number
}

/** One (key, namespace) whose state a batch or a timer is about to touch. */
export interface PrefetchRequest {
  readonly key: KeyRef
  /** The namespace ('' for state that has none); undefined means every namespace of the key. */
  readonly namespace?: Namespace
  /** Only these states (by name); undefined means every state of the operator. */
  readonly states?: readonly string[]
  /**
   * The batch only appends to the ListStates of this (key, namespace) (`add`, `addChunk`; a `clear`
   * or `drop` is allowed too) and reads none of them: a disk backend need not read a list it does
   * not hold. A `get` or `update` of such a list needs a request without it.
   */
  readonly appendOnly?: boolean
  /**
   * As appendOnly, for these ListStates of the pair only (by name); the pair's other states are
   * read. A join's batch appends to its own side's list and reads the other side's.
   */
  readonly appendOnlyStates?: readonly string[]
}

/**
 * A keyed-state backend for one operator subtask. The runtime drives it:
 * `prefetch(requests)` → synchronous `processBatch` / `onTimer` → `flush()` at bundle ends and
 * before barriers. From the moment a prefetch resolves until the second flush after the prefetch
 * was called, every state of a requested (key, namespace) — the ValueState entry, every entry of a
 * MapState, every element of a ListState — is resident, so synchronous reads never miss. So a
 * runtime may prefetch batch N+1 before it processes and flushes batch N (reading ahead); a prefetch
 * that needs what an earlier one is still reading waits for it.
 */
export interface KeyedStateBackend extends KeyedStateStore {
  /** False for the heap backend: the runtime skips computing prefetch requests. */
  readonly needsPrefetch: boolean
  /**
   * Makes every state of these (key, namespace) pairs resident. Duplicates are allowed. The requests
   * are read before this returns its promise: the caller may reuse the objects right after the call.
   */
  prefetch(requests: readonly PrefetchRequest[]): Promise<void>
  /**
   * Ends a bundle: dirty entries go back in one write batch and clean ones over the cache budget
   * are evicted. A disk backend may let one bundle span several batches — holding changes until
   * its budget of dirty entries is reached, so a hot key costs one write per bundle, not per batch.
   * No-op on heap.
   */
  flush(): Promise<void>
  /** Writes every held change now and waits until it is applied (before a barrier, at end of input). No-op on heap. */
  sync(): Promise<void>
  /**
   * Every key that currently has state under `stateName` (for tests and diagnostics). On a disk
   * backend this lists only resident keys.
   */
  keys(stateName: string): IterableIterator<KeyRef>
  /** Sets the clock TTL is measured against (processing time, ms). */
  setTtlTime(now: number): void
  stats(): StateStats
  /**
   * Removes up to `budget` expired entries, resuming where the last call stopped (incremental
   * background cleanup, so TTL'd state stops growing). Returns how many it removed.
   */
  cleanupExpired(budget: number): number | Promise<number>
  close(): Promise<void>
}
