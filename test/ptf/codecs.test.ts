// Codecs declared per state of a process function (ptf/codecs.ts): a number, a row and a user's byte
// codec (test/ptf/modules/codecs.ts). A value read is the codec's copy, so changing it without
// writing it back changes nothing — on heap as on RocksDB, in the harness as in a job; a value the
// codec does not take fails naming the function and the state; bad declarations are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { isWeirError } from '../../common/errors.js'
import { harness } from '../../testing/index.js'
import { loadProcessFunction } from '../../ptf/load.js'
import { valueState } from '../../ptf/api.js'
import { codecs } from '../../ptf/codecs.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const MODULE = resolve(import.meta.dirname, 'modules', 'codecs.ts')
const ROWS = 3000
const MERCHANTS = ['books', 'gas', 'tv', 'food']
const payments = Array.from({ length: ROWS }, (_, i) => ({ card_id: `c${(i * 7) % 13}`, merchant: MERCHANTS[(i * 5) % 4]!, amount: ((i * 7919) % 1000) / 4 }))

/** What the function emits for each payment, computed here by its rules (with copies, as the codecs give). */
function oracle(rows = payments): string[] {
  const byCard = new Map<string, { n: number; last?: number; perMerchant: Map<string, number> }>()
  return rows.map(p => {
    const s = byCard.get(p.card_id) ?? { n: 0, perMerchant: new Map<string, number>() }
    byCard.set(p.card_id, s)
    const n = ++s.n
    const prev = s.last ?? null
    if (n % 3 !== 0) s.last = p.amount
    const seen = (s.perMerchant.get(p.merchant) ?? 0) + 1
    if (n % 2 === 0) s.perMerchant.set(p.merchant, seen)
    return `${p.card_id}|${n}|${prev}|${s.perMerchant.get(p.merchant) ?? 0}`
  }).sort()
}

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-codecs-'))
  writeFileSync(join(root, 'p.jsonl'), payments.map(p => JSON.stringify(p)).join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const sql = (out: string, input = join(root, 'p.jsonl')): string => `
  CREATE TABLE p (card_id STRING, merchant STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
  CREATE TABLE out (card_id STRING, n BIGINT, prev DOUBLE, same_merchant BIGINT)
    WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  CREATE FUNCTION f AS '${MODULE}';
  INSERT INTO out SELECT * FROM f(input => TABLE p PARTITION BY card_id);`

const rows = (out: string): string[] =>
  debeziumRows(out).map(r => {
    const o = JSON.parse(r) as { card_id: string; n: number; prev: number | null; same_merchant: number }
    return `${o.card_id}|${o.n}|${o.prev}|${o.same_merchant}`
  }).sort()

describe('state codecs', () => {
  it('the harness: reads are copies, state shows values as the handler sees them', async () => {
    const h = await harness(await loadProcessFunction(MODULE, 'TYPESCRIPT'), { partitionBy: ['card_id'] })
    for (const p of payments.slice(0, 200)) h.processElement(p)
    expect(h.output.map(o => `${o['card_id']}|${o['n']}|${o['prev']}|${o['same_merchant']}`).sort()).toEqual(oracle(payments.slice(0, 200)))
    const c0 = payments.slice(0, 200).filter(p => p.card_id === 'c0')
    expect(h.state(['c0'], 'n')).toBe(c0.length)
    const last = c0.filter((_, i) => (i + 1) % 3 !== 0).at(-1)!
    expect(h.state(['c0'], 'last')).toEqual({ amount: last.amount, merchant: last.merchant })
    expect(Object.keys(h.state(['c0'], 'perMerchant') as object).length).toBeGreaterThan(0)
    for (const v of Object.values(h.state(['c0'], 'perMerchant') as object)) expect(v).toEqual({ count: expect.any(Number) })
  })

  it.each(RESTORE_BACKENDS)('a job on $name gives the oracle, straight', async b => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(sql(out), b.options(root))
    expect(rows(out)).toEqual(oracle())
  })

  it.each([
    { b: RESTORE_BACKENDS[0]!, a: 1, z: 2 },
    { b: RESTORE_BACKENDS[1]!, a: 2, z: 1 },
  ])('on $b.name checkpointed at p=$a and restored at p=$z, the oracle', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(out), options: b.options(root), a, z, sourceRows: ROWS })
    expect(rows(out)).toEqual(oracle())
  })

  it('a value the codec does not take fails the job naming the function and the state', async () => {
    const input = join(root, 'bad.jsonl')
    writeFileSync(input,
      JSON.stringify({ card_id: 'c1', merchant: 'gas', amount: 1 }) + '\n' + JSON.stringify({ card_id: 'c1', merchant: 'bad', amount: 2 }) + '\n')
    const e = await runInsertJob(sql(mkdtempSync(join(root, 'out-')), input), {}).catch((x: unknown) => x)
    expect(isWeirError(e), String(e)).toBe(true)
    expect((e as Error).message).toMatch(/process function 'f'.*state 'n': codec number takes a number, got 'many'/s)
  })

  it('refuses what is not a codec, and a row codec of an unknown type', () => {
    expect(() => valueState('x', { codec: {} as never })).toThrow(/state 'x': codec must be one of codecs\.json/)
    expect(() => valueState('x', { codec: { id: 'mine', encode: () => new Uint8Array() } as never })).toThrow(/needs encode\(value\): Uint8Array and decode/)
    expect(() => codecs.row({ a: 'TEXT' as never })).toThrow(/codecs\.row: field 'a' has type "TEXT"/)
  })
})
