// Accumulators for the statistical aggregates (STDDEV_POP/SAMP, VAR_POP/SAMP) and the value
// aggregates (FIRST_VALUE, LAST_VALUE, LISTAGG), kept apart from the COUNT/SUM/MIN/MAX/AVG op-code
// loop of aggregates.ts so that loop stays small. AggregateHandler allocates their slots in the same
// accumulator array and calls in here only when some call is one of these.
import { WeirError } from '../common/errors.js'
import { int64 } from '../common/int64.js'
import { integralBits } from '../common/types.js'
import type { KeyedStateStore, Namespace, StateTtlConfig } from '../core/keyed-state.js'
import type { AggCall } from '../core/aggregates.js'
import type { Row } from '../core/batch.js'
import type { Accumulator } from './aggregates.js'
import { divideHalfUp } from './aggregates.js'
import { ValueSequence } from './aggregates-sequence.js'

/** The aggregate functions computed here. */
export const MORE_AGGREGATES: ReadonlySet<string> = new Set(['STDDEV_POP', 'STDDEV_SAMP', 'VAR_POP', 'VAR_SAMP', 'FIRST_VALUE', 'LAST_VALUE', 'LISTAGG',
  'ARRAY_AGG'])

// Kinds. Slots of each (from its first slot s):
//   VAR_EXACT  [n, 0, sum, sum of squares]          bigints: INT types (Flink's integer arithmetic) and DECIMAL (unscaled)
//   VAR_DBL    [n, shift, sum, sum of squares]      of (x - shift), shift = the first value: exact for
//                                                   exactly representable data, stable when values sit far from 0
//   FIRST, LAST, LISTAGG              [value | null] (insert-only input)
//   FIRST_SEQ, LAST_SEQ               [seq | 0, value, stale] (a ValueSequence in MapState)
//   LISTAGG_SEQ                       [joined | null, stale]
//   ARRAY_AGG                         [values | null] (insert-only input; a copy is emitted)
//   ARRAY_AGG_SEQ                     [values | null, stale]
const VAR_EXACT = 0
const VAR_DBL = 1
const FIRST = 2
const LAST = 3
const LISTAGG = 4
const FIRST_SEQ = 5
const LAST_SEQ = 6
const LISTAGG_SEQ = 7
const ARRAY_AGG = 8
const ARRAY_AGG_SEQ = 9

const SLOTS = [4, 4, 1, 1, 1, 3, 3, 2, 1, 2]

/** Number of accumulator slots a call takes; `retracting` as AggregateHandler's option. */
export function moreSlots(call: AggCall, retracting: boolean): number {
  return SLOTS[kindOf(call, retracting)]!
}

/** Initial values of a call's slots. */
export function moreInitialSlots(call: AggCall, retracting: boolean): unknown[] {
  switch (kindOf(call, retracting)) {
    case VAR_EXACT:
      return [0, 0, 0n, 0n]
    case VAR_DBL:
      return [0, 0, 0, 0]
    case FIRST_SEQ:
    case LAST_SEQ:
      return [0, null, false]
    case LISTAGG_SEQ:
    case ARRAY_AGG_SEQ:
      return [null, false]
    default:
      return [null]
  }
}

function kindOf(call: AggCall, retracting: boolean): number {
  switch (call.fn) {
    case 'STDDEV_POP':
    case 'STDDEV_SAMP':
    case 'VAR_POP':
    case 'VAR_SAMP':
      return call.argType?.kind === 'DOUBLE' ? VAR_DBL : VAR_EXACT
    case 'FIRST_VALUE':
      return retracting ? FIRST_SEQ : FIRST
    case 'LAST_VALUE':
      return retracting ? LAST_SEQ : LAST
    case 'LISTAGG':
      return retracting ? LISTAGG_SEQ : LISTAGG
    case 'ARRAY_AGG':
      return retracting ? ARRAY_AGG_SEQ : ARRAY_AGG
  }
  throw WeirError.internal(`${call.fn} is not computed by aggregates-more`)
}

interface Entry {
  readonly call: AggCall
  /** Position of the call in the handler's call list (and its output). */
  readonly index: number
  readonly kind: number
  readonly slot: number
  readonly arg: number
  readonly filter: number
  /** STDDEV (a square root), not VAR. */
  readonly sqrt: boolean
  /** SAMP (divides by n - 1), not POP. */
  readonly sample: boolean
  /** DECIMAL: 10^(2 × argument scale) and the result's scale; integer types: bits of the result. */
  readonly squareScale: bigint
  readonly resultScale: number
  readonly bits: number
  readonly separator: string
  /** NULL values count (ARRAY_AGG without IGNORE NULLS). */
  readonly nulls: boolean
  /** The value sequence feeding a *_SEQ call. */
  readonly seq: ValueSequence | null
  /**
   * DISTINCT: fed not by rows but by AggregateHandler's value counts, with a value when its count
   * goes 0 → 1 and back when it goes 1 → 0 (`transition`), as Flink's distinct MapView feeds the
   * aggregate; its sequence, if any, is its own.
   */
  readonly distinct: boolean
}

/**
 * The calls of one AggregateHandler computed here, with the handler's slot layout. Sequences (one
 * per argument and FILTER of the retractable FIRST_VALUE, LAST_VALUE and LISTAGG calls) take
 * `extraWidth` slots after the handler's own, starting at `extraSlot`.
 */
export class MoreAggregates {
  readonly entries: Entry[] = []
  readonly sequences: ValueSequence[] = []
  /** The sequences of DISTINCT calls (fed by `transition`, not by rows). */
  private readonly distinctSequences = new Set<ValueSequence>()
  /** Initial values of the sequences' slots, appended to the handler's initial accumulator. */
  readonly extraInitial: unknown[] = []

  constructor(
    calls: readonly { call: AggCall; index: number; slot: number }[],
    retracting: boolean,
    extraSlot: number,
    private readonly prefix: string,
    private readonly ttl: StateTtlConfig | undefined,
  ) {
    let next = extraSlot
    for (const { call, index, slot } of calls) {
      const kind = kindOf(call, retracting)
      const arg = call.arg!
      const filter = call.filter ?? -1
      // Flink's ARRAY_AGG keeps NULL values unless IGNORE NULLS is written; the other functions skip them.
      const nulls = call.fn === 'ARRAY_AGG' && call.ignoreNulls !== true
      const distinct = call.distinct
      let seq: ValueSequence | null = null
      if (kind === FIRST_SEQ || kind === LAST_SEQ || kind === LISTAGG_SEQ || kind === ARRAY_AGG_SEQ) {
        seq = this.sequences.find(q => q.arg === arg && q.filter === filter && q.nulls === nulls && this.distinctSequences.has(q) === distinct) ?? null
        if (seq === null) {
          const name = `${prefix}sequence-${arg}${filter >= 0 ? `-where-${filter}` : ''}${nulls ? '-with-nulls' : ''}${distinct ? '-distinct' : ''}`
          seq = new ValueSequence(arg, filter, next, name, nulls)
          next += ValueSequence.SLOTS
          this.extraInitial.push(...ValueSequence.initialSlots())
          this.sequences.push(seq)
          if (distinct) this.distinctSequences.add(seq)
        }
      }
      const argScale = call.argType?.kind === 'DECIMAL' ? call.argType.scale : 0
      const resultScale = call.type.kind === 'DECIMAL' ? call.type.scale : 0
      // The result narrowed to its type as Flink's cast does (TINYINT and SMALLINT wrap).
      const bits = integralBits(call.type)
      this.entries.push({
        call,
        index,
        kind,
        slot,
        arg,
        filter,
        sqrt: call.fn === 'STDDEV_POP' || call.fn === 'STDDEV_SAMP',
        sample: call.fn === 'STDDEV_SAMP' || call.fn === 'VAR_SAMP',
        squareScale: 10n ** BigInt(2 * argScale),
        resultScale,
        bits,
        separator: call.separator ?? ',',
        nulls,
        seq,
        distinct,
      })
    }
    this.extraWidth = next - extraSlot
  }

  readonly extraWidth: number

  get hasMaps(): boolean {
    return this.sequences.length > 0
  }

  open(store: KeyedStateStore): void {
    for (const q of this.sequences) q.open(store, this.ttl)
  }

  stateNames(): string[] {
    return this.sequences.flatMap(q => q.stateNames())
  }

  setNamespace(ns: Namespace): void {
    for (const q of this.sequences) q.setNamespace(ns)
  }

  clearMaps(): void {
    for (const q of this.sequences) q.clear()
  }

  accumulate(acc: Accumulator, row: Row): void {
    for (const e of this.entries) {
      if (e.seq !== null || e.distinct) continue
      if (e.filter >= 0 && row[e.filter] !== true) continue
      const v = row[e.arg]
      if (v == null && !e.nulls) continue
      addOne(acc, e, v)
    }
    for (const q of this.sequences) {
      if (this.distinctSequences.has(q)) continue
      if (q.filter >= 0 && row[q.filter] !== true) continue
      const v = row[q.arg] ?? null
      if (v === null && !q.nulls) continue
      this.append(acc, q, v)
    }
  }

  retract(acc: Accumulator, row: Row): void {
    for (const e of this.entries) {
      if (e.seq !== null || e.distinct) continue
      if (e.filter >= 0 && row[e.filter] !== true) continue
      const v = row[e.arg]
      if (v == null) continue
      retractOne(acc, e, v)
    }
    for (const q of this.sequences) {
      if (this.distinctSequences.has(q)) continue
      if (q.filter >= 0 && row[q.filter] !== true) continue
      const v = row[q.arg] ?? null
      if (v === null && !q.nulls) continue
      this.remove(acc, q, v)
    }
  }

  /** The non-NULL value `v` of argument `arg` (under FILTER `filter`) appeared (+1) in its group or left it (-1): the DISTINCT calls' input. */
  transition(acc: Accumulator, arg: number, filter: number, v: unknown, sign: 1 | -1): void {
    for (const e of this.entries) {
      if (!e.distinct || e.seq !== null || e.arg !== arg || e.filter !== filter) continue
      if (sign > 0) addOne(acc, e, v)
      else retractOne(acc, e, v)
    }
    for (const q of this.distinctSequences) {
      if (q.arg !== arg || q.filter !== filter) continue
      if (sign > 0) this.append(acc, q, v)
      else this.remove(acc, q, v)
    }
  }

  private append(acc: Accumulator, q: ValueSequence, v: unknown): void {
    const seq = q.append(acc, v)
    for (const e of this.entries) if (e.seq === q) appended(acc, e, v, seq)
  }

  private remove(acc: Accumulator, q: ValueSequence, v: unknown): void {
    const seq = q.remove(acc, v)
    // A retraction of a value the sequence does not hold (expired state) changes nothing.
    if (seq === 0) return
    const empty = q.live(acc) === 0
    for (const e of this.entries) if (e.seq === q) removed(acc, e, seq, empty)
  }

  /** Writes the results of these calls into `out[offset + index]`. */
  getValue(acc: Accumulator, out: unknown[], offset: number): void {
    for (const e of this.entries) {
      const s = e.slot
      let v: unknown
      switch (e.kind) {
        case VAR_EXACT:
        case VAR_DBL:
          v = this.statistic(acc, e)
          break
        case FIRST_SEQ:
        case LAST_SEQ:
          if (acc[s + 2] === true) {
            const found = e.kind === FIRST_SEQ ? e.seq!.firstAfter(acc, acc[s] as number) : e.seq!.lastBefore(acc, acc[s] as number)
            acc[s] = found === null ? 0 : found[0]
            acc[s + 1] = found === null ? null : found[1]
            acc[s + 2] = false
          }
          v = acc[s + 1]
          break
        case LISTAGG_SEQ:
          if (acc[s + 1] === true) {
            const values = e.seq!.inOrder()
            acc[s] = values.length === 0 ? null : values.join(e.separator)
            acc[s + 1] = false
          }
          v = acc[s]
          break
        case ARRAY_AGG_SEQ:
          if (acc[s + 1] === true) {
            const values = e.seq!.inOrder()
            acc[s] = values.length === 0 ? null : values
            acc[s + 1] = false
          }
          // A copy: the accumulator's array grows with later rows, the emitted one must not.
          v = acc[s] === null ? null : (acc[s] as unknown[]).slice()
          break
        case ARRAY_AGG:
          v = acc[s] === null ? null : (acc[s] as unknown[]).slice()
          break
        default:
          v = acc[s]
      }
      out[offset + e.index] = v
    }
  }

  /** Merges another namespace's accumulator (session windows; insert-only, so no sequences). */
  mergePlain(target: Accumulator, source: Accumulator): void {
    for (const e of this.entries) {
      // A DISTINCT call's values come again from the merged value counts (AggregateHandler.mergeNamespace).
      if (e.distinct) continue
      const s = e.slot
      const nb = source[s] as number
      switch (e.kind) {
        case VAR_EXACT:
          target[s] = (target[s] as number) + nb
          target[s + 2] = (target[s + 2] as bigint) + (source[s + 2] as bigint)
          target[s + 3] = (target[s + 3] as bigint) + (source[s + 3] as bigint)
          break
        case VAR_DBL: {
          if (nb === 0) break
          if ((target[s] as number) === 0) {
            for (let j = 0; j < 4; j++) target[s + j] = source[s + j]
            break
          }
          // Re-shift the source's sums to the target's shift: Σ(x - a) = Σ(x - b) + n(b - a), and its square likewise.
          const delta = (source[s + 1] as number) - (target[s + 1] as number)
          const s1 = source[s + 2] as number
          target[s] = (target[s] as number) + nb
          target[s + 2] = (target[s + 2] as number) + s1 + nb * delta
          target[s + 3] = (target[s + 3] as number) + (source[s + 3] as number) + 2 * delta * s1 + nb * delta * delta
          break
        }
        default:
          // The planner refuses these in SESSION windows: which value came first is not known across sessions.
          throw WeirError.internal(`${e.call.fn} cannot merge session windows`)
      }
    }
  }

  /**
   * Flink rewrites these as (Σx² − (Σx)²/n) / n (or n − 1), in the result's type: integer division
   * for INT types, and the square root of STDDEV taken in DOUBLE and cast back.
   */
  private statistic(acc: Accumulator, e: Entry): unknown {
    const s = e.slot
    const n = acc[s] as number
    const denom = e.sample ? n - 1 : n
    if (n === 0 || denom === 0) return null
    if (e.kind === VAR_DBL) {
      const s1 = acc[s + 2] as number, s2 = acc[s + 3] as number
      // One division last: with exactly representable sums (values on a binary grid) the result is
      // the exact variance correctly rounded.
      const variance = Math.max(0, (n * s2 - s1 * s1) / (n * denom))
      return e.sqrt ? Math.sqrt(variance) : variance
    }
    const s1 = acc[s + 2] as bigint, s2 = acc[s + 3] as bigint
    const bn = BigInt(n), bd = BigInt(denom)
    if (e.call.type.kind === 'DECIMAL') {
      // Exact: (n·Σx² − (Σx)²) / (n · denom), at the squares' scale, rounded half up to the result's.
      const num = s2 * bn - s1 * s1
      const den = bn * bd * e.squareScale
      if (!e.sqrt) return divideHalfUp(num * 10n ** BigInt(e.resultScale), den)
      const root = Math.sqrt(Number(num) / Number(den))
      return BigInt(root.toFixed(e.resultScale).replace('.', ''))
    }
    // Integer arithmetic as Flink's: (Σx)² / n truncates, and so does the division by denom.
    const variance = (s2 - (s1 * s1) / bn) / bd
    const r = e.sqrt ? BigInt(Math.trunc(Math.sqrt(Number(variance)))) : variance
    return e.bits === 64 ? int64(r) : Number(BigInt.asIntN(e.bits, r))
  }
}

/** A row's (or a DISTINCT value's) non-sequence accumulation. */
function addOne(acc: Accumulator, e: Entry, v: unknown): void {
  const s = e.slot
  switch (e.kind) {
    case VAR_EXACT: {
      const b = BigInt(v as number | bigint)
      acc[s] = (acc[s] as number) + 1
      acc[s + 2] = (acc[s + 2] as bigint) + b
      acc[s + 3] = (acc[s + 3] as bigint) + b * b
      break
    }
    case VAR_DBL: {
      if ((acc[s] as number) === 0) acc[s + 1] = v
      const d = (v as number) - (acc[s + 1] as number)
      acc[s] = (acc[s] as number) + 1
      acc[s + 2] = (acc[s + 2] as number) + d
      acc[s + 3] = (acc[s + 3] as number) + d * d
      break
    }
    case FIRST:
      if (acc[s] === null) acc[s] = v
      break
    case LAST:
      acc[s] = v
      break
    case LISTAGG:
      acc[s] = acc[s] === null ? v : `${acc[s] as string}${e.separator}${v as string}`
      break
    case ARRAY_AGG:
      if (acc[s] === null) acc[s] = [v ?? null]
      else (acc[s] as unknown[]).push(v ?? null)
      break
  }
}

/** A retracted row's (or a DISTINCT value's leaving) non-sequence update: only STDDEV/VAR retract this way. */
function retractOne(acc: Accumulator, e: Entry, v: unknown): void {
  const s = e.slot
  switch (e.kind) {
    case VAR_EXACT: {
      const b = BigInt(v as number | bigint)
      const n = (acc[s] as number) - 1
      acc[s] = n
      acc[s + 2] = n === 0 ? 0n : (acc[s + 2] as bigint) - b
      acc[s + 3] = n === 0 ? 0n : (acc[s + 3] as bigint) - b * b
      break
    }
    case VAR_DBL: {
      const n = (acc[s] as number) - 1
      const d = (v as number) - (acc[s + 1] as number)
      acc[s] = n
      // Back to no values: restart from a new shift rather than carry floating-point residue.
      acc[s + 1] = n === 0 ? 0 : acc[s + 1]
      acc[s + 2] = n === 0 ? 0 : (acc[s + 2] as number) - d
      acc[s + 3] = n === 0 ? 0 : (acc[s + 3] as number) - d * d
      break
    }
    default:
      throw WeirError.internal(`${e.call.fn} over an insert-only input received a retraction`)
  }
}

/** A value joined a sequence at `seq` (the newest position). */
function appended(acc: Accumulator, e: Entry, v: unknown, seq: number): void {
  const s = e.slot
  switch (e.kind) {
    case FIRST_SEQ:
      // An unknown (stale) first stays unknown: the new value is never before it.
      if (acc[s + 2] !== true && acc[s] === 0) {
        acc[s] = seq
        acc[s + 1] = v
      }
      break
    case LAST_SEQ:
      acc[s] = seq
      acc[s + 1] = v
      acc[s + 2] = false
      break
    case LISTAGG_SEQ:
      if (acc[s + 1] !== true) acc[s] = acc[s] === null ? v : `${acc[s] as string}${e.separator}${v as string}`
      break
    case ARRAY_AGG_SEQ:
      if (acc[s + 1] !== true) {
        if (acc[s] === null) acc[s] = [v]
        else (acc[s] as unknown[]).push(v)
      }
      break
  }
}

/** The value at `seq` left a sequence; `empty` when none is left. */
function removed(acc: Accumulator, e: Entry, seq: number, empty: boolean): void {
  const s = e.slot
  switch (e.kind) {
    case FIRST_SEQ:
    case LAST_SEQ:
      if (empty) {
        acc[s] = 0
        acc[s + 1] = null
        acc[s + 2] = false
      } else if (acc[s] === seq) {
        acc[s + 2] = true
      }
      break
    case LISTAGG_SEQ:
    case ARRAY_AGG_SEQ:
      acc[s] = null
      acc[s + 1] = !empty
      break
  }
}
