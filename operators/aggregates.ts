// Accumulators for COUNT, SUM, MIN, MAX and AVG (with FILTER, DISTINCT and retraction), compiled once per list of AggCalls into
// op-code tables so a whole row accumulates in one tight loop. Per group: a small array in one ValueState, plus one MapState<value, count> per distinct argument.
import { WeirError } from '../common/errors.js'
import type { KeyedStateStore, KeyRef, MapState, Namespace, StateTtlConfig, ValueState } from '../core/keyed-state.js'
import { mapState, valueState } from '../core/keyed-state.js'
import type { AggCall } from '../core/aggregates.js'
import type { Row } from '../core/batch.js'
import { integralBits, isFloat } from '../common/types.js'
import { after, before, sameValue } from '../common/values.js'
import { add64, div64, sub64, wrapInt, type Int64 } from '../common/int64.js'
import { MORE_AGGREGATES, MoreAggregates, moreInitialSlots, moreSlots } from './aggregates-more.js'
import { isKeyedAggregate, KEYED_SLOTS, KeyedAggregates, keyedInitialSlots } from './aggregates-keyed.js'
import { isUserAggregate, UserAggregates } from '../udf/aggregates.js'

/**
 * An accumulator: slot 0 counts rows (accumulated minus retracted); the calls' slots follow.
 * Plain data (numbers, bigints, strings, booleans, null), so any backend can serialize it.
 */
export type Accumulator = unknown[]

// Op codes. Each reads and writes its slots `s`, `s + 1`:
//   COUNT_STAR, COUNT         [n]
//   SUM_*, AVG_*              [sum, non-null count]
//   MIN, MAX                  [value | null]                  (insert-only input)
//   MIN_MAP, MAX_MAP          [cached | null, stale: boolean] (backed by a value→count MapState)
// Integer sums wrap as Flink's do (Java int, short, byte, long arithmetic): SUM_INT in int32 and
// narrowed by the call's shift (16 for SMALLINT, 24 for TINYINT), SUM_LONG and the sums of AVG_INT
// in 64 bits (common/int64.ts), AVG_INT's result narrowed to its type.
const COUNT_STAR = 0
const COUNT = 1
const SUM_DBL = 2
const SUM_DEC = 3
const AVG_INT = 4
const AVG_DBL = 5
const AVG_DEC = 6
const MIN = 7
const MAX = 8
const MIN_MAP = 9
const MAX_MAP = 10
const SUM_INT = 11
const SUM_LONG = 12

const SLOTS = [1, 1, 2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2]
/** An output computed by aggregates-more.ts. */
const MORE = -1

/**
 * Counts, per group, how many (filtered, non-null) rows hold each value of one argument column.
 * A value "appears" when its count goes 0 → 1 and "disappears" on 1 → 0; the dependent calls
 * (DISTINCT aggregates, retractable MIN/MAX) see only those transitions.
 */
interface ValueCounts {
  readonly arg: number
  readonly filter: number
  readonly name: string
  state: MapState<unknown, number>
  readonly depOps: number[]
  readonly depSlots: number[]
  readonly depShifts: number[]
  /** Some STDDEV/VAR, FIRST_VALUE, LAST_VALUE or LISTAGG call is DISTINCT over this argument (aggregates-more.ts's `transition`). */
  toMore: boolean
  /** Some user aggregate is DISTINCT over this argument (udf/aggregates.ts's `transition`). */
  toUser?: boolean
}

export interface AggregateHandlerOptions {
  /**
   * The input may retract rows (-U/-D): MIN and MAX then keep every value with its count in a
   * MapState so the next extreme is known when the current one is retracted.
   */
  readonly retracting: boolean
  /** TTL of every state the handler declares. */
  readonly ttl?: StateTtlConfig
  /** Prefix of the state names (when an operator holds several handlers). */
  readonly statePrefix?: string
}

/**
 * The aggregate calls of one operator, compiled. The operator sets the current key (and
 * namespace), loads the accumulator from `accState`, folds rows in with `accumulate`/`retract`,
 * reads results with `getValue`, and writes the accumulator back with `accState.update`.
 *
 * @example
 * const aggs = new AggregateHandler(spec.aggs, { retracting: spec.inputUpdating })
 * aggs.open(ctx.state)
 * const acc = aggs.accState.value() ?? aggs.createAccumulator()
 * aggs.accumulate(acc, row)
 * aggs.getValue(acc, out, keyCount)
 * aggs.accState.update(acc)
 */
export class AggregateHandler {
  readonly calls: readonly AggCall[]
  readonly retracting: boolean
  /** Number of accumulator slots, including the row count in slot 0. */
  readonly width: number
  /** True when some call keeps a MapState (DISTINCT, or MIN/MAX over a retracting input). */
  readonly hasMaps: boolean
  accState!: ValueState<Accumulator>

  // Calls accumulated directly from rows.
  private readonly pOps: Int32Array
  private readonly pArgs: Int32Array
  private readonly pFilters: Int32Array
  private readonly pSlots: Int32Array
  private readonly pShifts: Int32Array
  // Calls fed by value-count maps.
  private readonly maps: ValueCounts[] = []
  // One output per call, in call order.
  private readonly outOps: Int32Array
  private readonly outSlots: Int32Array
  private readonly outMap: Int32Array
  private readonly outScale: (bigint | null)[]
  private readonly outBits: Int32Array
  private readonly floatOuts: number[] = []
  private readonly initial: Accumulator
  /** STDDEV/VAR, FIRST_VALUE, LAST_VALUE and LISTAGG calls (aggregates-more.ts), or null when none. */
  private readonly more: MoreAggregates | null
  /** JSON_OBJECTAGG, COLLECT, ARRAY_AGG(DISTINCT) and APPROX_COUNT_DISTINCT calls (aggregates-keyed.ts), or null when none. */
  private readonly keyed: KeyedAggregates | null
  /** User-defined aggregates (udf/aggregates.ts), one slot each, or null when none. */
  private readonly user: UserAggregates | null
  private readonly ttl: StateTtlConfig | undefined
  private readonly prefix: string

  constructor(calls: readonly AggCall[], options: AggregateHandlerOptions) {
    this.calls = calls
    this.retracting = options.retracting
    this.ttl = options.ttl
    this.prefix = options.statePrefix ?? ''
    const n = calls.length
    this.outOps = new Int32Array(n)
    this.outSlots = new Int32Array(n)
    this.outMap = new Int32Array(n).fill(-1)
    this.outScale = new Array<bigint | null>(n).fill(null)
    this.outBits = new Int32Array(n)
    const pOps: number[] = [], pArgs: number[] = [], pFilters: number[] = [], pSlots: number[] = [], pShifts: number[] = []
    const initial: Accumulator = [0]
    let slot = 1
    const more: { call: AggCall; index: number; slot: number }[] = []
    const keyed: { call: AggCall; index: number; slot: number }[] = []
    const user: { call: AggCall; index: number; slot: number }[] = []
    calls.forEach((call, i) => {
      if (isFloat(call.type)) this.floatOuts.push(i)
      if (isUserAggregate(call)) {
        // DISTINCT: the value counts over its argument (a ROW of them for several) feed it each value's first appearance.
        if (call.distinct) this.valueCounts(call.arg!, call.filter ?? -1).toUser = true
        user.push({ call, index: i, slot })
        initial.push(null)
        slot += 1
        this.outOps[i] = MORE
        return
      }
      if (isKeyedAggregate(call)) {
        keyed.push({ call, index: i, slot })
        initial.push(...keyedInitialSlots(call))
        slot += KEYED_SLOTS
        this.outOps[i] = MORE
        return
      }
      if (MORE_AGGREGATES.has(call.fn)) {
        if (call.distinct) this.valueCounts(call.arg!, call.filter ?? -1).toMore = true
        more.push({ call, index: i, slot })
        initial.push(...moreInitialSlots(call, this.retracting))
        slot += moreSlots(call, this.retracting)
        this.outOps[i] = MORE
        return
      }
      const op = opOf(call, this.retracting)
      const s = slot
      slot += SLOTS[op]!
      initial.push(...initialSlots(op))
      this.outOps[i] = op
      this.outSlots[i] = s
      this.outBits[i] = integralBits(call.type)
      const shift = 32 - (integralBits(call.type) || 32)
      if (op === AVG_DEC) {
        const argScale = call.argType?.kind === 'DECIMAL' ? call.argType.scale : 0
        const resultScale = call.type.kind === 'DECIMAL' ? call.type.scale : argScale
        this.outScale[i] = 10n ** BigInt(Math.max(0, resultScale - argScale))
      }
      const filter = call.filter ?? -1
      // MIN/MAX ignore DISTINCT; over a retracting input they need the value counts anyway.
      const viaMap = call.arg !== null && ((call.distinct && op !== MIN && op !== MAX) || op === MIN_MAP || op === MAX_MAP)
      if (viaMap) {
        const m = this.valueCounts(call.arg!, filter)
        m.depOps.push(op)
        m.depSlots.push(s)
        m.depShifts.push(shift)
        this.outMap[i] = this.maps.indexOf(m)
      } else {
        pOps.push(op)
        pArgs.push(call.arg ?? -1)
        pFilters.push(filter)
        pSlots.push(s)
        pShifts.push(shift)
      }
    })
    this.more = more.length > 0 ? new MoreAggregates(more, this.retracting, slot, this.prefix, this.ttl) : null
    if (this.more !== null) {
      slot += this.more.extraWidth
      initial.push(...this.more.extraInitial)
    }
    this.keyed = keyed.length > 0 ? new KeyedAggregates(keyed, this.prefix, this.ttl) : null
    this.user = user.length > 0 ? new UserAggregates(user, this.retracting) : null
    this.width = slot
    this.initial = initial
    this.pOps = Int32Array.from(pOps)
    this.pArgs = Int32Array.from(pArgs)
    this.pFilters = Int32Array.from(pFilters)
    this.pSlots = Int32Array.from(pSlots)
    this.pShifts = Int32Array.from(pShifts)
    this.hasMaps = this.maps.length > 0 || (this.more?.hasMaps ?? false) || this.keyed !== null
  }

  /** Declares the handler's states; call from the operator's `open`. */
  open(store: KeyedStateStore): void {
    this.accState = store.getValueState(valueState<Accumulator>(`${this.prefix}acc`, this.ttl))
    for (const m of this.maps) m.state = store.getMapState(mapState<unknown, number>(m.name, this.ttl))
    this.more?.open(store)
    this.keyed?.open(store)
  }

  /** Names of the states the handler keeps (for EXPLAIN and tests). */
  stateNames(): string[] {
    return [`${this.prefix}acc`, ...this.maps.map(m => m.name), ...(this.more?.stateNames() ?? []), ...(this.keyed?.stateNames() ?? [])]
  }

  createAccumulator(): Accumulator {
    return this.initial.slice()
  }

  /** Whether every call keeps all its state in the accumulator (no maps, DISTINCT or user aggregates): mergePlain then merges windows. */
  get plainOnly(): boolean {
    return !this.retracting && this.maps.length === 0 && this.more === null && this.keyed === null && this.user === null
  }
  /** Row count of an accumulator (rows accumulated minus rows retracted). */
  rowCount(acc: Accumulator): number {
    return acc[0] as number
  }

  /** Scopes the accumulator and the value-count maps to a namespace (a window). */
  setNamespace(ns: Namespace): void {
    this.accState.setNamespace(ns)
    for (const m of this.maps) m.state.setNamespace(ns)
    this.more?.setNamespace(ns)
    this.keyed?.setNamespace(ns)
  }

  /** Adds a row. The value-count maps are read and written at the current key and namespace. */
  accumulate(acc: Accumulator, row: Row): void {
    acc[0] = (acc[0] as number) + 1
    const ops = this.pOps, args = this.pArgs, filters = this.pFilters, slots = this.pSlots
    for (let i = 0; i < ops.length; i++) {
      const f = filters[i]!
      if (f >= 0 && row[f] !== true) continue
      const s = slots[i]!
      switch (ops[i]) {
        case COUNT_STAR:
          acc[s] = (acc[s] as number) + 1
          break
        case COUNT:
          if (row[args[i]!] != null) acc[s] = (acc[s] as number) + 1
          break
        case SUM_DBL:
        case AVG_DBL:
        case SUM_INT:
        case SUM_LONG:
        case AVG_INT:
        case SUM_DEC:
        case AVG_DEC: {
          // One small helper for every sum keeps this loop small enough for V8 to inline into the operator's.
          const v = row[args[i]!]
          if (v != null) addValue(acc, s, ops[i]!, this.pShifts[i]!, v)
          break
        }
        case MIN: {
          const v = row[args[i]!]
          if (v != null && (acc[s] === null || (v as number) < (acc[s] as number) || acc[s] !== acc[s])) acc[s] = v
          break
        }
        case MAX: {
          const v = row[args[i]!]
          if (v != null && (acc[s] === null || (v as number) > (acc[s] as number) || v !== v)) acc[s] = v
          break
        }
      }
    }
    if (this.hasMaps) this.countValues(acc, row, 1)
    if (this.more !== null) this.more.accumulate(acc, row)
    if (this.keyed !== null) this.keyed.accumulate(acc, row)
    if (this.user !== null) this.user.accumulate(acc, row)
  }

  /** Removes a row (a -U or -D input). */
  retract(acc: Accumulator, row: Row): void {
    acc[0] = (acc[0] as number) - 1
    const ops = this.pOps, args = this.pArgs, filters = this.pFilters, slots = this.pSlots
    for (let i = 0; i < ops.length; i++) {
      const f = filters[i]!
      if (f >= 0 && row[f] !== true) continue
      const s = slots[i]!
      switch (ops[i]) {
        case COUNT_STAR:
          acc[s] = (acc[s] as number) - 1
          break
        case COUNT:
          if (row[args[i]!] != null) acc[s] = (acc[s] as number) - 1
          break
        case SUM_DBL:
        case AVG_DBL:
        case SUM_INT:
        case SUM_LONG:
        case AVG_INT:
        case SUM_DEC:
        case AVG_DEC: {
          const v = row[args[i]!]
          if (v != null) retractValue(acc, s, ops[i]!, this.pShifts[i]!, v)
          break
        }
        case MIN:
        case MAX:
          throw WeirError.internal(`${this.describe(ops[i]!)} over an insert-only input received a retraction`)
      }
    }
    if (this.hasMaps) this.countValues(acc, row, -1)
    if (this.more !== null) this.more.retract(acc, row)
    if (this.keyed !== null) this.keyed.retract(acc, row)
    if (this.user !== null) this.user.retract(acc, row)
  }

  /** Writes the calls' results into `out[offset…]`, in call order. */
  getValue(acc: Accumulator, out: unknown[], offset: number): void {
    const ops = this.outOps, slots = this.outSlots
    for (let i = 0; i < ops.length; i++) {
      const s = slots[i]!
      let v: unknown
      switch (ops[i]) {
        case COUNT_STAR:
        case COUNT:
          v = acc[s]
          break
        case SUM_DBL:
        case SUM_DEC:
        case SUM_INT:
        case SUM_LONG:
          v = (acc[s + 1] as number) > 0 ? acc[s] : null
          break
        case AVG_INT: {
          // Flink: the BIGINT sum divided by the count (truncating), cast to the argument's type.
          const n = acc[s + 1] as number
          v = n > 0 ? wrapInt(div64(acc[s] as Int64, n), this.outBits[i] as 8 | 16 | 32 | 64) : null
          break
        }
        case AVG_DBL: {
          const n = acc[s + 1] as number
          v = n > 0 ? (acc[s] as number) / n : null
          break
        }
        case AVG_DEC: {
          const n = acc[s + 1] as number
          v = n > 0 ? divideHalfUp((acc[s] as bigint) * this.outScale[i]!, BigInt(n)) : null
          break
        }
        case MIN:
        case MAX:
          v = acc[s]
          break
        case MIN_MAP:
        case MAX_MAP:
          if (acc[s + 1] === true) this.recomputeExtreme(acc, s, ops[i] === MIN_MAP, this.maps[this.outMap[i]!]!)
          v = acc[s]
          break
      }
      if (ops[i] !== MORE) out[offset + i] = v
    }
    if (this.more !== null) this.more.getValue(acc, out, offset)
    if (this.keyed !== null) this.keyed.getValue(acc, out, offset)
    if (this.user !== null) this.user.getValue(acc, out, offset)
    // A FLOAT result (SUM, AVG, STDDEV… of a FLOAT) is computed on doubles and rounded to 32 bits here.
    for (const i of this.floatOuts) if (typeof out[offset + i] === 'number') out[offset + i] = Math.fround(out[offset + i] as number)
  }

  /** Clears the accumulator and the value-count maps at the current key and namespace. */
  clear(): void {
    this.accState.clear()
    this.clearMaps()
  }

  clearMaps(): void {
    for (const m of this.maps) m.state.clear()
    this.more?.clearMaps()
    this.keyed?.clearMaps()
  }

  /**
   * Merges the state of namespace `sourceNs` into `target` (the accumulator of `targetNs`) and
   * clears the source; used when session windows merge. Leaves the namespace at `targetNs`;
   * the caller stores `target`.
   */
  mergeNamespace(target: Accumulator, targetNs: Namespace, sourceNs: Namespace): void {
    this.setNamespace(sourceNs)
    const source = this.accState.value()
    if (source !== undefined) {
      this.mergePlain(target, source)
      this.accState.clear()
    }
    for (const m of this.maps) {
      m.state.setNamespace(sourceNs)
      const entries = [...m.state.entries()]
      m.state.clear()
      m.state.setNamespace(targetNs)
      for (const [v, c] of entries) {
        const old = m.state.get(v) ?? 0
        const now = old + c
        if (now === 0) m.state.remove(v)
        else m.state.put(v, now)
        if (old <= 0 && now > 0) this.applyTransition(m, target, v, 1)
        else if (old > 0 && now <= 0) this.applyTransition(m, target, v, -1)
      }
    }
    this.keyed?.mergeNamespace(target, targetNs, sourceNs)
    this.setNamespace(targetNs)
  }

  mergePlain(target: Accumulator, source: Accumulator, at = 0): void {
    target[0] = (target[0] as number) + (source[at] as number)
    this.more?.mergePlain(target, source)
    this.user?.mergePlain(target, source)
    const ops = this.pOps, slots = this.pSlots
    for (let i = 0; i < ops.length; i++) {
      const s = slots[i]!
      switch (ops[i]) {
        case COUNT_STAR:
        case COUNT:
          target[s] = (target[s] as number) + (source[at + s] as number)
          break
        case SUM_DBL:
        case AVG_DBL:
          target[s] = (target[s] as number) + (source[at + s] as number)
          target[s + 1] = (target[s + 1] as number) + (source[at + s + 1] as number)
          break
        case SUM_INT: {
          const sh = this.pShifts[i]!
          target[s] = (((target[s] as number) + (source[at + s] as number)) << sh) >> sh
          target[s + 1] = (target[s + 1] as number) + (source[at + s + 1] as number)
          break
        }
        case SUM_LONG:
        case AVG_INT:
          target[s] = add64(target[s] as Int64, source[at + s] as Int64)
          target[s + 1] = (target[s + 1] as number) + (source[at + s + 1] as number)
          break
        case SUM_DEC:
        case AVG_DEC:
          target[s] = (target[s] as bigint) + (source[at + s] as bigint)
          target[s + 1] = (target[s + 1] as number) + (source[at + s + 1] as number)
          break
        case MIN:
          if (source[at + s] !== null && (target[s] === null || before(source[at + s], target[s]))) target[s] = source[at + s]
          break
        case MAX:
          if (source[at + s] !== null && (target[s] === null || after(source[at + s], target[s]))) target[s] = source[at + s]
          break
      }
    }
  }

  private countValues(acc: Accumulator, row: Row, sign: 1 | -1): void {
    for (const m of this.maps) {
      if (m.filter >= 0 && row[m.filter] !== true) continue
      const v = row[m.arg]
      if (v == null) continue
      const state = m.state
      const old = state.get(v) ?? 0
      const now = old + sign
      if (now === 0) state.remove(v)
      else state.put(v, now)
      // Counts may go negative (a retraction that arrives before its row, or after state expired);
      // a value is present only while its count is positive.
      if (sign > 0 ? old === 0 : old === 1) this.applyTransition(m, acc, v, sign)
    }
  }

  private applyTransition(m: ValueCounts, acc: Accumulator, v: unknown, sign: 1 | -1): void {
    const ops = m.depOps, slots = m.depSlots
    for (let i = 0; i < ops.length; i++) {
      const s = slots[i]!
      switch (ops[i]) {
        case COUNT:
          acc[s] = (acc[s] as number) + sign
          break
        case SUM_DBL:
        case AVG_DBL:
        case SUM_INT:
        case SUM_LONG:
        case AVG_INT:
        case SUM_DEC:
        case AVG_DEC:
          if (sign > 0) addValue(acc, s, ops[i]!, m.depShifts[i]!, v)
          else retractValue(acc, s, ops[i]!, m.depShifts[i]!, v)
          break
        case MIN_MAP:
          if (acc[s + 1] === true) break // stale: recomputed from the map when read
          if (sign > 0) { if (acc[s] === null || (v as number) < (acc[s] as number) || acc[s] !== acc[s]) acc[s] = v }
          else if (sameValue(acc[s], v)) acc[s + 1] = true
          break
        case MAX_MAP:
          if (acc[s + 1] === true) break
          if (sign > 0) { if (acc[s] === null || (v as number) > (acc[s] as number) || v !== v) acc[s] = v }
          else if (sameValue(acc[s], v)) acc[s + 1] = true
          break
      }
    }
    if (m.toMore) this.more!.transition(acc, m.arg, m.filter, v, sign)
    if (m.toUser === true) this.user!.transition(acc, m.arg, m.filter, v, sign)
  }

  /** The current extreme was retracted: scan the value counts (one entry per distinct value). */
  private recomputeExtreme(acc: Accumulator, s: number, min: boolean, m: ValueCounts): void {
    let best: unknown = null
    for (const [v, c] of m.state.entries()) {
      if (c <= 0) continue
      if (best === null || (min ? before(v, best) : after(v, best))) best = v
    }
    acc[s] = best
    acc[s + 1] = false
  }

  private valueCounts(arg: number, filter: number): ValueCounts {
    let m = this.maps.find(x => x.arg === arg && x.filter === filter)
    if (m === undefined) {
      const name = `${this.prefix}values-${arg}${filter >= 0 ? `-where-${filter}` : ''}`
      m = { arg, filter, name, state: undefined as unknown as MapState<unknown, number>, depOps: [], depSlots: [], depShifts: [], toMore: false }
      this.maps.push(m)
    }
    return m
  }

  private describe(op: number): string {
    return op === MIN ? 'MIN' : op === MAX ? 'MAX' : `aggregate op ${op}`
  }
}

function opOf(call: AggCall, retracting: boolean): number {
  switch (call.fn) {
    case 'COUNT':
      return call.arg === null ? COUNT_STAR : COUNT
    case 'SUM':
      switch (call.argType?.kind) {
        case 'DECIMAL':
          return SUM_DEC
        case 'BIGINT':
          return SUM_LONG
        case 'INT':
        case 'SMALLINT':
        case 'TINYINT':
          return SUM_INT
        default:
          return SUM_DBL
      }
    case 'AVG':
      switch (call.argType?.kind) {
        case 'DECIMAL':
          return AVG_DEC
        case 'DOUBLE':
          return AVG_DBL
        default:
          return AVG_INT
      }
    case 'MIN':
      return retracting ? MIN_MAP : MIN
    case 'MAX':
      return retracting ? MAX_MAP : MAX
  }
  throw WeirError.internal(`${call.fn} has no op code`)
}

function initialSlots(op: number): unknown[] {
  switch (op) {
    case COUNT_STAR:
    case COUNT:
      return [0]
    case SUM_DBL:
    case SUM_INT:
    case SUM_LONG:
    case AVG_INT:
    case AVG_DBL:
      return [0, 0]
    case SUM_DEC:
    case AVG_DEC:
      return [0n, 0]
    case MIN:
    case MAX:
      return [null]
    default:
      return [null, false]
  }
}

/** Adds a value to a SUM or AVG, wrapping integer sums as their types do (`shift` narrows SUM_INT). */
function addValue(acc: Accumulator, s: number, op: number, shift: number, v: unknown): void {
  acc[s + 1] = (acc[s + 1] as number) + 1
  switch (op) {
    case SUM_INT:
      acc[s] = (((acc[s] as number) + (v as number)) << shift) >> shift
      break
    case SUM_DBL:
    case AVG_DBL:
      acc[s] = (acc[s] as number) + (v as number)
      break
    case SUM_DEC:
    case AVG_DEC:
      acc[s] = (acc[s] as bigint) + (v as bigint)
      break
    default:
      acc[s] = add64(acc[s] as Int64, v as Int64)
  }
}

function retractValue(acc: Accumulator, s: number, op: number, shift: number, v: unknown): void {
  const n = (acc[s + 1] as number) - 1
  acc[s + 1] = n
  switch (op) {
    // Back to no values: restart the sum at 0 rather than carry floating-point residue.
    case SUM_DEC:
    case AVG_DEC:
      acc[s] = n === 0 ? 0n : (acc[s] as bigint) - (v as bigint)
      break
    case SUM_INT:
      acc[s] = n === 0 ? 0 : (((acc[s] as number) - (v as number)) << shift) >> shift
      break
    case SUM_DBL:
    case AVG_DBL:
      acc[s] = n === 0 ? 0 : (acc[s] as number) - (v as number)
      break
    default:
      acc[s] = n === 0 ? 0 : sub64(acc[s] as Int64, v as Int64)
  }
}

/** a / b rounded half away from zero (Java's RoundingMode.HALF_UP, which Flink's DECIMAL AVG uses); b > 0. */
export function divideHalfUp(a: bigint, b: bigint): bigint {
  const q = a / b
  const r = a % b
  const twice = (r < 0n ? -r : r) * 2n
  if (twice >= b) return a < 0n ? q - 1n : q + 1n
  return q
}

/**
 * Buckets the rows of a batch by key, in order of each key's first appearance, without a per-key
 * allocation: the rows of group g are `first[g]`, `next[first[g]]`, … until -1. Reused per batch.
 */
export class KeyGrouper {
  /** Key of each group of the last `group` call. */
  readonly keys: KeyRef[] = []
  first = new Int32Array(1024)
  next = new Int32Array(1024)
  private last = new Int32Array(1024)
  private readonly groupOf = new Map<string, number>()

  /** Returns the number of groups. */
  group(rows: readonly Row[], rowKeys: readonly KeyRef[]): number {
    const n = rows.length
    if (this.next.length < n) {
      const size = Math.max(n, this.next.length * 2)
      this.first = new Int32Array(size)
      this.last = new Int32Array(size)
      this.next = new Int32Array(size)
    }
    const groupOf = this.groupOf
    const first = this.first, last = this.last, next = this.next, keys = this.keys
    groupOf.clear()
    keys.length = 0
    let ng = 0
    for (let i = 0; i < n; i++) {
      const key = rowKeys[i]!
      next[i] = -1
      const g = groupOf.get(key.encoded)
      if (g === undefined) {
        groupOf.set(key.encoded, ng)
        keys.push(key)
        first[ng] = i
        last[ng] = i
        ng++
      } else {
        next[last[g]!] = i
        last[g] = i
      }
    }
    return ng
  }

  /** Drops the references to the last batch's keys. */
  release(): void {
    this.keys.length = 0
    this.groupOf.clear()
  }
}
