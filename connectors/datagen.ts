// The 'datagen' connector (as in Flink): random or sequence values per column, rate-limited by
// 'rows-per-second', bounded by 'number-of-rows' or by a sequence's end; 'seed' makes it repeatable.
// A position holds the row count and the generator's state, so a restored reader continues exactly.
// At parallelism N the rows are shared by N splits (datagen-splits.ts).
import { WeirError } from '../common/errors.js'
import type { DataType, Field } from '../common/types.js'
import { formatType, integralBits, isNumeric } from '../common/types.js'
import { INT64_MAX, INT64_MIN, add64, int64, intRange } from '../common/int64.js'
import { Mulberry32 } from '../common/random.js'
import { blankRows, type Row } from '../core/batch.js'
import type { ConnectorFactory, ConnectorOptions, SourceChunk, SourceContext, SourceReader, SplitPosition } from './api.js'
import { datagenPosition, freshDatagenSplits, restoredDatagenSplits, type RowSkipper } from './datagen-splits.js'
import { untilDue } from '../core/yield.js'
import { about, aboutKey, aboutValue, bigintOption, boolOption, checkKnownOptions, closest, durationOption, enumOption, intOption,
  numberOption } from './options.js'

const TOP_OPTIONS = ['rows-per-second', 'number-of-rows', 'seed']
const FIELD_OPTIONS = ['kind', 'min', 'max', 'max-past', 'length', 'var-len', 'start', 'end', 'null-rate'] as const
const RANDOM_ONLY = ['min', 'max', 'max-past', 'length', 'var-len']
const SEQUENCE_ONLY = ['start', 'end']

/**
 * Makes one column's value for row number `i` (0-based), drawing from `rand` (uniform in [0, 1)).
 * `now` is the row's scheduled time (see DatagenPosition.clock).
 */
type ValueGen = (i: number, rand: () => number, now: number) => unknown

/**
 * How many draws a column's value takes (when it is not NULL): a fixed number, or (a variable-length
 * STRING) a function that takes the draws deciding how many and returns how many more it takes. A
 * subtask passes over the rows of other subtasks by these, without making their values.
 */
type Draws = number | ((rand: () => number) => number)

interface ColumnGen {
  readonly gen: ValueGen
  readonly draws: Draws
  readonly nullRate: number
  /** For sequences: how many values before the sequence ends. */
  readonly count?: number
}

interface DatagenPlan {
  /** Advances a generator past rows' draws (a split passes over the other splits' rows; datagen-splits.ts). */
  readonly skip: RowSkipper
  readonly rowsPerSecond: number
  readonly numberOfRows: number | undefined
  readonly seed: number | undefined
  readonly columns: readonly ColumnGen[]
  /** Rows in total, or Infinity. */
  readonly total: number
}

function fieldKey(col: string, opt: string): string {
  return `fields.${col}.${opt}`
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

function randomString(length: number, varLen: boolean): { gen: ValueGen; draws: Draws } {
  // A draw per two characters (hex digits of a byte), after the length's draw with 'var-len'.
  const draws: Draws = varLen ? rand => Math.ceil(Math.floor(rand() * (length + 1)) / 2) : Math.ceil(length / 2)
  const gen: ValueGen = (_i, rand) => {
    const n = varLen ? Math.floor(rand() * (length + 1)) : length
    let s = ''
    while (s.length + 2 <= n) s += HEX[Math.floor(rand() * 256)]!
    if (s.length < n) s += HEX[Math.floor(rand() * 256)]![0]
    return s
  }
  return { gen, draws }
}

function planColumn(options: ConnectorOptions, field: Field): ColumnGen {
  const col = field.name
  const type = field.type
  const get = (opt: string): string | undefined => options[fieldKey(col, opt)]
  const kind = enumOption(options, fieldKey(col, 'kind'), ['random', 'sequence'] as const, 'random')
  const nullRate = numberOption(options, fieldKey(col, 'null-rate'), 0, 0, 1)
  if (nullRate > 0 && !type.nullable) {
    throw aboutValue(WeirError.connector(`option '${fieldKey(col, 'null-rate')}' would give NOT NULL column '${col}' NULL values`, {
      help: `remove the option, or declare the column without NOT NULL (a primary key column is NOT NULL)`,
    }), fieldKey(col, 'null-rate'))
  }
  const wrongKind = (kind === 'random' ? SEQUENCE_ONLY : RANDOM_ONLY).find(o => get(o) !== undefined)
  if (wrongKind !== undefined) {
    throw aboutKey(WeirError.connector(`option '${fieldKey(col, wrongKind)}' does not apply to a ${kind} field`, {
      help: kind === 'random'
        ? `set '${fieldKey(col, 'kind')}' = 'sequence' to use 'start' and 'end'`
        : `'start' and 'end' are the only value options of a sequence`,
    }), fieldKey(col, wrongKind))
  }
  const notFor = (opt: string, what: string): WeirError =>
    aboutKey(
      WeirError.connector(`option '${fieldKey(col, opt)}' does not apply to column '${col}' of type ${formatType(type)}`, {
        help: `'${opt}' applies to ${what}`,
      }),
      fieldKey(col, opt),
    )
  const numeric = isNumeric(type) || type.kind === 'INTERVAL'
  if (!numeric && (get('min') !== undefined || get('max') !== undefined)) throw notFor(get('min') !== undefined ? 'min' : 'max', 'numeric columns')
  if (type.kind !== 'STRING' && (get('length') !== undefined || get('var-len') !== undefined)) {
    throw notFor(get('length') !== undefined ? 'length' : 'var-len', 'STRING columns')
  }
  const temporal = type.kind === 'TIMESTAMP' || type.kind === 'TIMESTAMP_LTZ' || type.kind === 'DATE'
  if (!temporal && get('max-past') !== undefined) throw notFor('max-past', 'TIMESTAMP and DATE columns')

  if (kind === 'sequence') {
    const missing = ['start', 'end'].filter(o => get(o) === undefined)
    if (missing.length > 0) {
      throw about(WeirError.connector(`sequence field '${col}' needs ${missing.map(m => `'${fieldKey(col, m)}'`).join(' and ')}`), {
        option: fieldKey(col, 'kind'),
        part: 'value',
      })
    }
    // Exact at any size: a BIGINT sequence may run beyond 2^53.
    const bigStart = bigintOption(options, fieldKey(col, 'start'), 0n, INT64_MIN, INT64_MAX)
    const bigEnd = bigintOption(options, fieldKey(col, 'end'), 0n, INT64_MIN, INT64_MAX)
    if (bigEnd < bigStart) throw belowOther(col, 'end', bigEnd, 'start', bigStart)
    const count = Number(bigEnd - bigStart + 1n)
    const bits = integralBits(type)
    if (bits !== 0) {
      const { min, max } = intRange(bits)
      if (bigStart < min || bigEnd > max) {
        throw aboutValue(WeirError.connector(`sequence field '${col}' is ${type.kind}, but ${bigStart}..${bigEnd} does not fit ${type.kind}`),
          fieldKey(col, bigStart < min ? 'start' : 'end'))
      }
      const first = int64(bigStart)
      return { gen: bits === 64 ? i => add64(first, i) : i => (first as number) + i, draws: 0, nullRate, count }
    }
    const start = intOption(options, fieldKey(col, 'start'), 0)
    switch (type.kind) {
      case 'DOUBLE':
        return { gen: type.float === true ? i => Math.fround(start + i) : i => start + i, draws: 0, nullRate, count }
      case 'INTERVAL':
        return { gen: i => start + i, draws: 0, nullRate, count }
      case 'DECIMAL': {
        const factor = 10n ** BigInt(type.scale)
        return { gen: i => BigInt(start + i) * factor, draws: 0, nullRate, count }
      }
      case 'STRING':
        return { gen: i => String(start + i), draws: 0, nullRate, count }
      default:
        throw aboutValue(
          WeirError.connector(`column '${col}' of type ${formatType(type)} cannot be a sequence`, {
            help: `sequences are for numeric and STRING columns; use 'random' (the default)`,
          }),
          fieldKey(col, 'kind'),
        )
    }
  }
  return { ...randomGen(options, col, type), nullRate }
}

/** 'fields.<col>.<upper>' is below 'fields.<col>.<lower>': an error about the upper one's value. */
function belowOther(col: string, upper: string, high: number | bigint, lower: string, low: number | bigint): WeirError {
  return aboutValue(WeirError.connector(`option '${fieldKey(col, upper)}' (${high}) is less than '${fieldKey(col, lower)}' (${low})`), fieldKey(col, upper))
}

function randomGen(options: ConnectorOptions, col: string, type: DataType): { gen: ValueGen; draws: Draws } {
  const range = (defMin: number, defMax: number): [number, number] => {
    const min = numberOption(options, fieldKey(col, 'min'), defMin)
    const max = numberOption(options, fieldKey(col, 'max'), defMax)
    if (max < min) throw belowOther(col, 'max', max, 'min', min)
    return [min, max]
  }
  const wholeRange = (defMin: bigint, defMax: bigint, lo: bigint, hi: bigint): [bigint, bigint] => {
    const min = bigintOption(options, fieldKey(col, 'min'), defMin, lo, hi)
    const max = bigintOption(options, fieldKey(col, 'max'), defMax, lo, hi)
    if (max < min) throw belowOther(col, 'max', max, 'min', min)
    return [min, max]
  }
  switch (type.kind) {
    case 'BOOLEAN':
      return one((_i, rand) => rand() < 0.5)
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'INTERVAL': {
      const bits = integralBits(type) || 32
      const { min: lo, max: hi } = intRange(bits as 8 | 16 | 32 | 64)
      // BIGINT's range by default stays within ±(2^53 − 1), as before; 'min' and 'max' reach its ends.
      const [min, max] = type.kind === 'INTERVAL' ?
        wholeRange(0n, 86_400_000n, lo, hi)
        : bits === 64 ?
        wholeRange(-BigInt(Number.MAX_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER), lo, hi)
        : wholeRange(lo, hi, lo, hi)
      return randomInteger(min, max)
    }
    case 'DOUBLE': {
      if (type.float === true) {
        // Float.MIN_VALUE and Float.MAX_VALUE, as Flink's datagen defaults for FLOAT.
        const [min, max] = range(1.401298464324817e-45, 3.4028234663852886e38)
        return one((_i, rand) => Math.fround(min + rand() * (max - min)))
      }
      const [min, max] = range(Number.MIN_VALUE, Number.MAX_VALUE)
      return one((_i, rand) => min + rand() * (max - min))
    }
    case 'DECIMAL': {
      const digits = type.precision - type.scale
      const limit = 10 ** digits - 10 ** -type.scale
      const [min, max] = range(-limit, limit)
      const scale = 10 ** type.scale
      const lo = Math.ceil(min * scale), hi = Math.floor(max * scale)
      return one((_i, rand) => BigInt(Math.min(hi, lo + Math.floor(rand() * (hi - lo + 1)))))
    }
    case 'STRING': {
      const length = intOption(options, fieldKey(col, 'length'), 100, 0, 1 << 24)
      return randomString(length, boolOption(options, fieldKey(col, 'var-len'), false))
    }
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ': {
      const maxPast = durationOption(options, fieldKey(col, 'max-past'), 0)
      return one((_i, rand, now) => now - Math.floor(rand() * (maxPast + 1)))
    }
    // Random bytes, 'fields.<col>.length' of them (100 by default, as a STRING's characters).
    case 'BYTES': {
      const length = intOption(options, fieldKey(col, 'length'), 100, 0, 1 << 24)
      return { gen: (_i, rand) => Uint8Array.from({ length }, () => Math.floor(rand() * 256)), draws: length }
    }
    // Any time of the day, uniformly, at the column's precision (milliseconds at most).
    case 'TIME': {
      const unit = type.precision >= 3 ? 1 : 10 ** (3 - type.precision)
      return one((_i, rand) => Math.floor(rand() * (86_400_000 / unit)) * unit)
    }
    case 'DATE': {
      const maxPastDays = Math.floor(durationOption(options, fieldKey(col, 'max-past'), 0) / 86_400_000)
      return one((_i, rand, now) => Math.floor(now / 86_400_000) - Math.floor(rand() * (maxPastDays + 1)))
    }
    case 'ROW':
    case 'ARRAY':
    case 'MAP':
      throw WeirError.connector(`datagen cannot generate column '${col}' of type ${type.kind}`, {
        help: 'generate its fields as columns of their own and build the value in a view (ROW(…), ARRAY[…], MAP[…])',
      })
    case 'NULL':
      return { gen: () => null, draws: 0 }
  }
}

/** Uniform integers in [min, max]: one draw while the span is exact in a double, else two draws of 32 bits. */
function randomInteger(min: bigint, max: bigint): { gen: ValueGen; draws: Draws } {
  const span = max - min + 1n
  if (span <= 2n ** 53n) {
    const lo = Number(min), hi = Number(max), n = Number(span)
    if (Number.isSafeInteger(lo) && Number.isSafeInteger(hi)) return one((_i, rand) => Math.min(hi, lo + Math.floor(rand() * n)))
    return one((_i, rand) => int64(min + BigInt(Math.floor(rand() * n))))
  }
  const gen: ValueGen = (_i, rand) => {
    const bits = (BigInt(Math.floor(rand() * 4294967296)) << 32n) | BigInt(Math.floor(rand() * 4294967296))
    return int64(min + (span === 2n ** 64n ? bits : bits % span))
  }
  return { gen, draws: 2 }
}

/** A value of one draw. */
function one(gen: ValueGen): { gen: ValueGen; draws: Draws } {
  return { gen, draws: 1 }
}

function plan(options: ConnectorOptions, schema: readonly Field[]): DatagenPlan {
  const columns = new Set(schema.map(f => f.name))
  checkKnownOptions('datagen', options, TOP_OPTIONS, key => key.startsWith('fields.'))
  for (const key of Object.keys(options)) {
    if (!key.startsWith('fields.')) continue
    const rest = key.slice('fields.'.length)
    const dot = rest.lastIndexOf('.')
    const col = dot === -1 ? rest : rest.slice(0, dot)
    const opt = dot === -1 ? '' : rest.slice(dot + 1)
    if (!columns.has(col)) {
      const guess = closest(col, columns)
      throw aboutKey(WeirError.connector(`option '${key}' names column '${col}', which the table does not have`, {
        help: guess !== undefined ? `did you mean '${fieldKey(guess, opt)}'?` : `the table's columns are ${[...columns].map(c => `'${c}'`).join(', ')}`,
      }), key)
    }
    if (!(FIELD_OPTIONS as readonly string[]).includes(opt)) {
      const guess = closest(opt, FIELD_OPTIONS)
      throw aboutKey(WeirError.connector(`unsupported option '${key}' for connector 'datagen'`, {
        help: guess !== undefined ? `did you mean '${fieldKey(col, guess)}'?` : `field options are ${FIELD_OPTIONS.map(o => `'${o}'`).join(', ')}`,
      }), key)
    }
  }
  const rowsPerSecond = numberOption(options, 'rows-per-second', 10_000, Number.MIN_VALUE)
  const numberOfRows = options['number-of-rows'] === undefined ? undefined : intOption(options, 'number-of-rows', 0, 0)
  const seed = options['seed'] === undefined ? undefined : intOption(options, 'seed', 0)
  const gens = schema.map(f => planColumn(options, f))
  let total = numberOfRows ?? Infinity
  for (const g of gens) if (g.count !== undefined) total = Math.min(total, g.count)
  return { skip: rowSkipper(gens), rowsPerSecond, numberOfRows, seed, columns: gens, total }
}

/**
 * Passes over rows as making them would, drawing only what decides how many draws they take (a
 * 'null-rate' draw, a variable length); rows of a fixed number of draws are passed over at once.
 */
function rowSkipper(columns: readonly ColumnGen[]): RowSkipper {
  let fixed: number | null = 0
  for (const c of columns) fixed = fixed !== null && c.nullRate === 0 && typeof c.draws === 'number' ? fixed + c.draws : null
  if (fixed !== null) {
    const perRow = fixed
    return (rng, rows) => rng.skip(Math.imul(rows, perRow) >>> 0)
  }
  return (rng, rows) => {
    const rand = (): number => rng.nextDouble()
    for (let r = 0; r < rows; r++) {
      for (const c of columns) {
        if (c.nullRate > 0 && rand() < c.nullRate) continue
        rng.skip(typeof c.draws === 'number' ? c.draws : c.draws(rand))
      }
    }
  }
}

/**
 * The position of a datagen split after a chunk (datagen-splits.ts): the index of its next row (at
 * parallelism 1, the rows generated so far), the random generator's state after them, and the clock
 * (epoch ms) that row 0 was scheduled at. Random TIMESTAMP and DATE values count back from a row's
 * scheduled time, clock + row × 1000 / 'rows-per-second', rather than from the wall clock, so that a
 * restored reader makes the same values (they trail the wall clock when the job cannot keep up with
 * the rate, or after a restore).
 *
 * @example { rows: 2048, rng: 2914405157, clock: 1767225600000 }
 */
export type DatagenPosition = ReturnType<typeof datagenPosition>

interface LiveSplit {
  rows: number
  clock: number
  readonly rng: Mulberry32
  readonly rand: () => number
  readonly stride: number
  readonly residue: number
  ended: boolean
}

/** Reads the splits its subtask owns, the one furthest behind first; paced at its share of 'rows-per-second'. */
class DatagenReader implements SourceReader {
  readonly splitCount: number
  readonly startPositions: readonly SplitPosition[]
  /** Every split holds the watermark back from the start (they make rows of the same times together). */
  readonly concurrentSplits = true
  private readonly splits: LiveSplit[]
  private emitted = 0
  private ended = false
  /** Pacing: the wall-clock time of the first next(), from which this reader's rows are due at its rate. */
  private startedAt = -1
  /** This reader's share of the rows (its splits' share of the residues), so of 'rows-per-second'. */
  private readonly rate: number
  /** A fresh row to fill in (core/batch.ts: rows V8 never allocates in the old generation). */
  private readonly blank: () => Row

  constructor(private readonly plan: DatagenPlan, private readonly ctx: SourceContext) {
    const index = ctx.subtask?.index ?? 0, parallelism = ctx.subtask?.parallelism ?? 1
    // Without 'seed', a fresh start picks one; positions carry the state, so a restore continues it.
    const seed = plan.seed ?? Math.floor(Math.random() * 2 ** 32)
    const splits = ctx.restoredPositions === undefined
      ? freshDatagenSplits(index, parallelism, seed, plan.skip)
      : restoredDatagenSplits(ctx.restoredPositions, ctx.table, index, parallelism, seed, plan.skip)
    this.splits = splits.map(s => {
      const rng = new Mulberry32(s.rng)
      return { rows: s.rows, clock: s.clock, rng, rand: () => rng.nextDouble(), stride: s.stride, residue: s.residue, ended: false }
    })
    this.splitCount = splits.length
    this.startPositions = splits.map(datagenPosition)
    this.rate = plan.rowsPerSecond * splits.reduce((n, s) => n + 1 / s.stride, 0)
    this.blank = blankRows(plan.columns.length)
  }

  private position(s: LiveSplit): SplitPosition {
    return datagenPosition({ rows: s.rows, rng: s.rng.state, clock: s.clock, stride: s.stride, residue: s.residue })
  }

  async next(): Promise<SourceChunk | null> {
    const { signal } = this.ctx
    if (signal.aborted || this.ended) return null
    const { total, rowsPerSecond, columns } = this.plan
    let at = -1
    for (let i = 0; i < this.splits.length; i++) {
      const s = this.splits[i]!
      if (!s.ended && (at < 0 || s.rows < this.splits[at]!.rows)) at = i
    }
    if (at < 0) {
      this.ended = true
      return null
    }
    const split = this.splits[at]!
    if (this.startedAt < 0) this.startedAt = Date.now()
    if (Number.isNaN(split.clock)) split.clock = this.startedAt
    if (split.rows >= total) {
      // Restored after its last row: nothing more, but the split still reports its end.
      split.ended = true
      return { rows: [], split: at, splitEnded: true, position: this.position(split) }
    }
    // Rows are due at the reader's rate (from the start, or from the restore): wait until the first row of this chunk is due.
    const due = this.startedAt + (this.emitted / this.rate) * 1000
    const wait = due - Date.now()
    if (!(await untilDue(wait, signal))) return null
    const left = Math.ceil((total - split.rows) / split.stride)
    const chunk = Math.min(Math.max(1, this.ctx.batchSize), Math.max(1, Math.ceil(this.rate / 10)), left)
    const rows: Row[] = new Array(chunk)
    const rand = split.rand
    const clock = split.clock
    const n = columns.length
    const stride = split.stride
    const skip = this.plan.skip
    const blank = this.blank
    for (let r = 0; r < chunk; r++) {
      const i = split.rows + r * stride
      const now = clock + Math.floor((i * 1000) / rowsPerSecond)
      const row = blank()
      for (let c = 0; c < n; c++) {
        const g = columns[c]!
        row[c] = g.nullRate > 0 && rand() < g.nullRate ? null : g.gen(i, rand, now)
      }
      rows[r] = row
      // The other splits' rows up to this split's next: the generator stays where row i + stride starts.
      if (stride > 1) skip(split.rng, stride - 1)
    }
    split.rows += chunk * stride
    this.emitted += chunk
    if (split.rows >= total) {
      split.ended = true
      return { rows, split: at, splitEnded: true, position: this.position(split) }
    }
    return { rows, split: at, position: this.position(split) }
  }

  metrics(): Readonly<Record<string, number>> {
    return { rowsEmitted: this.emitted }
  }

  async close(): Promise<void> {
    this.ended = true
  }
}

/**
 * @example CREATE TABLE g (id BIGINT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '100',
 *   'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100', 'seed' = '42')
 */
export const datagenConnector: ConnectorFactory = {
  name: 'datagen',
  source: {
    validate(options, schema) {
      plan(options, schema)
    },
    // Row i is a function of i and its split's generator: subtasks share the rows by residue (datagen-splits.ts).
    splittable: true,
    bounded(options) {
      if (options['number-of-rows'] !== undefined) return true
      return Object.entries(options).some(([k, v]) => /^fields\..+\.kind$/.test(k) && v.trim().toLowerCase() === 'sequence')
    },
    async create(ctx) {
      return new DatagenReader(plan(ctx.options, ctx.schema), ctx)
    },
  },
}
