// With 'weir.process-function.on-error' = 'skip', a handler that throws leaves nothing behind: its
// state writes, timer registrations and deletions and emitted rows are undone, so the output, state and
// timers equal a run over the input without those rows — in the harness, and in a SQL job on heap and
// RocksDB (timers fire at the end of the input), straight and checkpointed then restored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { harness } from '../../testing/index.js'
import { loadProcessFunction } from '../../ptf/load.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const MODULES = resolve(import.meta.dirname, 'modules')
const ROWS = 900
// Every 7th row is negative (it throws); amount 1 registers the timer at 10 that a negative one deletes.
const all = Array.from({ length: ROWS }, (_, i) => ({ card_id: `c${i % 5}`, amount: i % 7 === 3 ? -((i % 40) + 1) : (i % 30) + 1 }))
const good = all.filter(r => r.amount >= 0)

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-rollback-'))
  writeFileSync(join(root, 'all.jsonl'), all.map(p => JSON.stringify(p)).join('\n') + '\n')
  writeFileSync(join(root, 'good.jsonl'), good.map(p => JSON.stringify(p)).join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function driven(rows: readonly { card_id: string; amount: number }[], onError?: 'skip') {
  const h = await harness(await loadProcessFunction(`${MODULES}/undoing.ts`, 'TYPESCRIPT'), { partitionBy: ['card_id'], ...(onError ? { onError } : {}) })
  for (const r of rows) h.processElement(r)
  const cards = ['c0', 'c1', 'c2', 'c3', 'c4']
  const state = cards.map(c => [h.state([c], 'n'), h.state([c], 'seen')])
  const timers = h.timers().map(t => `${JSON.stringify(t.key)}@${t.timestamp}`).sort()
  const before = h.take()
  h.watermark(1e6)
  return { before, state, timers, fired: h.take(), skipped: h.skipped() }
}

describe('the harness', () => {
  it('a skipped call leaves no state, timers or rows: as if its row never came', async () => {
    const skipped = await driven(all, 'skip')
    const clean = await driven(good)
    expect(skipped.skipped).toBe(all.length - good.length)
    expect(skipped.before).toEqual(clean.before)
    expect(skipped.state).toEqual(clean.state)
    expect(skipped.timers).toEqual(clean.timers)
    expect(skipped.timers.some(t => t.endsWith('@10'))).toBe(true) // the deletions were undone
    expect(skipped.fired).toEqual(clean.fired)
  })
})

const sql = (file: string, out: string): string => `
  CREATE TABLE p (card_id STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${join(root, file)}', 'format' = 'json');
  CREATE TABLE out (card_id STRING, n BIGINT, fired BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  CREATE FUNCTION undoing AS '${MODULES}/undoing.ts';
  INSERT INTO out SELECT * FROM undoing(input => TABLE p PARTITION BY card_id);`

describe.each(RESTORE_BACKENDS)('a SQL job on $name', b => {
  it("with 'skip', its output equals a run without the failing rows", async () => {
    const [withSkip, clean] = [mkdtempSync(join(root, 'out-')), mkdtempSync(join(root, 'out-'))]
    const m = await runInsertJob(sql('all.jsonl', withSkip), { ...b.options(root), 'weir.process-function.on-error': 'skip' })
    await runInsertJob(sql('good.jsonl', clean), b.options(root))
    expect(m.skippedRecords).toBe(all.length - good.length)
    const expected = debeziumRows(clean)
    expect(expected.some(r => r.includes('"fired":10'))).toBe(true)
    expect(debeziumRows(withSkip)).toEqual(expected)
  })
})

describe('checkpointed and restored', () => {
  it.each([{ b: RESTORE_BACKENDS[0]!, a: 1, z: 2 }, { b: RESTORE_BACKENDS[1]!, a: 2, z: 1 }])(
    'on $b.name from parallelism $a to $z, equal to a straight run without the failing rows',
    async ({ b, a, z }) => {
      const [withSkip, clean] = [mkdtempSync(join(root, 'out-')), mkdtempSync(join(root, 'out-'))]
      await checkpointedThenRestored({ root, out: withSkip, sql: sql('all.jsonl', withSkip),
        options: { ...b.options(root), 'weir.process-function.on-error': 'skip' }, a, z, sourceRows: ROWS })
      await runInsertJob(sql('good.jsonl', clean), b.options(root))
      expect(debeziumRows(withSkip)).toEqual(debeziumRows(clean))
    },
  )
})
