// The datagen source: repeatable output with 'seed', sequences and their bounds, value ranges,
// null rates, option errors naming the field, and prompt return on abort while rate-limited.
import { describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { datagenConnector } from '../../connectors/datagen.js'
import { drain, errorOf, readAllRows, sourceCtx } from './helpers.js'

const source = datagenConnector.source!
const FAST = { 'rows-per-second': '100000000' }

const SCHEMA: Field[] = [
  { name: 'id', type: T.bigint() },
  { name: 'v', type: T.int() },
  { name: 's', type: T.string() },
  { name: 'd', type: T.double() },
  { name: 'b', type: T.boolean() },
  { name: 'amount', type: T.decimal(6, 2) },
]

async function generate(options: Record<string, string>, schema: Field[] = SCHEMA, batchSize = 1024) {
  const all = { connector: 'datagen', ...FAST, ...options }
  source.validate(all, schema)
  return readAllRows(await source.create(sourceCtx(all, schema, batchSize)))
}

describe('datagen source', () => {
  it("is deterministic with 'seed' and differs between seeds", async () => {
    const a = await generate({ 'number-of-rows': '500', seed: '42' })
    const b = await generate({ 'number-of-rows': '500', seed: '42' })
    const c = await generate({ 'number-of-rows': '500', seed: '43' })
    expect(a).toHaveLength(500)
    expect(a).toEqual(b)
    expect(a).not.toEqual(c)
  })

  it('generates sequences and ends with the shortest one', async () => {
    const rows = await generate({
      'fields.id.kind': 'sequence',
      'fields.id.start': '10',
      'fields.id.end': '1009',
      'fields.s.kind': 'sequence',
      'fields.s.start': '1',
      'fields.s.end': '5000',
    }, SCHEMA, 100)
    expect(rows).toHaveLength(1000)
    expect(rows.map(r => r[0])).toEqual(Array.from({ length: 1000 }, (_, i) => 10 + i))
    expect(rows[999]![2]).toBe('1000')
    expect(source.bounded({ 'fields.id.kind': 'sequence' })).toBe(true)
    expect(source.bounded({ 'number-of-rows': '5' })).toBe(true)
    expect(source.bounded({})).toBe(false)
  })

  it("stops at 'number-of-rows' and marks the split ended", async () => {
    const chunks = await drain(await source.create(sourceCtx({ ...FAST, 'number-of-rows': '2500' }, SCHEMA, 1000)))
    expect(chunks.map(c => c.rows.length)).toEqual([1000, 1000, 500])
    expect(chunks.map(c => c.splitEnded ?? false)).toEqual([false, false, true])
    expect(chunks.map(c => (c.position as { rows: number }).rows)).toEqual([1000, 2000, 2500])
    const none = await drain(await source.create(sourceCtx({ ...FAST, 'number-of-rows': '0' }, SCHEMA)))
    expect(none).toEqual([{ rows: [], split: 0, splitEnded: true, position: { rows: 0, rng: expect.any(Number), clock: expect.any(Number) } }])
  })

  it('keeps random values within min/max, string lengths and null rates', async () => {
    const rows = await generate({
      'number-of-rows': '5000',
      seed: '1',
      'fields.v.min': '-5',
      'fields.v.max': '5',
      'fields.d.min': '0.5',
      'fields.d.max': '1.5',
      'fields.s.length': '12',
      'fields.amount.min': '1',
      'fields.amount.max': '2',
      'fields.b.null-rate': '0.3',
    })
    const vs = rows.map(r => r[1] as number)
    expect(Math.min(...vs)).toBe(-5)
    expect(Math.max(...vs)).toBe(5)
    expect(vs.every(Number.isInteger)).toBe(true)
    expect(rows.every(r => (r[3] as number) >= 0.5 && (r[3] as number) <= 1.5)).toBe(true)
    expect(rows.every(r => typeof r[2] === 'string' && (r[2] as string).length === 12)).toBe(true)
    expect(rows.every(r => (r[5] as bigint) >= 100n && (r[5] as bigint) <= 200n)).toBe(true)
    const nulls = rows.filter(r => r[4] === null).length / rows.length
    expect(nulls).toBeGreaterThan(0.25)
    expect(nulls).toBeLessThan(0.35)
    expect(rows.filter(r => r[4] === true).length).toBeGreaterThan(1500)
  })

  it('generates timestamps within max-past of now', async () => {
    const before = Date.now()
    const rows = await generate({ 'number-of-rows': '100', 'fields.ts.max-past': '1 h' }, [{ name: 'ts', type: T.timestamp(3) }])
    const after = Date.now()
    expect(rows.every(r => (r[0] as number) <= after && (r[0] as number) >= before - 3_600_000)).toBe(true)
  })

  it('rejects options for unknown fields, unknown field options and misplaced options', async () => {
    const unknownColumn = await errorOf(() => source.validate({ 'fields.idd.kind': 'sequence' }, SCHEMA))
    expect(unknownColumn.message).toBe(`option 'fields.idd.kind' names column 'idd', which the table does not have`)
    expect(unknownColumn.help).toBe(`did you mean 'fields.id.kind'?`)
    const unknownOption = await errorOf(() => source.validate({ 'fields.id.mni': '1' }, SCHEMA))
    expect(unknownOption.message).toBe(`unsupported option 'fields.id.mni' for connector 'datagen'`)
    expect(unknownOption.help).toBe(`did you mean 'fields.id.min'?`)
    const missingEnd = await errorOf(() => source.validate({ 'fields.id.kind': 'sequence', 'fields.id.start': '1' }, SCHEMA))
    expect(missingEnd.message).toBe(`sequence field 'id' needs 'fields.id.end'`)
    const lengthOnInt = await errorOf(() => source.validate({ 'fields.v.length': '3' }, SCHEMA))
    expect(lengthOnInt.message).toContain(`does not apply to column 'v' of type INT`)
    const startOnRandom = await errorOf(() => source.validate({ 'fields.v.start': '3' }, SCHEMA))
    expect(startOnRandom.message).toContain('does not apply to a random field')
    const badKind = await errorOf(() => source.validate({ 'fields.v.kind': 'sequense' }, SCHEMA))
    expect(badKind.help).toBe(`did you mean 'sequence'?`)
    const badRows = await errorOf(() => source.validate({ 'number-of-rows': '-1' }, SCHEMA))
    expect(badRows.message).toContain(`option 'number-of-rows'`)
  })

  it('returns null promptly when the signal aborts while waiting for the rate', async () => {
    const abort = new AbortController()
    const reader = await source.create(sourceCtx({ 'rows-per-second': '1' }, SCHEMA, 1024, abort.signal))
    const first = await reader.next()
    expect(first?.rows).toHaveLength(1)
    const pending = reader.next() // the next row is due in a second
    abort.abort()
    expect(await pending).toBeNull()
    expect(await reader.next()).toBeNull()
  })
})
