// ORDER BY and LIMIT. Over a bounded input the rows come out once, in order, and must equal DuckDB's
// answer row for row (the keys cover every column, so the order is total; NULLs placed as Flink places
// them: first ascending, last descending), on heap and RocksDB, over append-only and updating inputs.
// LIMIT alone passes the first rows. Over unbounded streams: ORDER BY … LIMIT is a global Top-N, and
// ORDER BY alone is refused naming the unbounded table. A sort checkpointed midway and restored gives
// what a straight run gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { canonWeirRow, OracleData, rocksOptions } from './oracle.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'
import { holdsEnd } from '../support/restore-runs.js'

const OPTIONS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'execution.batch-size': '13' }) },
  { name: 'rocksdb', options: rocksOptions },
]

let data: OracleData
beforeAll(async () => {
  data = await OracleData.create({ seed: 57, rows: 3000 })
}, 60_000)
afterAll(async () => {
  await data?.close()
})

/** Weir's rows in the order they came (every change an insert), canonical. */
async function ordered(sql: string, options: Record<string, string>): Promise<string[]> {
  const r = await data.weir(sql, options)
  expect(r.changes.every(c => c.kind === 0), 'a sorted result is insert-only').toBe(true)
  return r.changes.map(c => canonWeirRow(r.schema, c.row))
}

describe.each(OPTIONS)('ORDER BY over a bounded input vs DuckDB ($name)', ({ options }) => {
  it('every row, by a DESC key then the rest ascending, NULLs as Flink places them', async () => {
    const weir = await ordered('SELECT v, k, s, ts FROM t ORDER BY v DESC, k, s, ts', options())
    const duck = await data.duck('SELECT v, k, s, ts FROM t ORDER BY v DESC NULLS LAST, k NULLS FIRST, s NULLS FIRST, ts')
    expect(duck.length).toBe(3000)
    expect(weir).toEqual(duck)
  })

  it('with LIMIT, by position and by an expression that is not selected', async () => {
    const weir = await ordered('SELECT k, v, s, ts FROM t WHERE v IS NOT NULL ORDER BY MOD(v, 7) DESC, 4, 1, 3 LIMIT 25', options())
    const duck = await data.duck(
      'SELECT k, v, s, ts FROM t WHERE v IS NOT NULL ORDER BY (v % 7) DESC NULLS LAST, ts, k NULLS FIRST, s NULLS FIRST LIMIT 25',
    )
    expect(duck.length).toBe(25)
    expect(weir).toEqual(duck)
  })

  it('over an updating input (a GROUP BY), its final rows in order', async () => {
    const weir = await ordered('SELECT k, COUNT(*) AS n, SUM(v) AS sv FROM t GROUP BY k ORDER BY n DESC, k LIMIT 5', options())
    const duck = await data.duck('SELECT k, COUNT(*) AS n, SUM(v) AS sv FROM t GROUP BY k ORDER BY n DESC, k NULLS FIRST LIMIT 5')
    expect(weir).toEqual(duck)
  })

  it('LIMIT alone passes the first rows in arrival order', async () => {
    const weir = await ordered('SELECT k, v, ts FROM t LIMIT 17', options())
    const first = data.events.slice(0, 17).map(e => [e.k, e.v, e.ts])
    const r = await data.weir('SELECT k, v, ts FROM t LIMIT 1', options())
    expect(weir).toEqual(first.map(row => canonWeirRow([...r.schema], row)))
  })
})

it('FETCH FIRST n ROWS ONLY is LIMIT n', async () => {
  const weir = await ordered('SELECT k, v FROM t ORDER BY v, k FETCH FIRST 6 ROWS ONLY', {})
  expect(weir).toEqual(await data.duck('SELECT k, v FROM t ORDER BY v NULLS FIRST, k NULLS FIRST LIMIT 6'))
})

describe('ORDER BY and LIMIT over unbounded streams', () => {
  const gen = `CREATE TABLE g (id BIGINT, v INT) WITH ('connector' = 'datagen', 'fields.v.min' = '0', 'fields.v.max' = '1000');\n`

  it('ORDER BY … LIMIT n is a global Top-N (a Rank over no partition key, updating)', async () => {
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`${gen}EXPLAIN SELECT id, v FROM g ORDER BY v DESC LIMIT 3;`)
    const text = (results.at(-1) as { text: string }).text
    expect(text).toContain(
      'Rank(rankType=[ROW_NUMBER], rankRange=[1..3], partitionBy=[(none: one global partition)], orderBy=[v DESC], outputRank=[false], changelog=[updating])',
    )
    expect(text).toContain('Exchange(distribution=[single])')
  })

  it('LIMIT alone is the first rows, insert-only', async () => {
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`${gen}EXPLAIN SELECT id FROM g LIMIT 3;`)
    expect((results.at(-1) as { text: string }).text).toContain('Limit(fetch=[3], changelog=[insert-only])')
  })

  it.each([
    { sql: 'SELECT id, v FROM g ORDER BY v', message: "ORDER BY without LIMIT needs a bounded input, but 'g' (connector 'datagen') is unbounded", at: '2:30' },
    { sql: 'SELECT v, COUNT(*) FROM g GROUP BY v LIMIT 3', message: 'LIMIT without ORDER BY over an updating stream is not supported', at: '2:38' },
    { sql: 'SELECT id FROM g ORDER BY 3 LIMIT 1', message: 'ORDER BY 3: the query has 1 column', at: '2:27' },
    { sql: 'SELECT id FROM g ORDER BY nope LIMIT 1', message: "'nope'", at: '2:27' },
    { sql: 'SELECT id FROM g ORDER BY id LIMIT -1', message: 'LIMIT takes a whole number of rows', at: '2:36' },
  ])('refuses: $message', async ({ sql, message, at }) => {
    const session = new Session({ println: () => undefined })
    const error = await session.executeSql(`${gen}${sql};`).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(WeirError)
    expect((error as WeirError).message).toContain(message)
    const span = (error as WeirError).span!
    expect(`${span.start.line}:${span.start.column}`).toBe(at)
  })
})

describe('a sort checkpointed, cancelled and restored', () => {
  let root: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'weir-sort-restore-'))
  })
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
  })

  const sql = (out: string): string =>
    `${data.ddl}
    CREATE TABLE out (k STRING, v INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    CREATE TABLE firsts (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '${out}-firsts', 'format' = 'debezium-json');
    EXECUTE STATEMENT SET BEGIN
      INSERT INTO out SELECT k, v, s FROM t ORDER BY v DESC, k, s LIMIT 40;
      INSERT INTO firsts SELECT k, v FROM t LIMIT 2500;
    END;`

  async function run(out: string, options: Record<string, string>, signal?: AbortSignal, onCheckpoint?: () => void): Promise<JobMetrics> {
    const session = new Session({ println: () => undefined, signal, faults: holdsEnd(signal), options: { 'pipeline.name': 'sort-job', ...options },
      onCheckpoint })
    await session.executeSql(sql(out))
    return (await session.awaitJobs())[0]!
  }

  it.each(OPTIONS)('$name: the same 40 rows and first 2500 rows as a straight run', async ({ options }) => {
    const straight = join(mkdtempSync(join(root, 'straight-')), 'o')
    await run(straight, options())
    const expected = debeziumRows(straight)
    expect(expected).toHaveLength(40)
    expect(debeziumRows(`${straight}-firsts`)).toHaveLength(2500)

    const out = join(mkdtempSync(join(root, 'restored-')), 'o')
    const common = { ...options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' }
    const cancel = new AbortController()
    const first = await run(out, common, cancel.signal, () => {
      if (hasCommittedRows(`${out}-firsts`)) cancel.abort()
    })
    expect(first.cancelled).toBe(true)
    expect(debeziumRows(out), 'a cancelled sort emits nothing').toEqual([])
    const second = await run(out, common)
    expect(second.sourceRecordsRead).toBeLessThan(3000)
    expect(debeziumRows(out)).toEqual(expected)
    expect(debeziumRows(`${out}-firsts`)).toEqual(debeziumRows(`${straight}-firsts`))
  }, 120_000)
})
