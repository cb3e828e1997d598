// A process function's state declaration across a restore: a checkpoint of the per-key counter is
// refused when the module restored into retyped (valueState → mapState, or another codec) or removed
// the state it holds, naming the function and the state and what to do; a module that adds a state restores
// and gives the straight run's rows. On heap and RocksDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isWeirError } from '../../common/errors.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'
import { holdsEnd, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const ROWS = 1500
const BASE = Date.UTC(2024, 0, 1)
const payments = Array.from({ length: ROWS }, (_, i) => ({ card_id: `c${(i * 7) % 11}`, amount: ((i * 37) % 200) + 0.25, ts: BASE + i * 700 }))

/** The counter of counter.ts, its state declared by `state` and read/written by `get`/`set`. */
const counterModule = (state: string, get = 'ctx.state.totals.value()', set = 'ctx.state.totals.update(now)'): string => `
import { codecs, defineProcessFunction, valueState, mapState, listState } from 'weir'
export default defineProcessFunction({
  input: { card_id: 'STRING', amount: 'DOUBLE' },
  output: { n: 'BIGINT', total: 'DOUBLE' },
  state: { ${state} },
  process(row, ctx) {
    const was = (${get}) ?? { n: 0, total: 0 }
    const now = { n: was.n + 1, total: was.total + (row.amount ?? 0) }
    ${set}
    ctx.emit({ n: now.n, total: now.total })
  },
})
`
const ORIGINAL = counterModule(`totals: valueState<{ n: number; total: number }>('totals')`)

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-evolve-'))
  const ts = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
  writeFileSync(join(root, 'payments.jsonl'), payments.map(p => JSON.stringify({ ...p, ts: ts(p.ts) })).join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const sql = (module: string, out: string): string => `
  CREATE TABLE payments (card_id STRING, amount DOUBLE, ts TIMESTAMP(3))
    WITH ('connector' = 'filesystem', 'path' = '${join(root, 'payments.jsonl')}', 'format' = 'json');
  CREATE TABLE out (card_id STRING, n BIGINT, total DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  CREATE FUNCTION counter AS '${module}';
  INSERT INTO out SELECT * FROM counter(input => TABLE payments PARTITION BY card_id);`

function oracle(): string[] {
  const totals = new Map<string, { n: number; total: number }>()
  return payments.map(p => {
    const was = totals.get(p.card_id) ?? { n: 0, total: 0 }
    const now = { n: was.n + 1, total: was.total + p.amount }
    totals.set(p.card_id, now)
    return `${p.card_id}|${now.n}|${now.total.toFixed(4)}`
  }).sort()
}

const rows = (out: string): string[] =>
  debeziumRows(out).map(r => {
    const o = JSON.parse(r) as { card_id: string; n: number; total: number }
    return `${o.card_id}|${o.n}|${o.total.toFixed(4)}`
  }).sort()

describe.each(RESTORE_BACKENDS)('a changed state declaration on restore ($name)', b => {
  it('retyped or removed: refused naming the function and the state; added: restored', async () => {
    const dir = mkdtempSync(join(root, 'run-'))
    const module = join(dir, 'counter.ts')
    writeFileSync(module, ORIGINAL)
    const out = mkdtempSync(join(dir, 'out-'))
    const options = { ...b.options(root), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': join(dir, 'chk'), 'execution.batch-size': '1',
      'parallelism.default': '2', 'execution.worker-threads': 'true' }
    const cancel = new AbortController()
    const first = await runInsertJob(sql(module, out), options, cancel.signal, id => {
      if (id >= 1 && hasCommittedRows(out)) cancel.abort()
    }, holdsEnd(cancel.signal))
    expect(first.cancelled).toBe(true)

    const refusal = async (source: string): Promise<string> => {
      writeFileSync(module, source)
      const e = await runInsertJob(sql(module, out), options).catch((x: unknown) => x)
      expect(isWeirError(e), String(e)).toBe(true)
      return (e as Error).message
    }
    // valueState → mapState under the same name.
    expect(await refusal(counterModule(`totals: mapState<string, number>('totals')`, `ctx.state.totals.get('n') === undefined ? undefined :
      { n: ctx.state.totals.get('n')!, total: ctx.state.totals.get('total')! }`, `ctx.state.totals.put('n', now.n); ctx.state.totals.put('total', now.total)`)))
      .toMatch(
        /ProcessFunction\) changed: process function 'counter' declares state 'totals' as mapState, but the checkpoint holds it as valueState \(declare it as valueState again, or give the new state another name/,
      )
    // The same state with another codec: its stored values would be read as the other encoding.
    expect(await refusal(counterModule(`totals: valueState<{ n: number; total: number }>('totals', { codec: codecs.row({ n: 'BIGINT', total: 'DOUBLE' }) })`)))
      .toMatch(
        /process function 'counter' declares state 'totals' as valueState with codec row<n BIGINT, total DOUBLE>, but the checkpoint holds it as valueState \(declare it as valueState again/,
      )
    // The state renamed: the checkpoint's 'totals' would be lost.
    expect(await refusal(counterModule(`totals: valueState<{ n: number; total: number }>('sums')`)))
      .toMatch(/process function 'counter' no longer declares state 'totals' \(valueState\), which the checkpoint holds \(declare valueState\('totals'\) again/)

    // A state added beside the one the checkpoint holds starts empty; the rows are the straight run's.
    writeFileSync(module,
      counterModule(`totals: valueState<{ n: number; total: number }>('totals'), seen: listState<number>('seen')`, 'ctx.state.totals.value()',
        'ctx.state.totals.update(now); ctx.state.seen.add(now.n)'))
    const second = await runInsertJob(sql(module, out), options)
    expect(second.cancelled).toBe(false)
    expect(second.sourceRecordsRead, 'the restored run resumed midway').toBeLessThan(ROWS)
    expect(rows(out)).toEqual(oracle())
  })
})
