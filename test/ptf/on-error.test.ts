// 'weir.process-function.on-error' = 'skip': a row whose handler throws is skipped — the rows it
// emitted before throwing are taken back — and counted in the job's skippedRecords; the default
// still fails the job naming the function, key and row. A job on heap and RocksDB, and the harness.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { setOption } from '../../common/config/index.js'
import { harness } from '../../testing/index.js'
import { loadProcessFunction } from '../../ptf/load.js'
import { debeziumRows } from '../support/debezium-files.js'
import { RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const MODULES = resolve(import.meta.dirname, 'modules')
const amounts = Array.from({ length: 600 }, (_, i) => ({ card_id: `c${i % 7}`, amount: i % 9 === 4 ? -(i % 13) - 1 : (i % 50) + 0.5 }))

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-onerror-'))
  writeFileSync(join(root, 'p.jsonl'), amounts.map(a => JSON.stringify(a)).join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const sql = (out: string): string => `
  CREATE TABLE p (card_id STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${join(root, 'p.jsonl')}', 'format' = 'json');
  CREATE TABLE out (card_id STRING, amount DOUBLE, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  CREATE FUNCTION skipping AS '${MODULES}/skipping.ts';
  INSERT INTO out SELECT * FROM skipping(input => TABLE p PARTITION BY card_id);`

function oracle(): string[] {
  const n = new Map<string, number>()
  return amounts.filter(a => a.amount >= 0).map(a => {
    n.set(a.card_id, (n.get(a.card_id) ?? 0) + 1)
    return JSON.stringify({ card_id: a.card_id, amount: a.amount, n: n.get(a.card_id) })
  }).sort()
}

describe.each(RESTORE_BACKENDS)("'weir.process-function.on-error' on $name", b => {
  it("'skip' skips the rows whose handler threw and counts them", async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const m = await runInsertJob(sql(out), { ...b.options(root), 'weir.process-function.on-error': 'skip', 'parallelism.default': '2',
      'execution.worker-threads': 'true' })
    const negative = amounts.filter(a => a.amount < 0).length
    expect(negative).toBeGreaterThan(50)
    expect(m.skippedRecords).toBe(negative)
    expect(debeziumRows(out)).toEqual(oracle())
  })

  it("'fail' (the default) fails the job naming the function, key and row", async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const e = await runInsertJob(sql(out), b.options(root)).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as Error).message).toMatch(/process function 'skipping' failed on key \[c4\] at row \(card_id=c4, amount=-5\.0\): negative amount/)
  })
})

describe('the option', () => {
  it('is refused at SET with another value', () => {
    expect(() => setOption('weir.process-function.on-error', 'ignore')).toThrow(/'fail'.*'skip'|fail, skip|one of/)
  })

  it("the harness counts skipped rows under onError: 'skip'", async () => {
    const def = await loadProcessFunction(`${MODULES}/skipping.ts`, 'TYPESCRIPT')
    const h = await harness(def, { partitionBy: ['card_id'], onError: 'skip' })
    h.processElement({ card_id: 'a', amount: 1 })
    h.processElement({ card_id: 'a', amount: -1 })
    h.processElement({ card_id: 'a', amount: 2 })
    expect(h.take()).toEqual([{ card_id: 'a', amount: 1, n: 1 }, { card_id: 'a', amount: 2, n: 2 }])
    expect(h.skipped()).toBe(1)
    expect(h.state(['a'], 'n')).toBe(2)
    const failing = await harness(def, { partitionBy: ['card_id'] })
    expect(() => failing.processElement({ card_id: 'a', amount: -1 })).toThrow(/failed on key \[a\] at row \(card_id=a, amount=-1\.0\): negative amount/)
  })
})
