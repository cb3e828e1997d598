// MapState as both keyed-state backends keep it: per (key, namespace) a JS Map of entries, each with
// the TTL clock of its last write, under a Map key that compares user keys by value. The TTL rules
// live here once: an expired entry is never returned (a read takes it out), and under OnReadAndWrite
// a read restarts its clock. A backend says how it finds the current map and what a change means to it.
import type { MapState, Namespace } from '../core/keyed-state.js'
import { encodeKey } from './key-encoding.js'
import type { StateTableBase } from './state-table.js'

/** A map-state entry: the caller's key `k`, the value, and its TTL clock. */
export interface TimedEntry {
  readonly k: unknown
  v: unknown
  t: number
}

/** Object user keys (e.g. rows) are kept under their encoding; the prefix is a lone surrogate, so it cannot collide with text. */
const OBJECT_KEY_PREFIX = '\udfff'

/** The JS Map key of a user key: primitives as they are, objects by their encoding. */
export function mapKeyOf(k: unknown): unknown {
  if (typeof k !== 'object' || k === null) return k
  return OBJECT_KEY_PREFIX + encodeKey(Array.isArray(k) ? k : [k])
}

/**
 * MapState over a backend's map holders `C` (whatever holds the Map of the current key and
 * namespace) and entries `E`.
 */
export abstract class TtlMapState<K, V, E extends TimedEntry, C> implements MapState<K, V> {
  protected ns: Namespace = ''

  constructor(protected readonly table: StateTableBase<unknown, E>) {}

  setNamespace(ns: Namespace): void {
    this.ns = ns
  }

  abstract clear(): void
  /** The holder of the current (key, namespace)'s map; undefined when it has none yet. */
  protected abstract current(): C | undefined
  protected abstract entriesOf(holder: C): Map<unknown, E>
  /** The TTL clock. */
  protected abstract now(): number
  /** Adds a new entry under `mk`, to `m` or (undefined) to a new map of the current (key, namespace). */
  protected abstract insert(holder: C | undefined, m: Map<unknown, E> | undefined, key: K, value: V, mk: unknown, now: number): E
  /** A put gave an existing entry a new value and clock. */
  protected abstract written(holder: C, e: E): void
  /** A read restarted an entry's clock (OnReadAndWrite). */
  protected abstract refreshed(holder: C, e: E): void
  /** Takes entry `e` (under `mk`) out of `m`: removed, or found expired. */
  protected abstract drop(holder: C, m: Map<unknown, E>, mk: unknown, e: E): void

  get(key: K): V | undefined {
    const e = this.entry(key)
    return e === undefined ? undefined : (e.v as V)
  }

  put(key: K, value: V): void {
    const now = this.now()
    const holder = this.current()
    const m = holder === undefined ? undefined : this.entriesOf(holder)
    const mk = mapKeyOf(key)
    const table = this.table
    // Every path that takes an entry out of its Map resets lastMap, so the cached entry is live.
    const e = m === undefined ? undefined : table.lastMap === m && table.lastMk === mk && table.lastEntry !== undefined ? table.lastEntry : m.get(mk)
    if (e !== undefined) {
      e.v = value
      e.t = now
      this.written(holder!, e)
      return
    }
    const created = this.insert(holder, m, key, value, mk, now)
    if (m !== undefined) {
      table.lastMap = m
      table.lastMk = mk
      table.lastEntry = created
    }
  }

  remove(key: K): void {
    const holder = this.current()
    if (holder === undefined) return
    const m = this.entriesOf(holder)
    if (this.table.lastMap === m) this.table.lastMap = null
    const mk = mapKeyOf(key)
    const e = m.get(mk)
    if (e !== undefined) this.drop(holder, m, mk, e)
  }

  contains(key: K): boolean {
    return this.entry(key) !== undefined
  }

  *entries(): IterableIterator<[K, V]> {
    const holder = this.current()
    if (holder === undefined) return
    const table = this.table
    const now = this.now()
    for (const e of this.entriesOf(holder).values()) {
      if (table.expired(e.t, now)) continue
      if (table.refreshOnRead && e.t !== now) {
        e.t = now
        this.refreshed(holder, e)
      }
      yield [e.k as K, e.v as V]
    }
  }

  *keys(): IterableIterator<K> {
    for (const [k] of this.entries()) yield k
  }

  isEmpty(): boolean {
    return this.size() === 0
  }

  size(): number {
    const holder = this.current()
    if (holder === undefined) return 0
    const m = this.entriesOf(holder)
    const table = this.table
    if (table.ttlMs === 0) return m.size
    const now = this.now()
    let n = 0
    for (const e of m.values()) if (!table.expired(e.t, now)) n++
    return n
  }

  /** The live entry under `key` (remembered for a put that follows); an expired one is taken out. */
  private entry(key: K): E | undefined {
    const holder = this.current()
    if (holder === undefined) return undefined
    const m = this.entriesOf(holder)
    const mk = mapKeyOf(key)
    const e = m.get(mk)
    const table = this.table
    table.lastMap = m
    table.lastMk = mk
    table.lastEntry = e
    if (e === undefined || table.ttlMs === 0) return e
    const now = this.now()
    if (e.t + table.ttlMs <= now) {
      table.lastMap = null
      this.drop(holder, m, mk, e)
      return undefined
    }
    if (table.refreshOnRead && e.t !== now) {
      e.t = now
      this.refreshed(holder, e)
    }
    return e
  }
}
