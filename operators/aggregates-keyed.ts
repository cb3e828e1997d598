// Aggregates whose state is a MapState keyed by the values themselves: JSON_OBJECTAGG (key → JSON
// text), COLLECT (element → count), ARRAY_AGG(DISTINCT x) (value → [count, order of first
// appearance]) and APPROX_COUNT_DISTINCT (a HyperLogLog sketch, register → rank). AggregateHandler
// allocates their slots in its accumulator and calls in here only when some call is one of these.
import { WeirError } from '../common/errors.js'
import type { KeyedStateStore, MapState, Namespace, StateTtlConfig } from '../core/keyed-state.js'
import { mapState } from '../core/keyed-state.js'
import type { AggCall } from '../core/aggregates.js'
import type { Row } from '../core/batch.js'
import type { Accumulator } from './aggregates.js'
import { HLL_INITIAL, hllAdd, hllEstimate } from './hyperloglog.js'
import { addToBucket, SKETCH_INITIAL, sketchAdd, sketchPercentile } from './ddsketch.js'
import type { DataType } from '../common/types.js'
import { exactPercentiles } from './percentile.js'
import { after, before } from '../common/values.js'

// Kinds. Slots of each (from its first slot s):
//   OBJECT          [entries, JSON text | null (stale)]      MapState<key, JSON text of the value>
//   COLLECT         [distinct elements, 0]                   MapState<element, count>
//   DISTINCT_ARRAY  [last order given, values | null (stale)] MapState<value, [count, order]>
//   HLL             [registers at 0, Σ 2^(RMAX − rank)]       MapState<register, rank>
//   PERCENTILE      [values held, zeros held]                 MapState<bucket key, count> (ddsketch.ts)
//   EXACT           [0, 0] (unused)                           MapState<value as a double, count> (percentile.ts)
const OBJECT = 0
const COLLECT = 1
const DISTINCT_ARRAY = 2
const HLL = 3
const PERCENTILE = 4
const EXACT = 5

/** True for the calls computed here. */
export function isKeyedAggregate(call: AggCall): boolean {
  return call.fn === 'JSON_OBJECTAGG' || call.fn === 'COLLECT' || call.fn === 'APPROX_COUNT_DISTINCT' || call.fn === 'APPROX_PERCENTILE' ||
    call.fn === 'PERCENTILE' ||
    (call.fn === 'ARRAY_AGG' && call.distinct)
}

function kindOf(call: AggCall): number {
  switch (call.fn) {
    case 'JSON_OBJECTAGG':
      return OBJECT
    case 'COLLECT':
      return COLLECT
    case 'APPROX_COUNT_DISTINCT':
      return HLL
    case 'APPROX_PERCENTILE':
      return PERCENTILE
    case 'PERCENTILE':
      return EXACT
    default:
      return DISTINCT_ARRAY
  }
}

/** Initial values of a call's slots (two slots each). */
export function keyedInitialSlots(call: AggCall): unknown[] {
  switch (kindOf(call)) {
    case OBJECT:
      return [0, '{}']
    case COLLECT:
    case EXACT:
      return [0, 0]
    case DISTINCT_ARRAY:
      return [0, null]
    case PERCENTILE:
      return SKETCH_INITIAL()
    default:
      return HLL_INITIAL()
  }
}

export const KEYED_SLOTS = 2

interface Entry {
  readonly call: AggCall
  readonly index: number
  readonly kind: number
  readonly slot: number
  readonly arg: number
  readonly value: number
  readonly filter: number
  readonly name: string
  /** APPROX_PERCENTILE: its argument as a double, and the sketch's γ and ln γ. */
  readonly toDouble: (v: unknown) => number
  readonly gamma: number
  readonly logGamma: number
  state: MapState<unknown, unknown>
}

/** The calls of one AggregateHandler computed here; each keeps one MapState. */
export class KeyedAggregates {
  readonly entries: Entry[] = []

  constructor(calls: readonly { call: AggCall; index: number; slot: number }[], prefix: string, private readonly ttl: StateTtlConfig | undefined) {
    for (const { call, index, slot } of calls) {
      const kind = kindOf(call)
      const name = `${prefix}${['object', 'collect', 'distinct-array', 'hll', 'ddsketch', 'percentile'][kind]}-${index}`
      const accuracy = call.percentile?.accuracy ?? 0.01
      const gamma = (1 + accuracy) / (1 - accuracy)
      this.entries.push({ call, index, kind, slot, arg: call.arg!, value: call.valueArg ?? -1, filter: call.filter ?? -1, name,
        toDouble: doubleOf(call.argType), gamma, logGamma: Math.log(gamma), state: undefined as unknown as MapState<unknown, unknown> })
    }
  }

  open(store: KeyedStateStore): void {
    for (const e of this.entries) e.state = store.getMapState(mapState<unknown, unknown>(e.name, this.ttl))
  }

  stateNames(): string[] {
    return this.entries.map(e => e.name)
  }

  setNamespace(ns: Namespace): void {
    for (const e of this.entries) e.state.setNamespace(ns)
  }

  clearMaps(): void {
    for (const e of this.entries) e.state.clear()
  }

  accumulate(acc: Accumulator, row: Row): void {
    for (const e of this.entries) {
      if (e.filter >= 0 && row[e.filter] !== true) continue
      const v = row[e.arg]
      if (e.kind === OBJECT) {
        // The value's JSON text; NULL only under ABSENT ON NULL (NULL ON NULL wrote 'null'), skipped as Flink does.
        const text = row[e.value]
        if (text == null) continue
        putMember(e, acc, v, text as string)
        continue
      }
      if (v == null) continue
      switch (e.kind) {
        case COLLECT:
        case DISTINCT_ARRAY:
          this.count(e, acc, v, 1)
          break
        case HLL:
          hllAdd(acc, e.slot, e.state as MapState<number, number>, v)
          break
        case PERCENTILE:
          this.sketch(e, acc, v, 1)
          break
        case EXACT:
          this.exact(e, v, row, 1)
          break
      }
    }
  }

  retract(acc: Accumulator, row: Row): void {
    for (const e of this.entries) {
      if (e.filter >= 0 && row[e.filter] !== true) continue
      const v = row[e.arg]
      const s = e.slot
      if (e.kind === OBJECT) {
        // As Flink's JsonObjectAggFunction: only the entry whose key and value both match leaves.
        const text = row[e.value]
        if (text == null || v == null || e.state.get(v) !== text) continue
        e.state.remove(v)
        acc[s] = (acc[s] as number) - 1
        acc[s + 1] = null
        continue
      }
      if (v == null) continue
      if (e.kind === HLL) throw WeirError.internal('APPROX_COUNT_DISTINCT received a retraction (the planner refuses it over an updating input)')
      if (e.kind === PERCENTILE) this.sketch(e, acc, v, -1)
      else if (e.kind === EXACT) this.exact(e, v, row, -1)
      else this.count(e, acc, v, -1)
    }
  }

  getValue(acc: Accumulator, out: unknown[], offset: number): void {
    for (const e of this.entries) {
      const s = e.slot
      switch (e.kind) {
        case OBJECT:
          if (acc[s + 1] === null) acc[s + 1] = objectText(e.state as MapState<string, string>)
          out[offset + e.index] = acc[s + 1]
          break
        case COLLECT: {
          const distinct = e.call.distinct
          const entries = [...(e.state as MapState<unknown, number>).entries()].filter(x => x[1] > 0).map(([v, c]): [unknown, number] => [v, distinct ? 1 : c])
          out[offset + e.index] = entries.sort((a, b) => compareValues(a[0], b[0]))
          break
        }
        case DISTINCT_ARRAY: {
          if (acc[s + 1] === null) {
            const held = [...(e.state as MapState<unknown, [number, number]>).entries()].filter(x => x[1][0] > 0)
            acc[s + 1] = held.sort((a, b) => a[1][1] - b[1][1]).map(x => x[0])
          }
          const values = acc[s + 1] as unknown[]
          // A copy: the accumulator's array grows with later rows. No value held: NULL, as ARRAY_AGG.
          out[offset + e.index] = values.length === 0 ? null : values.slice()
          break
        }
        case HLL:
          out[offset + e.index] = hllEstimate(acc, s)
          break
        case PERCENTILE:
          out[offset + e.index] = sketchPercentile(acc, s, e.state as MapState<number, number>, e.call.percentile?.q ?? 0.5, e.gamma)
          break
        case EXACT: {
          const p = e.call.percentages!
          const values = p.values.length === 0 ? null : exactPercentiles((e.state as MapState<number, number>).entries(), p.values)
          out[offset + e.index] = values === null ? null : p.array ? values : values[0]
          break
        }
      }
    }
  }

  /** Merges the maps of namespace `sourceNs` into `targetNs` (session windows), updating `target`'s slots; leaves the maps at `targetNs`. */
  mergeNamespace(target: Accumulator, targetNs: Namespace, sourceNs: Namespace): void {
    for (const e of this.entries) {
      e.state.setNamespace(sourceNs)
      const entries = [...e.state.entries()]
      e.state.clear()
      e.state.setNamespace(targetNs)
      for (const [k, v] of entries) {
        switch (e.kind) {
          case OBJECT:
            putMember(e, target, k, v as string)
            break
          case COLLECT:
            for (let i = 0; i < (v as number); i++) this.count(e, target, k, 1)
            break
          case DISTINCT_ARRAY:
            for (let i = 0; i < (v as [number, number])[0]; i++) this.count(e, target, k, 1)
            break
          case HLL:
            hllAdd(target, e.slot, e.state as MapState<number, number>, null, k as number, v as number)
            break
          case PERCENTILE:
            addToBucket(target, e.slot, e.state as MapState<number, number>, k as number, v as number)
            break
          case EXACT:
            addCount(e.state as MapState<number, number>, k as number, v as number)
            break
        }
      }
    }
  }

  /** APPROX_PERCENTILE: one more (or one fewer) row holds `v`; NaN and ±Infinity are left out. */
  private sketch(e: Entry, acc: Accumulator, v: unknown, sign: 1 | -1): void {
    const x = e.toDouble(v)
    if (Number.isFinite(x)) sketchAdd(acc, e.slot, e.state as MapState<number, number>, x, sign, e.logGamma)
  }

  /** PERCENTILE: `v` counted `sign` × its frequency (1 without one) more times; a NULL or non-positive frequency leaves the row out. */
  private exact(e: Entry, v: unknown, row: Row, sign: 1 | -1): void {
    let n = 1
    if (e.value >= 0) {
      const f = row[e.value]
      if (f == null) return
      n = Number(f)
      if (!(n > 0)) return
    }
    addCount(e.state as MapState<number, number>, e.toDouble(v), sign * n)
  }

  /** COLLECT and ARRAY_AGG(DISTINCT): one more (or one fewer) row holds `v`. */
  private count(e: Entry, acc: Accumulator, v: unknown, sign: 1 | -1): void {
    const s = e.slot
    if (e.kind === COLLECT) {
      const state = e.state as MapState<unknown, number>
      const old = state.get(v) ?? 0
      const now = old + sign
      if (now === 0) state.remove(v)
      else state.put(v, now)
      if (old <= 0 && now > 0) acc[s] = (acc[s] as number) + 1
      else if (old > 0 && now <= 0) acc[s] = (acc[s] as number) - 1
      return
    }
    const state = e.state as MapState<unknown, [number, number]>
    const old = state.get(v)
    if (old === undefined) {
      // A retraction of a value not held (expired state) changes nothing.
      if (sign < 0) return
      const order = (acc[s] as number) + 1
      acc[s] = order
      state.put(v, [1, order])
      if (acc[s + 1] !== null) (acc[s + 1] as unknown[]).push(v)
      return
    }
    const now = old[0] + sign
    if (now === 0) {
      state.remove(v)
      acc[s + 1] = null
    } else {
      state.put(v, [now, old[1]])
    }
  }
}

/** Adds `n` (possibly negative) to the count of `x` (−0 counted as 0); a count that reaches 0 leaves the map. */
function addCount(state: MapState<number, number>, x: number, n: number): void {
  const key = x === 0 ? 0 : x
  const now = (state.get(key) ?? 0) + n
  if (now === 0) state.remove(key)
  else state.put(key, now)
}

/** A numeric SQL value as a double: a DECIMAL's unscaled bigint scaled down, a BIGINT beyond 2^53 rounded. */
function doubleOf(type: DataType | null): (v: unknown) => number {
  if (type?.kind === 'DECIMAL') {
    const scale = 10 ** type.scale
    return v => Number(v as bigint) / scale
  }
  return v => Number(v)
}

/** Adds a member to JSON_OBJECTAGG's map; a key held already fails the job, as in Flink. */
function putMember(e: Entry, acc: Accumulator, key: unknown, text: string): void {
  if (key == null) {
    throw WeirError.execution('JSON_OBJECTAGG received a NULL key', {
      help: 'keys must be non-NULL strings (as in Flink): filter the rows (WHERE key IS NOT NULL) or COALESCE the key',
    })
  }
  if (e.state.get(key) !== undefined) {
    throw WeirError.execution(`JSON_OBJECTAGG received the key '${String(key)}' twice in one group; duplicate keys are not allowed`, {
      help: 'make the keys unique within each group (as Flink requires), e.g. aggregate the values per key first',
    })
  }
  e.state.put(key, text)
  acc[e.slot] = (acc[e.slot] as number) + 1
  acc[e.slot + 1] = null
}

/** The object's members with their keys in order (as Flink's docs show it: '{"Apple":2,"Banana":17}'). */
function objectText(state: MapState<string, string>): string {
  const members = [...state.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`
}

/** A total order on values of one SQL type (numbers, bigints, strings, booleans; nested values by their JSON). */
function compareValues(a: unknown, b: unknown): number {
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return before(a, b) ? -1 : after(a, b) ? 1 : 0
  const x = typeof a === 'string' ? a : JSON.stringify(a, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
  const y = typeof b === 'string' ? b : JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
  return x < y ? -1 : x > y ? 1 : 0
}
