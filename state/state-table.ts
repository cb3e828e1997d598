// What both keyed-state backends keep per named state: its TTL as the descriptor declared it, and
// what its handle caches between calls (the current key's slot, the map entry last looked up).
import type { KeyRef, StateTtlConfig } from '../core/keyed-state.js'

/** The three state shapes. */
export type StateKind = 'value' | 'list' | 'map'

/**
 * A named state. `S` is the backend's per-key slot, `E` its map-state entry.
 *
 * @example
 * class Table extends StateTableBase<Slot, MapEntry> { readonly slots = new SlotMap() }
 */
export abstract class StateTableBase<S, E> {
  /** 0: no TTL. */
  ttlMs = 0
  /** OnReadAndWrite: a read restarts an entry's TTL too. */
  refreshOnRead = false
  /** The state's handle (ValueState, ListState or MapState), made once. */
  handle: unknown = undefined
  /** The current key's slot, cached per key object (setCurrentKey runs per row group). */
  cachedKey: KeyRef | undefined = undefined
  cachedSlot: S | undefined = undefined
  /** Map state: the entry the last get() found, so the usual get-then-put costs one lookup. */
  lastMap: Map<unknown, E> | null = null
  lastMk: unknown = undefined
  lastEntry: E | undefined = undefined

  constructor(readonly name: string, readonly kind: StateKind) {}

  /** TTL as a descriptor declares it (a state registered again takes the latest). */
  configure(ttl: StateTtlConfig | undefined): void {
    this.ttlMs = ttl !== undefined && ttl.ttlMs > 0 ? ttl.ttlMs : 0
    this.refreshOnRead = ttl?.updateType === 'OnReadAndWrite'
  }

  invalidate(): void {
    this.cachedKey = undefined
    this.cachedSlot = undefined
    this.lastMap = null
    this.lastEntry = undefined
  }

  /** Whether a value last written (or read, under OnReadAndWrite) at clock `t` has expired at `now`. */
  expired(t: number, now: number): boolean {
    return this.ttlMs > 0 && t + this.ttlMs <= now
  }
}
