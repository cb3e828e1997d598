// A splitting source read at a lower parallelism than the job's ('scan.parallelism'): on worker threads
// it reads on workers 1..P and every row crosses a thread to the operators it feeds (threads.ts). The
// rows must be exactly those of a run on one thread; a bad value is refused naming the table.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { subtaskWorkersRunning, subtaskWorkersStarted } from '../../runtime/worker-pool.js'
import { MAIN_THREAD, threadOf } from '../../runtime/threads.js'
import { materialize } from '../oracle/oracle.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const root = mkdtempSync(join(tmpdir(), 'weir-scan-parallelism-'))
const insert = (out: string, scan: string | null): string =>
  `${bid(scan)}
  CREATE TABLE out (k BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  INSERT INTO out SELECT MOD(auction, 13), COUNT(*), SUM(price) FROM bid GROUP BY MOD(auction, 13);`

const bid = (scan: string | null): string => `
  CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING)
  WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '20000'${scan === null ? '' : `, 'scan.parallelism' = '${scan}'`});`

const keyOf = (row: unknown[]): string => row.map(v => String(v)).join('\u0001')

async function run(sql: string, p: number, scan: string | null): Promise<unknown[][]> {
  const session = new Session({ println: () => undefined })
  const before = subtaskWorkersStarted()
  const results = await session.executeSql(
    `SET 'parallelism.default' = '${p}';\nSET 'execution.worker-threads' = '${p > 1}';\nSET 'execution.batch-size' = '256';\n${bid(scan)}\n${sql}`,
  )
  expect(subtaskWorkersStarted() - before, 'worker threads started').toBe(p - 1)
  const last = results.at(-1)
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  return materialize(last.changes as { kind: number; row: unknown[] }[]).map(r => [...r]).sort((a, b) => keyOf(a).localeCompare(keyOf(b)))
}

describe("'scan.parallelism' below the job's parallelism", () => {
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
    expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
  })

  it('places the source on worker thread 1 and its consumer on the job thread', () => {
    const source = { node: { spec: { kind: 'Source', options: { 'scan.parallelism': '1' } } }, index: 0, parallelism: 1 }
    const calc = { node: { spec: { kind: 'Calc' } }, index: 0, parallelism: 1 }
    const t = (x: unknown): Parameters<typeof threadOf>[0] => x as Parameters<typeof threadOf>[0]
    expect(threadOf(t(source), true, 2)).toBe(1)
    expect(threadOf(t(calc), true, 2)).toBe(MAIN_THREAD)
    // At the job's own parallelism, split 0 stays on the job's thread as before.
    expect(threadOf(t({ ...source, parallelism: 2 }), true, 2)).toBe(MAIN_THREAD)
    expect(threadOf(t(source), false, 2)).toBe(MAIN_THREAD)
  })

  it('a projection gets every row across the hop, exactly as on one thread', async () => {
    const q = 'SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid'
    const one = await run(q, 1, null)
    expect(one.length).toBe(18400)
    expect(await run(q, 2, '1')).toEqual(one)
  })

  it('a keyed aggregate after the hop (a hash exchange at parallelism 2) counts as on one thread', async () => {
    const q = 'SELECT MOD(auction, 13) AS k, COUNT(*) AS n, SUM(price) AS s, MAX(extra) AS e FROM bid GROUP BY MOD(auction, 13)'
    const one = await run(q, 1, null)
    expect(one.length).toBe(13)
    expect(await run(q, 2, '1')).toEqual(one)
  })

  it('refuses a value that is not a whole number from 1 to the parallelism, naming the table', async () => {
    for (const bad of ['3', '0', 'two']) {
      await expect(run('SELECT * FROM bid', 2, bad)).rejects.toThrow(
        new RegExp(`table 'bid': 'scan.parallelism' = '${bad}' is not a whole number from 1 to 'parallelism.default' = 2`),
      )
    }
  })

  it.each(RESTORE_BACKENDS.flatMap(b => [[2, 2], [2, 3]].map(([a, z]) => ({ b, a: a!, z: z! }))))(
    '$b.name: one generator subtask on a worker, checkpointed at p=$a, cancelled, restored at p=$z: every row once',
    async ({ b, a, z }) => {
      const straight = mkdtempSync(join(root, 'straight-'))
      const m = await runInsertJob(insert(straight, '1'), { 'parallelism.default': '2', 'execution.worker-threads': 'true' })
      expect(Object.values(m.sourceSubtaskRecordsRead!)[0], 'one source subtask').toHaveLength(1)
      const one = mkdtempSync(join(root, 'one-'))
      await runInsertJob(insert(one, null), { 'parallelism.default': '1' })
      expect(debeziumRows(straight).sort()).toEqual(debeziumRows(one).sort())
      const out = mkdtempSync(join(root, 'out-'))
      await checkpointedThenRestored({ root, out, sql: insert(out, '1'), options: { 'pipeline.name': 'scan-parallelism', ...b.options(root) }, a, z,
        sourceRows: 18400, sourcesOnWorkers: true })
      expect(debeziumRows(out).sort()).toEqual(debeziumRows(one).sort())
    },
    240_000,
  )
})
