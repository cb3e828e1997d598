// Helpers for the DuckDB oracle tests: a seeded generator of event rows, the same rows loaded into
// Weir (a JSON-lines file) and into DuckDB, a changelog materializer, and a multiset comparison
// of both engines' results in one canonical text form per cell.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBTimeValue, DuckDBInstance, DuckDBListValue, DuckDBTimestampValue, DuckDBTypeId,
  type DuckDBConnection } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import type { Field } from '../../common/types.js'
import { Mulberry32 } from '../../common/random.js'
import { formatDate, formatDecimal, formatTime, formatTimestamp, hexOf } from '../../common/values.js'

// ---------------------------------------------------------------------------------------------
// Seeded randomness

/** Weir's seeded generator (common/random.ts, mulberry32) with the draws the oracle needs; the same seed always gives the same sequence. */
export class Rng {
  private readonly g: Mulberry32
  constructor(seed: number) {
    this.g = new Mulberry32(seed)
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.g.nextDouble()
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }
}

// ---------------------------------------------------------------------------------------------
// Generated events

/**
 * One generated event. `d` is the exact DECIMAL(10,2) value, unscaled (1234n is 12.34); `b` a BIGINT,
 * often beyond 2^53 (where neighbours are one apart and a double would merge them).
 */
export interface Event {
  readonly k: string | null
  readonly v: number | null
  readonly d: bigint | null
  readonly x: number | null
  readonly s: string | null
  readonly ts: number
  readonly b: bigint | null
}

export const WATERMARK_DELAY_MS = 2000
/** Rows arrive up to this much behind the newest row so far: strictly less than the watermark delay, so no row is late. */
export const MAX_DISORDER_MS = 1500

/** 2024-03-10 23:50:00 UTC: the data crosses an hour and a day boundary. */
const START_MS = Date.UTC(2024, 2, 10, 23, 50, 0)

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
// Leading/trailing spaces (TRIM), mixed case (UPPER/LOWER), LIKE metacharacters as data, precomposed
// BMP letters (one UTF-16 unit and one code point each, so CHAR_LENGTH agrees), the empty string,
// and quotes and a backslash (escaped in JSON and SQL).
// Avoided: 'ß' (Java upper-cases it to 'SS', DuckDB keeps it) and characters outside the BMP.
const WORDS = ['alpha', 'Beta', 'GAMMA', ' delta', 'eps ', 'zeta_eta', 'th%eta', 'über', 'Café', 'x', '', 'a b c', "it's", 'say "hi"', 'back\\slash']

export interface GenOptions {
  readonly seed: number
  readonly rows: number
  /**
   * Event times are multiples of this many ms (default 1). A coarse tick (e.g. 500) makes rows land
   * exactly on window boundaries and session gaps exactly equal to the gap, where off-by-one bugs live.
   */
  readonly tickMs?: number
}

/**
 * Events in arrival order: event time mostly advances (0–500 ms per row, with occasional pauses
 * of 3–9 s so that sessions split), and about half the rows are up to MAX_DISORDER_MS behind.
 * `x` is a multiple of 1/8, so DOUBLE sums are exact in any order and AVG is bit-identical in both engines.
 */
export function generateEvents({ seed, rows, tickMs = 1 }: GenOptions): Event[] {
  const rng = new Rng(seed)
  // BIGINTs from a generator of their own, so the other columns are what they were before `b` existed.
  const big = new Rng(seed ^ 0x5bd1e995)
  const events: Event[] = []
  const ticks = (lo: number, hi: number): number => rng.int(Math.ceil(lo / tickMs), Math.floor(hi / tickMs)) * tickMs
  let frontier = START_MS
  for (let i = 0; i < rows; i++) {
    frontier += rng.chance(0.03) ? ticks(3000, 9000) : ticks(0, 500)
    const ts = rng.chance(0.5) ? frontier : frontier - ticks(0, MAX_DISORDER_MS)
    events.push({
      k: rng.chance(0.1) ? null : rng.pick(KEYS),
      v: rng.chance(0.12) ? null : rng.int(-50, 100),
      d: rng.chance(0.1) ? null : BigInt(rng.int(-10_000, 100_000)),
      x: rng.chance(0.1) ? null : rng.int(-8000, 8000) / 8,
      s: rng.chance(0.08) ? null : rng.chance(0.5) ? rng.pick(WORDS) : rng.pick(WORDS) + String(rng.int(0, 9)),
      ts,
      b: bigValue(big),
    })
  }
  return events
}

/** NULL, ±(2^53 + j) for small j, a value anywhere in ±2^56, or a small one; sums of a few thousand stay inside 64 bits. */
function bigValue(rng: Rng): bigint | null {
  const r = rng.next()
  if (r < 0.08) return null
  if (r < 0.4) return (rng.chance(0.5) ? 1n : -1n) * (2n ** 53n + BigInt(rng.int(-3, 3)))
  if (r < 0.8) return BigInt(rng.int(-(2 ** 28), 2 ** 28)) * 2n ** 28n + BigInt(rng.int(0, 2 ** 28 - 1))
  return BigInt(rng.int(-1000, 1000))
}

function jsonLine(e: Event): string {
  // Written by hand so that DECIMAL values keep their exact text (Weir reads them from the source text).
  return `{"k":${JSON.stringify(e.k)},"v":${e.v ?? 'null'},"d":${e.d === null ? 'null' : formatDecimal(e.d, 2)},` +
    `"x":${e.x ?? 'null'},"s":${JSON.stringify(e.s)},"ts":"${formatTimestamp(e.ts)}","b":${e.b ?? 'null'}}`
}

function sqlString(s: string | null): string {
  return s === null ? 'NULL' : `'${s.replaceAll("'", "''")}'`
}

function duckValues(e: Event): string {
  return `(${sqlString(e.k)}, ${e.v ?? 'NULL'}, ${e.d === null ? 'NULL' : formatDecimal(e.d, 2)}, ` +
    `${e.x === null ? 'NULL' : `${e.x}::DOUBLE`}, ${sqlString(e.s)}, TIMESTAMP '${formatTimestamp(e.ts)}', ${e.b ?? 'NULL'})`
}

// ---------------------------------------------------------------------------------------------
// Both engines over the same rows

export interface WeirResult {
  readonly schema: readonly Field[]
  readonly changes: readonly { kind: number; row: readonly unknown[] }[]
  readonly lateRecordsDropped: number
}

/** Counts of each change kind: [+I, -U, +U, -D]. */
export function kindCounts(changes: readonly { kind: number }[]): [number, number, number, number] {
  const counts: [number, number, number, number] = [0, 0, 0, 0]
  for (const c of changes) counts[c.kind]!++
  return counts
}

/**
 * A table `t (k STRING, v INT, d DECIMAL(10,2), x DOUBLE, s STRING, ts TIMESTAMP(3), b BIGINT)` with the same
 * generated rows in Weir (filesystem source with a 2 s watermark delay) and in DuckDB.
 *
 * @example
 * const data = await OracleData.create({ seed: 1, rows: 3000 })
 * await data.expectSame('SELECT k, COUNT(*) FROM t GROUP BY k', 'SELECT k, COUNT(*) FROM t GROUP BY k')
 * await data.close()
 */
export class OracleData {
  private constructor(
    readonly events: readonly Event[],
    readonly path: string,
    private readonly dir: string,
    private readonly instance: DuckDBInstance,
    private readonly con: DuckDBConnection,
  ) {}

  /**
   * Generates the rows and loads them. With `files` > 1, Weir reads a directory of that many files
   * (consecutive runs of the rows in arrival order, one split each) instead of a single file.
   * `events`, when given, are loaded instead of generated ones.
   */
  static async create(opts: GenOptions & { readonly files?: number; readonly events?: readonly Event[] }): Promise<OracleData> {
    const events = opts.events ?? generateEvents(opts)
    const dir = mkdtempSync(join(tmpdir(), 'weir-oracle-'))
    const files = opts.files ?? 1
    let path = join(dir, 'events.jsonl')
    if (files === 1) {
      writeFileSync(path, events.map(jsonLine).join('\n') + '\n')
    } else {
      path = join(dir, 'events')
      mkdirSync(path)
      const per = Math.ceil(events.length / files)
      for (let f = 0; f < files; f++) {
        writeFileSync(join(path, `part-${f}.jsonl`), events.slice(f * per, (f + 1) * per).map(jsonLine).join('\n') + '\n')
      }
    }
    const instance = await DuckDBInstance.create(':memory:')
    const con = await instance.connect()
    await con.run('CREATE TABLE t (k VARCHAR, v INTEGER, d DECIMAL(10, 2), x DOUBLE, s VARCHAR, ts TIMESTAMP, b BIGINT)')
    for (let i = 0; i < events.length; i += 500) {
      await con.run(`INSERT INTO t VALUES ${events.slice(i, i + 500).map(duckValues).join(',\n')}`)
    }
    const loaded = await con.runAndReadAll('SELECT COUNT(*) FROM t')
    if (Number(loaded.getRows()[0]![0]) !== events.length) throw new Error('DuckDB did not load every row')
    return new OracleData(events, path, dir, instance, con)
  }

  /** The Weir DDL of `t` over this data set. */
  get ddl(): string {
    return `CREATE TABLE t (k STRING, v INT, d DECIMAL(10, 2), x DOUBLE, s STRING, ts TIMESTAMP(3), b BIGINT,
      WATERMARK FOR ts AS ts - INTERVAL '${WATERMARK_DELAY_MS / 1000}' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${this.path}', 'format' = 'json');`
  }

  /** Runs a SELECT through Weir with `options` SET first; returns its changelog. */
  async weir(query: string, options: Readonly<Record<string, string>> = {}): Promise<WeirResult> {
    const sets = Object.entries(options).map(([k, v]) => `SET '${k}' = '${v}';\n`).join('')
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`${sets}${this.ddl}\n${query}`)
    const last = results.at(-1)
    if (last?.kind !== 'rows') throw new Error(`expected the query to return rows, got ${last?.kind}`)
    return { schema: last.schema, changes: last.changes, lateRecordsDropped: last.metrics.lateRecordsDropped }
  }

  /** Runs a query in DuckDB; every cell in canonical form. */
  async duck(query: string): Promise<string[]> {
    const reader = await this.con.runAndReadAll(query)
    const doubles = reader.columnTypes().map(t => t.typeId === DuckDBTypeId.DOUBLE || t.typeId === DuckDBTypeId.FLOAT)
    return reader.getRows().map(row => row.map((v, i) => canonDuck(v, doubles[i]!)).join(' | '))
  }

  /**
   * Runs `weirSql` in Weir and `duckSql` in DuckDB and expects the materialized Weir changelog to
   * equal DuckDB's rows as a multiset. Also expects no late rows and a non-empty result.
   * Returns the Weir result so callers can look at its changelog and schema.
   */
  async expectSame(weirSql: string, duckSql: string, options: Readonly<Record<string, string>> = {}): Promise<WeirResult> {
    const result = await this.weir(weirSql, options)
    expect(result.lateRecordsDropped, 'generated disorder is below the watermark delay: no row may be late').toBe(0)
    const actual = materialize(result.changes).map(row => canonWeirRow(result.schema, row))
    const expected = await this.duck(duckSql)
    expect(expected.length, 'the oracle query returned no rows: the comparison would assert nothing').toBeGreaterThan(0)
    expectSameMultiset(actual, expected)
    return result
  }

  async close(): Promise<void> {
    this.con.closeSync()
    this.instance.closeSync()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// Changelogs and comparison

/** An exact identity for a row (bigints tagged so that 1n and 1 differ), used to match retractions. */
function rowIdentity(row: readonly unknown[]): string {
  return JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))
}

/**
 * Applies a changelog to an empty multiset: +I and +U add a row, -U and -D remove one equal row.
 * A retraction of a row that is not there is an engine bug and throws.
 *
 * @example materialize([{ kind: 0, row: ['a', 1] }, { kind: 1, row: ['a', 1] }, { kind: 2, row: ['a', 2] }]) // [['a', 2]]
 */
export function materialize<R extends readonly unknown[]>(changes: readonly { kind: number; row: R }[]): R[] {
  const live = new Map<string, R[]>()
  changes.forEach(({ kind, row }, i) => {
    const id = rowIdentity(row)
    if (kind === 0 || kind === 2) {
      const same = live.get(id)
      if (same) same.push(row)
      else live.set(id, [row])
    } else if (kind === 1 || kind === 3) {
      const same = live.get(id)
      if (!same) throw new Error(`change #${i} (${kind === 1 ? '-U' : '-D'}) retracts ${id}, which is not in the result`)
      same.pop()
      if (same.length === 0) live.delete(id)
    } else {
      throw new Error(`change #${i} has unknown kind ${kind}`)
    }
  })
  return [...live.values()].flat()
}

/** Exact numerics (INT, BIGINT, DECIMAL at any scale) compare by value: '12.50' and '12.5' are both '12.5'. */
function canonExact(text: string): string {
  let s = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text
  if (s === '-0') s = '0'
  return s
}

/** Doubles are rounded to 9 significant digits; the tests keep them exact in both engines anyway. */
function canonDouble(v: number): string {
  if (!Number.isFinite(v)) return `~${v}`
  return `~${Number(v.toPrecision(9))}`
}

/** One Weir cell in canonical form, by its column type. */
export function canonWeir(v: unknown, field: Field): string {
  if (v === null || v === undefined) return 'NULL'
  const t = field.type
  switch (t.kind) {
    case 'BOOLEAN':
      return v ? 'TRUE' : 'FALSE'
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
      return canonExact(String(v))
    case 'DECIMAL':
      return canonExact(formatDecimal(v as bigint, t.scale))
    case 'DOUBLE':
      return canonDouble(v as number)
    case 'STRING':
      return JSON.stringify(v)
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return formatTimestamp(v as number)
    case 'DATE':
      return formatDate(v as number)
    case 'TIME':
      return formatTime(v as number, 3)
    case 'BYTES':
      return `x${hexOf(v as Uint8Array)}`
    case 'ARRAY':
      // Element by element (an ARRAY_AGG result against DuckDB's list).
      return `[${(v as unknown[]).map(e => canonWeir(e, { ...field, type: t.element })).join(', ')}]`
    case 'INTERVAL':
    case 'NULL':
    case 'ROW':
    case 'MAP':
      return `?${String(v)}`
  }
}

export function canonWeirRow(schema: readonly Field[], row: readonly unknown[]): string {
  return schema.map((f, i) => canonWeir(row[i], f)).join(' | ')
}

/** One DuckDB cell in canonical form; `isDouble` says the column is DOUBLE or FLOAT. */
export function canonDuck(v: unknown, isDouble: boolean): string {
  if (v === null || v === undefined) return 'NULL'
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE'
  if (typeof v === 'number') return isDouble ? canonDouble(v) : canonExact(String(v))
  if (typeof v === 'bigint') return canonExact(v.toString())
  if (typeof v === 'string') return JSON.stringify(v)
  if (v instanceof DuckDBDecimalValue) return canonExact(formatDecimal(v.value, v.scale))
  if (v instanceof DuckDBTimestampValue) {
    if (v.micros % 1000n !== 0n) throw new Error(`DuckDB timestamp ${String(v)} has sub-millisecond digits`)
    return formatTimestamp(Number(v.micros / 1000n))
  }
  if (v instanceof DuckDBDateValue) return formatDate(v.days)
  if (v instanceof DuckDBBlobValue) return `x${hexOf(v.bytes)}`
  if (v instanceof DuckDBTimeValue) {
    if (v.micros % 1000n !== 0n) throw new Error(`DuckDB time ${String(v)} has sub-millisecond digits`)
    return formatTime(Number(v.micros / 1000n), 3)
  }
  if (v instanceof DuckDBListValue) return `[${v.items.map(e => canonDuck(e, isDouble)).join(', ')}]`
  throw new Error(`no canonical form for DuckDB value ${String(v)} (${(v as object).constructor?.name})`)
}

/** Expects two multisets of canonical rows to be equal; on failure shows only the differing rows. */
export function expectSameMultiset(weir: readonly string[], duck: readonly string[]): void {
  const counts = new Map<string, number>()
  for (const r of weir) counts.set(r, (counts.get(r) ?? 0) + 1)
  for (const r of duck) counts.set(r, (counts.get(r) ?? 0) - 1)
  const onlyInWeir: string[] = [], onlyInDuckDB: string[] = []
  for (const [r, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (let i = 0; i < n; i++) onlyInWeir.push(r)
    for (let i = 0; i < -n; i++) onlyInDuckDB.push(r)
  }
  expect(
    { onlyInWeir: onlyInWeir.slice(0, 15), onlyInDuckDB: onlyInDuckDB.slice(0, 15), weirRows: weir.length, duckRows: duck.length },
    'Weir result vs DuckDB result (first differing rows of each)',
  ).toEqual({ onlyInWeir: [], onlyInDuckDB: [], weirRows: duck.length, duckRows: duck.length })
}

// ---------------------------------------------------------------------------------------------
// Aggregates spelled for each engine

/**
 * The same aggregate in Flink SQL and in DuckDB, where DuckDB needs help to mean the same thing:
 * Flink's AVG(INT) is an INT truncated toward zero; Flink's AVG(DECIMAL(10,2)) is DECIMAL(38,6)
 * rounded half up, which DuckDB (AVG giving DOUBLE) computes here with integer arithmetic.
 */
export interface Agg {
  readonly weir: string
  readonly duck: string
}

export const AVG_INT_V: Agg = { weir: 'AVG(v)', duck: 'CAST(trunc(AVG(v)) AS INT)' }
/**
 * DuckDB spelling of Flink's AVG over a DECIMAL column of scale `scale` (at most 6): the exact sum
 * divided by the count at scale 6, rounded half up (away from zero), as DECIMAL(38, 6).
 */
export function duckAvgDecimal(col: string, scale: number): string {
  const unscaled = `CAST(SUM(${col}) * ${10 ** scale} AS HUGEINT)`
  return `CASE WHEN COUNT(${col}) = 0 THEN NULL ELSE
    CAST(sign(SUM(${col})) * ((abs(${unscaled}) * ${2 * 10 ** (6 - scale)} + COUNT(${col})) // (2 * COUNT(${col}))) AS DECIMAL(38, 0))
      * CAST(0.000001 AS DECIMAL(7, 6)) END`
}

export const AVG_DEC_D: Agg = { weir: 'AVG(d)', duck: duckAvgDecimal('d', 2) }

/** Aggregates every window and group test computes: counts, exact sums, extremes, averages, DISTINCT, FILTER. */
export const AGGREGATES: readonly Agg[] = [
  { weir: 'COUNT(*)', duck: 'COUNT(*)' },
  { weir: 'COUNT(v)', duck: 'COUNT(v)' },
  { weir: 'SUM(v)', duck: 'SUM(v)' },
  { weir: 'SUM(d)', duck: 'SUM(d)' },
  { weir: 'MIN(v)', duck: 'MIN(v)' },
  { weir: 'MAX(d)', duck: 'MAX(d)' },
  { weir: 'MIN(s)', duck: 'MIN(s)' },
  { weir: 'MAX(ts)', duck: 'MAX(ts)' },
  { weir: 'AVG(x)', duck: 'AVG(x)' },
  AVG_INT_V,
  AVG_DEC_D,
  { weir: 'COUNT(DISTINCT s)', duck: 'COUNT(DISTINCT s)' },
  { weir: 'COUNT(DISTINCT v) FILTER (WHERE d > 0)', duck: 'COUNT(DISTINCT v) FILTER (WHERE d > 0)' },
  { weir: 'COUNT(*) FILTER (WHERE v > 10)', duck: 'COUNT(*) FILTER (WHERE v > 10)' },
  { weir: "SUM(d) FILTER (WHERE s LIKE '%a%')", duck: "SUM(d) FILTER (WHERE s LIKE '%a%')" },
]

/** `AGGREGATES` as a select list for one engine, columns named a0, a1, … */
export function selectAggs(engine: keyof Agg, aggs: readonly Agg[] = AGGREGATES): string {
  return aggs.map((a, i) => `${a[engine]} AS a${i}`).join(', ')
}

/** A fresh folder for RocksDB working state (each data set on RocksDB gets its own). */
export function rocksDir(): string {
  return mkdtempSync(join(tmpdir(), 'weir-oracle-state-'))
}

/** The RocksDB backend with a 64 kb cache, so that state goes to disk, in a fresh folder. */
export function rocksOptions(): Record<string, string> {
  return { 'state.backend': 'rocksdb', 'state.cache.size': '64 kb', 'state.dir': rocksDir() }
}

/** A named way to run the oracle's queries: its options, made afresh for each use (a RocksDB run gets its own folder). */
export interface OracleConfig {
  readonly name: string
  readonly options: () => Record<string, string>
}

/**
 * Heap and RocksDB, each at parallelism 1 and 2 (RocksDB's subtasks on worker threads), with small
 * batches at parallelism 1 so that barriers and retractions fall between rows.
 */
export const ORACLE_CONFIGS: readonly OracleConfig[] = [
  { name: 'heap, p = 1', options: () => ({ 'execution.batch-size': '7' }) },
  { name: 'heap, p = 2', options: () => ({ 'execution.batch-size': '5', 'parallelism.default': '2' }) },
  { name: 'RocksDB, p = 1', options: () => ({ ...rocksOptions(), 'execution.batch-size': '3' }) },
  { name: 'RocksDB, p = 2, worker threads', options: () => ({ ...rocksOptions(), 'parallelism.default': '2', 'execution.worker-threads': 'true' }) },
]

/** Heap and RocksDB, at parallelism 1 with the default batch size. */
export const ORACLE_BACKENDS: readonly OracleConfig[] = [
  { name: 'heap', options: () => ({}) },
  { name: 'rocksdb', options: rocksOptions },
]

/**
 * Changelog paths a two-input query goes through (rows emitted, then retracted) depend on how its
 * inputs interleave, which varies from run to run. Each data set records how often a named path
 * was taken; `expectTaken` (in an afterAll) asserts it was taken in at least one of them.
 */
export class PathsTaken {
  private readonly counts = new Map<string, number>()

  record(path: string, count: number): void {
    this.counts.set(path, (this.counts.get(path) ?? 0) + count)
  }

  expectTaken(): void {
    for (const [path, count] of this.counts) expect(count, `no run took the path: ${path}`).toBeGreaterThan(0)
  }
}
