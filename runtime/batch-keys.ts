// The keys of a batch's rows, computed once per batch and shared by everything that asks while the
// batch is around: the runtime's prefetch (or read-ahead) of its state and the operator's processing.
import type { KeyRef } from '../core/keyed-state.js'
import type { Row } from '../core/batch.js'
import { isPlainKeyValue } from '../common/values.js'
import { makeKey } from '../state/key-encoding.js'

/** The keys of a batch's rows, in row order. */
export type KeysOf = (rows: readonly Row[]) => KeyRef[]

const NONE: readonly KeyRef[] = []

/**
 * Per subtask, the keys of the last few batches asked for or handed over: the one being processed,
 * the one read ahead, and those a hash exchange routed here with their keys computed (on this thread,
 * or on the sending one: thread-links.ts) that wait in its queue. A batch is known by its rows array
 * (batches are never changed once built) and its input.
 *
 * @example
 * const keys = new BatchKeys([keysByColumns([0], 128)])
 * keys.of(batch.rows, 0) === keys.of(batch.rows, 0) // one makeKey per row
 * keys.release(batch.rows) // processed: its rows and keys may die young
 */
export class BatchKeys {
  private readonly rows: (readonly Row[] | null)[] = new Array(SLOTS).fill(null)
  private readonly inputs: number[] = new Array(SLOTS).fill(-1)
  private readonly keys: (readonly KeyRef[])[] = new Array(SLOTS).fill(NONE)
  /** The slot the next batch takes (the oldest). */
  private next = 0

  constructor(private readonly keyFns: readonly KeysOf[]) {}

  of(rows: readonly Row[], input: number): readonly KeyRef[] {
    for (let i = 0; i < SLOTS; i++) if (this.rows[i] === rows && this.inputs[i] === input) return this.keys[i]!
    const keys = this.keyFns[input]!(rows)
    this.seed(rows, input, keys)
    return keys
  }

  /**
   * The keys of a batch on its way here, computed already (a hash exchange routed it by the same
   * columns): `of` gives them without computing them again.
   */
  seed(rows: readonly Row[], input: number, keys: readonly KeyRef[]): void {
    const i = this.next
    this.next = (i + 1) % SLOTS
    this.rows[i] = rows
    this.inputs[i] = input
    this.keys[i] = keys
  }

  /** Forgets a processed batch, so its rows and keys are not kept alive by this cache. */
  release(rows: readonly Row[]): void {
    for (let i = 0; i < SLOTS; i++) {
      if (this.rows[i] !== rows) continue
      this.rows[i] = null
      this.inputs[i] = -1
      this.keys[i] = NONE
    }
  }
}

/** Batches whose keys a subtask keeps: beyond them (a long queue), a batch's keys are computed again when it is processed. */
const SLOTS = 8

/**
 * Keys by the values of `columns` (none: one constant key). Rows with equal keys share one KeyRef: a
 * key is encoded and hashed once, not once per row. Batches repeat keys a lot (of 1,000 Nexmark
 * bids, ~150 distinct auctions), and so do the batches after them (bids go to the auctions still
 * open): the KeyRefs stay in a lookup of at most MAX_KEPT keys across batches, emptied when full,
 * and a hot key costs no new object at all. Only primitives are looked up (a Map compares them by
 * value, as their encodings do); anything else (NaN, -0, objects) is encoded per row as before.
 * With several columns the lookup is by the first one, and the keys sharing it are told apart by
 * comparing the other values while they are a few (one auction, its days), not by a Map per first
 * value; past SHARED_FIRST of them (a hot bidder's auctions, Nexmark q18: ~175 on average when this
 * was a list) by a Map on the second column, whose keys sharing that are compared again.
 */
export function keysByColumns(columns: readonly number[], maxParallelism: number): KeysOf {
  if (columns.length === 0) {
    const key = makeKey([], maxParallelism)
    return rows => new Array<KeyRef>(rows.length).fill(key)
  }
  const first = columns[0]!
  const second = columns.length > 1 ? columns[1]! : -1
  const n = columns.length
  const encode = (row: Row): KeyRef => {
    const values = new Array<unknown>(n)
    for (let c = 0; c < n; c++) values[c] = row[columns[c]!]
    return makeKey(values, maxParallelism)
  }
  // First column's value → its KeyRef, the KeyRefs with that first value, or those by their second value (several columns).
  const seen = new Map<unknown, KeyRef | KeyRef[] | Map<unknown, KeyRef | KeyRef[]>>()
  // KeyRefs in `seen`.
  let kept = 0
  return rows => {
    if (kept > MAX_KEPT) {
      seen.clear()
      kept = 0
    }
    const keys = new Array<KeyRef>(rows.length)
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      let plain = true
      for (let c = 0; c < n && plain; c++) plain = isPlainKeyValue(row[columns[c]!])
      if (!plain) {
        keys[i] = encode(row)
        continue
      }
      const v = row[first]
      const found = seen.get(v)
      let key: KeyRef | undefined
      if (found === undefined) {
        seen.set(v, key = encode(row))
        kept++
      } else if (found instanceof Map) {
        const w = row[second]
        const shared = found.get(w)
        if (shared !== undefined) key = Array.isArray(shared) ? among(shared, row, columns) : sameRest(shared, row, columns) ? shared : undefined
        if (key === undefined) {
          key = encode(row)
          kept++
          if (shared === undefined) found.set(w, key)
          else if (Array.isArray(shared)) shared.push(key)
          else found.set(w, [shared, key])
        }
      } else if (Array.isArray(found)) {
        key = among(found, row, columns)
        if (key === undefined) {
          found.push(key = encode(row))
          kept++
          if (found.length > SHARED_FIRST) seen.set(v, bySecond(found))
        }
      } else if (sameRest(found, row, columns)) key = found
      else {
        seen.set(v, [found, key = encode(row)])
        kept++
      }
      keys[i] = key
    }
    return keys
  }
}

/** KeyRefs kept for later batches, at most (about 100 bytes each). */
const MAX_KEPT = 4096
/** Keys sharing a first value that are compared one by one; more are looked up by their second value. */
const SHARED_FIRST = 8

/** The key of `keys` whose values after the first are `row`'s, if any. */
function among(keys: readonly KeyRef[], row: Row, columns: readonly number[]): KeyRef | undefined {
  for (let k = 0; k < keys.length; k++) if (sameRest(keys[k]!, row, columns)) return keys[k]
  return undefined
}

/** Keys sharing a first value, by their second value (those sharing that too in a list). */
function bySecond(keys: readonly KeyRef[]): Map<unknown, KeyRef | KeyRef[]> {
  const m = new Map<unknown, KeyRef | KeyRef[]>()
  for (const key of keys) {
    const w = key.values[1]
    const shared = m.get(w)
    if (shared === undefined) m.set(w, key)
    else if (Array.isArray(shared)) shared.push(key)
    else m.set(w, [shared, key])
  }
  return m
}

/** Whether `key`'s values after the first are those of `row` (plain values, isPlainKeyValue: === is their identity). */
function sameRest(key: KeyRef, row: Row, columns: readonly number[]): boolean {
  const values = key.values
  for (let c = 1; c < columns.length; c++) if (values[c] !== row[columns[c]!]) return false
  return true
}
