// Tests of the oracle helpers themselves: the generator's guarantees (deterministic, NULLs in every
// nullable column, disorder below the watermark delay), materialize, the canonical cell forms, and
// that a comparison really fails when the two engines disagree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBDecimalValue, DuckDBTimestampValue } from '@duckdb/node-api'
import { T } from '../../common/types.js'
import { MAX_DISORDER_MS, OracleData, WATERMARK_DELAY_MS, canonDuck, canonWeir, expectSameMultiset, generateEvents, materialize } from './oracle.js'

describe('generateEvents', () => {
  const events = generateEvents({ seed: 1, rows: 3000 })

  it('is deterministic per seed and differs between seeds', () => {
    expect(generateEvents({ seed: 1, rows: 3000 })).toEqual(events)
    expect(generateEvents({ seed: 2, rows: 3000 })).not.toEqual(events)
  })

  it('never puts a row a watermark delay or more behind the newest row before it, yet is out of order', () => {
    expect(MAX_DISORDER_MS).toBeLessThan(WATERMARK_DELAY_MS)
    let newest = -Infinity, outOfOrder = 0
    for (const e of events) {
      expect(e.ts).toBeGreaterThan(newest - WATERMARK_DELAY_MS)
      if (e.ts < newest) outOfOrder++
      newest = Math.max(newest, e.ts)
    }
    expect(outOfOrder).toBeGreaterThan(events.length / 5)
  })

  it('has NULLs and non-NULLs in every nullable column', () => {
    for (const col of ['k', 'v', 'd', 'x', 's'] as const) {
      expect(events.some(e => e[col] === null), `${col} has NULLs`).toBe(true)
      expect(events.filter(e => e[col] !== null).length, `${col} is mostly set`).toBeGreaterThan(events.length * 0.8)
    }
  })

  it('puts event times on the requested grid', () => {
    expect(generateEvents({ seed: 3, rows: 500, tickMs: 500 }).every(e => e.ts % 500 === 0)).toBe(true)
  })
})

describe('materialize', () => {
  it('applies +I, -U, +U and -D as multiset changes', () => {
    const rows = materialize([
      { kind: 0, row: ['a', 1] },
      { kind: 0, row: ['a', 1] },
      { kind: 0, row: ['b', 1n] },
      { kind: 1, row: ['a', 1] },
      { kind: 2, row: ['a', 2] },
      { kind: 3, row: ['b', 1n] },
    ])
    expect(rows).toEqual([['a', 1], ['a', 2]])
  })

  it('throws on a retraction of a row that is not there (an engine bug)', () => {
    expect(() => materialize([{ kind: 0, row: ['a', 1] }, { kind: 1, row: ['a', 2] }])).toThrow(/change #1 \(-U\) retracts/)
    expect(() => materialize([{ kind: 0, row: [1n] }, { kind: 3, row: [1] }])).toThrow(/-D/)
  })
})

describe('canonical forms', () => {
  it('agree across engines for exact numerics, timestamps and strings', () => {
    expect(canonWeir(12_500_000n, { name: 'a', type: T.decimal(38, 6) })).toBe(canonDuck(new DuckDBDecimalValue(1250n, 10, 2), false))
    expect(canonWeir(5, { name: 'c', type: T.bigint() })).toBe(canonDuck(5n, false))
    expect(canonWeir(-0n, { name: 'c', type: T.decimal(10, 2) })).toBe(canonDuck(0, false))
    expect(canonWeir(1_500, { name: 'ts', type: T.timestamp(3) })).toBe(canonDuck(new DuckDBTimestampValue(1_500_000n), false))
    expect(canonWeir(0.1 + 0.2, { name: 'x', type: T.double() })).toBe(canonDuck(0.3, true))
    expect(canonWeir('NULL', { name: 's', type: T.string() })).not.toBe(canonDuck(null, false))
  })

  it('tell different values apart', () => {
    expect(canonWeir(1250n, { name: 'a', type: T.decimal(10, 2) })).not.toBe(canonDuck(new DuckDBDecimalValue(1251n, 10, 2), false))
    expect(canonWeir(1, { name: 'ts', type: T.timestamp(3) })).not.toBe(canonDuck(new DuckDBTimestampValue(0n), false))
  })

  it('multiset comparison counts duplicates', () => {
    expect(() => expectSameMultiset(['a', 'a', 'b'], ['a', 'b', 'b'])).toThrow()
    expect(() => expectSameMultiset(['b', 'a'], ['a', 'b'])).not.toThrow()
  })
})

describe('OracleData', () => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed: 9, rows: 2000 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('loads the same rows into both engines', async () => {
    await data.expectSame(
      'SELECT k, v, d, x, s, ts FROM t',
      'SELECT k, v, d, x, s, ts FROM t',
    )
  })

  it('rejects a result that differs in one cell of one group', async () => {
    await expect(data.expectSame(
      'SELECT k, COUNT(*), SUM(d) FROM t GROUP BY k',
      "SELECT k, COUNT(*), SUM(d) + CASE WHEN k = 'c' THEN 0.01 ELSE 0 END FROM t GROUP BY k",
    )).rejects.toThrow(/Weir result vs DuckDB result/)
  })

  it('rejects an empty oracle result, which would assert nothing', async () => {
    await expect(data.expectSame('SELECT k FROM t WHERE v > 1000', 'SELECT k FROM t WHERE v > 1000')).rejects.toThrow(/no rows/)
  })
})
