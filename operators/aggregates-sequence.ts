// The values of one argument of a group in arrival order, for FIRST_VALUE, LAST_VALUE, LISTAGG and ARRAY_AGG
// over an input that retracts: each value gets the next sequence number of its group, and a
// retraction removes the oldest position holding that value (as Flink's *WithRetract functions do).
// Two MapStates, so each row reads and writes a few entries and never rewrites a collection:
//   positions  seq → [value, next seq holding the same value | 0]
//   ends       value → [oldest seq, newest seq] holding it (a linked list through `positions`)
import type { KeyedStateStore, MapState, Namespace, StateTtlConfig } from '../core/keyed-state.js'
import { mapState } from '../core/keyed-state.js'
import type { Accumulator } from './aggregates.js'

/** How far FIRST/LAST look at neighbouring positions before scanning the whole sequence. */
const PROBES = 32

export class ValueSequence {
  /** Accumulator slots: [last sequence number given, values held]. */
  static readonly SLOTS = 2
  static initialSlots(): unknown[] {
    return [0, 0]
  }

  private positions!: MapState<number, [unknown, number]>
  private ends!: MapState<unknown, [number, number]>

  constructor(
    readonly arg: number,
    readonly filter: number,
    /** First of this sequence's accumulator slots. */
    readonly slot: number,
    readonly name: string,
    /** Holds NULL values too (ARRAY_AGG RESPECT NULLS); FIRST/LAST/LISTAGG skip them. */
    readonly nulls = false,
  ) {}

  open(store: KeyedStateStore, ttl: StateTtlConfig | undefined): void {
    this.positions = store.getMapState(mapState<number, [unknown, number]>(`${this.name}-positions`, ttl))
    this.ends = store.getMapState(mapState<unknown, [number, number]>(`${this.name}-ends`, ttl))
  }

  stateNames(): string[] {
    return [`${this.name}-positions`, `${this.name}-ends`]
  }

  setNamespace(ns: Namespace): void {
    this.positions.setNamespace(ns)
    this.ends.setNamespace(ns)
  }

  clear(): void {
    this.positions.clear()
    this.ends.clear()
  }

  /** Number of values held. */
  live(acc: Accumulator): number {
    return acc[this.slot + 1] as number
  }

  /** Appends a value; returns its sequence number. */
  append(acc: Accumulator, v: unknown): number {
    const s = this.slot
    const seq = (acc[s] as number) + 1
    acc[s] = seq
    acc[s + 1] = (acc[s + 1] as number) + 1
    this.positions.put(seq, [v, 0])
    const ends = this.ends.get(v)
    if (ends === undefined) {
      this.ends.put(v, [seq, seq])
    } else {
      const newest = this.positions.get(ends[1])
      if (newest !== undefined) this.positions.put(ends[1], [newest[0], seq])
      this.ends.put(v, [ends[0], seq])
    }
    return seq
  }

  /** Removes the oldest position holding `v`; returns it, or 0 when no position holds `v`. */
  remove(acc: Accumulator, v: unknown): number {
    const ends = this.ends.get(v)
    if (ends === undefined) return 0
    const oldest = ends[0]
    const at = this.positions.get(oldest)
    this.positions.remove(oldest)
    const next = at === undefined ? 0 : at[1]
    if (next === 0) this.ends.remove(v)
    else this.ends.put(v, [next, ends[1]])
    acc[this.slot + 1] = (acc[this.slot + 1] as number) - 1
    return oldest
  }

  /** The oldest position after `seq` (every position before it is gone), or null when none is held. */
  firstAfter(acc: Accumulator, seq: number): [number, unknown] | null {
    if (this.live(acc) <= 0) return null
    const newest = acc[this.slot] as number
    for (let p = seq + 1, end = Math.min(newest, seq + PROBES); p <= end; p++) {
      const at = this.positions.get(p)
      if (at !== undefined) return [p, at[0]]
    }
    return this.extreme(true)
  }

  /** The newest position before `seq` (every position after it is gone), or null when none is held. */
  lastBefore(acc: Accumulator, seq: number): [number, unknown] | null {
    if (this.live(acc) <= 0) return null
    for (let p = seq - 1, end = Math.max(1, seq - PROBES); p >= end; p--) {
      const at = this.positions.get(p)
      if (at !== undefined) return [p, at[0]]
    }
    return this.extreme(false)
  }

  /** The values held, oldest first. */
  inOrder(): unknown[] {
    const all = [...this.positions.entries()]
    all.sort((a, b) => a[0] - b[0])
    return all.map(e => e[1][0])
  }

  private extreme(oldest: boolean): [number, unknown] | null {
    let best: [number, unknown] | null = null
    for (const [p, at] of this.positions.entries()) {
      if (best === null || (oldest ? p < best[0] : p > best[0])) best = [p, at[0]]
    }
    return best
  }
}
