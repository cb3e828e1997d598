// Sinks that split (blackhole) run as parallel subtasks, chained to their input's subtasks on the same
// worker threads (runtime/sink-parallelism.ts, threads.ts): every row is written once, by the subtask of
// the thread that produced it; 'sink.parallelism' sets another number (REBALANCE or HASH by the primary
// key in between, as Flink), bad values are refused; checkpoints pass through the sink subtasks on the
// workers, and a job restores at another parallelism.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { renderError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { MAIN_THREAD, threadOf } from '../../runtime/threads.js'
import { subtaskWorkersRunning, subtaskWorkersStarted } from '../../runtime/worker-pool.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, runInsertJob } from '../support/restore-runs.js'

const root = mkdtempSync(join(tmpdir(), 'weir-parallel-sinks-'))
const ROWS = 18400

const bid = (scan = ''): string => `
  CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING)
  WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '20000'${scan});`
const blackhole = (name: string, columns: string, sinkParallelism?: string): string =>
  `CREATE TABLE ${name} (${columns}) WITH ('connector' = 'blackhole'${sinkParallelism === undefined ? '' : `, 'sink.parallelism' = '${sinkParallelism}'`});`

const options = (p: number): Record<string, string> => ({
  'parallelism.default': String(p),
  'execution.worker-threads': String(p > 1),
  'execution.batch-size': '256',
})

/** Runs `sql` (its last statement the INSERT) at parallelism `p`; the job's metrics. */
async function run(sql: string, p: number): Promise<JobMetrics> {
  const before = subtaskWorkersStarted()
  const m = await runInsertJob(sql, options(p))
  expect(subtaskWorkersStarted() - before, 'worker threads started').toBe(p - 1)
  return m
}

/** The JSON execution plan's node for the sink: its parallelism and how rows reach it. */
async function sinkPlan(sql: string, insert: string, p: number): Promise<{ parallelism: number; ship: string }> {
  const session = new Session({ println: () => undefined, options: options(p) })
  const results = await session.executeSql(`${sql}\nEXPLAIN JSON_EXECUTION_PLAN ${insert};`)
  const last = results.at(-1)
  if (last?.kind !== 'explain') throw new Error(`expected an explanation, got ${last?.kind}`)
  const json = JSON.parse(last.text.slice(last.text.indexOf('{'))) as {
    nodes: { pact: string; parallelism: number; predecessors?: { ship_strategy: string }[] }[]
  }
  const sink = json.nodes.find(n => n.pact === 'Data Sink')!
  return { parallelism: sink.parallelism, ship: sink.predecessors![0]!.ship_strategy }
}

/** The rows each subtask of the sink of table `table` got, by subtask index. */
const sinkSubtaskRows = (m: JobMetrics): number[] => m.subtasks.filter(s => s.kind === 'Sink').sort((a, b) => a.subtask - b.subtask).map(s => s.rowsIn)

/** The message (with its SQL position when it has one) of what `sql` at parallelism 2 fails with. */
async function failure(sql: string): Promise<string> {
  const session = new Session({ println: () => undefined, options: options(2) })
  try {
    await session.executeSql(sql)
    await session.awaitJobs()
  } catch (e) {
    return renderError(e, sql)
  }
  throw new Error('expected the statement to fail')
}

describe('sinks that split run as parallel subtasks', () => {
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
    expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
  })

  it('places sink subtask i on worker i, beside its input subtask; subtask 0 and a sink at one subtask on the job thread', () => {
    const t = (x: unknown): Parameters<typeof threadOf>[0] => x as Parameters<typeof threadOf>[0]
    const sink = (index: number, parallelism: number): unknown => ({ node: { spec: { kind: 'Sink', options: {} } }, index, parallelism })
    expect(threadOf(t(sink(1, 2)), true, 2)).toBe(1)
    expect(threadOf(t(sink(2, 3)), true, 3)).toBe(2)
    expect(threadOf(t(sink(0, 2)), true, 2)).toBe(MAIN_THREAD)
    expect(threadOf(t(sink(0, 1)), true, 2)).toBe(MAIN_THREAD)
    expect(threadOf(t(sink(1, 2)), false, 2)).toBe(MAIN_THREAD)
  })

  it.each([2, 3])('p=%i: a projection into a blackhole is written by p sink subtasks, FORWARD, every row once', async p => {
    const sql = `${bid()}\n${blackhole('bh', 'auction BIGINT, price BIGINT')}`
    const insert = 'INSERT INTO bh SELECT auction, price FROM bid'
    expect(await sinkPlan(sql, insert, p)).toEqual({ parallelism: p, ship: 'FORWARD' })
    const one = await run(`${sql}\n${insert};`, 1)
    expect(one.sinkRows['bh']).toBe(ROWS)
    const m = await run(`${sql}\n${insert};`, p)
    expect(m.sinkRows['bh']).toBe(ROWS)
    const perSubtask = sinkSubtaskRows(m)
    expect(perSubtask).toHaveLength(p)
    // Chained: each sink subtask wrote exactly what the source subtask on its thread read.
    const sources = m.subtasks.filter(s => s.kind === 'Source').sort((a, b) => a.subtask - b.subtask).map(s => s.rowsOut)
    expect(perSubtask).toEqual(sources)
    expect(perSubtask.every(n => n > 0), `every sink subtask wrote rows: ${perSubtask}`).toBe(true)
  }, 60_000)

  it('an updating input into a blackhole keyed by its primary key goes by HASH of the key, each key staying on its thread', async () => {
    const sql = `${bid()}\n${blackhole('agg', 'k BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED')}`
    const insert = 'INSERT INTO agg SELECT MOD(auction, 13), COUNT(*) FROM bid GROUP BY MOD(auction, 13)'
    expect(await sinkPlan(sql, insert, 2)).toEqual({ parallelism: 2, ship: 'HASH[k]' })
    const m = await run(`SET 'table.exec.mini-batch.enabled' = 'false';\n${sql}\n${insert};`, 2)
    // Mini-batch off, the blackhole ignoring -U: one change per bid, as at p = 1.
    expect(m.sinkRows['agg']).toBe(ROWS)
    const perSubtask = sinkSubtaskRows(m)
    const aggregates = m.subtasks.filter(s => s.kind === 'GroupAggregate').sort((a, b) => a.subtask - b.subtask).map(s => s.rowsOut)
    expect(perSubtask, 'the sink subtask owning a key is the one that aggregates it').toEqual(aggregates)
  }, 60_000)

  it("'sink.parallelism' below the input's: GLOBAL into one subtask; above it: REBALANCE (insert-only) or HASH by the key (updating)", async () => {
    const global = `${bid()}\n${blackhole('bh', 'auction BIGINT, price BIGINT', '1')}`
    const project = 'INSERT INTO bh SELECT auction, price FROM bid'
    expect(await sinkPlan(global, project, 2)).toEqual({ parallelism: 1, ship: 'GLOBAL' })
    expect(sinkSubtaskRows(await run(`${global}\n${project};`, 2))).toEqual([ROWS])

    const spread = `${bid(`, 'scan.parallelism' = '1'`)}\n${blackhole('bh', 'auction BIGINT, price BIGINT', '2')}`
    expect(await sinkPlan(spread, project, 2)).toEqual({ parallelism: 2, ship: 'REBALANCE' })
    const m = await run(`${spread}\n${project};`, 2)
    expect(m.sinkRows['bh']).toBe(ROWS)
    const perSubtask = sinkSubtaskRows(m)
    expect(perSubtask).toHaveLength(2)
    expect(perSubtask.every(n => n > 0), `both subtasks wrote rows: ${perSubtask}`).toBe(true)

    const keyed = `${bid()}\n${blackhole('total', 'k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED', '2')}`
    const count = 'INSERT INTO total SELECT MOD(CAST(auction AS INT), 3), COUNT(*) FROM bid GROUP BY MOD(CAST(auction AS INT), 3)'
    expect(await sinkPlan(keyed, count, 2)).toEqual({ parallelism: 2, ship: 'HASH[k]' })
    const globalAgg = 'INSERT INTO total SELECT 1, COUNT(*) FROM bid'
    expect(await sinkPlan(keyed, globalAgg, 2)).toEqual({ parallelism: 2, ship: 'HASH[k]' })
    expect((await run(`SET 'table.exec.mini-batch.enabled' = 'false';\n${keyed}\n${globalAgg};`, 2)).sinkRows['total']).toBe(ROWS)
  }, 60_000)

  it("refuses a bad 'sink.parallelism', naming the table or pointing at the option", async () => {
    for (const bad of ['two', '0', '-1', '1.5']) {
      const sql = `${bid()}\n${blackhole('bh', 'a BIGINT', bad)}`
      const text = await failure(sql)
      expect(text).toContain(`invalid value '${bad}' for option 'sink.parallelism': expected a whole number from 1`)
      expect(text).toMatch(/--> <sql>:4:\d+/)
    }
    expect(await failure(`${bid()}\n${blackhole('bh', 'a BIGINT', '3')}\nINSERT INTO bh SELECT auction FROM bid;`)).toContain(
      `table 'bh': 'sink.parallelism' = '3' is not a whole number from 1 to 'parallelism.default' = 2`,
    )
    expect(await failure(`${bid(`, 'scan.parallelism' = '1'`)}\n${blackhole('bh', 'a BIGINT, n BIGINT', '2')}
      INSERT INTO bh SELECT 1, COUNT(*) FROM bid;`)).toContain(
      `table 'bh': 'sink.parallelism' = 2 differs from the parallelism of its input (1), whose rows are updates, and the table has no PRIMARY KEY`,
    )
  }, 60_000)

  it("refuses 'sink.parallelism' on sinks that write with one subtask, naming the connector", async () => {
    const fs = await failure(`CREATE TABLE f (a BIGINT) WITH ('connector' = 'filesystem', 'path' = '${root}/f', 'format' = 'json', 'sink.parallelism' = '2');`)
    expect(fs).toContain(`connector 'filesystem' writes with one subtask: it does not take 'sink.parallelism'`)
    const print = await failure(`CREATE TABLE p (a BIGINT) WITH ('connector' = 'print', 'sink.parallelism' = '2');`)
    expect(print).toContain(`connector 'print' writes with one subtask`)
    // 1 is what print does anyway.
    const session = new Session({ println: () => undefined })
    await session.executeSql(`CREATE TABLE p (a BIGINT) WITH ('connector' = 'print', 'sink.parallelism' = '1');`)
  })

  it.each([{ a: 2, z: 1 }, { a: 1, z: 2 }, { a: 3, z: 2 }])(
    'checkpointed at p=$a with the blackhole split, cancelled, restored at p=$z: every row once',
    async ({ a, z }) => {
      // One job, two sinks: a filesystem table (one subtask, exactly-once, the oracle) and a split blackhole.
      const sql = (out: string): string =>
        `${bid()}
        CREATE TABLE out (k BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
        ${blackhole('bh', 'auction BIGINT, price BIGINT')}
        EXECUTE STATEMENT SET BEGIN
          INSERT INTO out SELECT MOD(auction, 13), COUNT(*), SUM(price) FROM bid GROUP BY MOD(auction, 13);
          INSERT INTO bh SELECT auction, price FROM bid;
        END;`
      const one = mkdtempSync(join(root, 'one-'))
      const straight = await runInsertJob(sql(one), { 'parallelism.default': '1' })
      expect(straight.sinkRows['bh']).toBe(ROWS)
      const out = mkdtempSync(join(root, 'out-'))
      const runs: JobMetrics[] = []
      await checkpointedThenRestored({ root, out, sql: sql(out), options: { 'pipeline.name': `parallel-sinks-${a}-${z}` }, a, z, sourceRows: ROWS,
        onRun: m => runs.push(m) })
      expect(debeziumRows(out).sort()).toEqual(debeziumRows(one).sort())
      const [first, second] = runs as [JobMetrics, JobMetrics]
      // The filesystem sink's one subtask, and the blackhole's a (then z).
      expect(sinkSubtaskRows(first)).toHaveLength(1 + a)
      expect(sinkSubtaskRows(second)).toHaveLength(1 + z)
      // The restored run wrote to the split blackhole every row it read, once.
      expect(second.sinkRows['bh']).toBe(second.sourceRecordsRead)
    },
    240_000,
  )
})
