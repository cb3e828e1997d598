// ORDER BY a column or expression the query does not select: the key is a hidden select item, sorted on
// and projected away after the sort, so the rows (in order) equal DuckDB's and the columns are the selected
// ones only. Covers input columns, expressions over them, output aliases binding before input columns,
// aggregates of a GROUP BY query, LIMIT / FETCH, an INSERT into a sink with exactly the selected columns,
// a sort on hidden keys checkpointed, cancelled and restored, the streaming sort (time attribute first) in the
// plan, and the refusals (DISTINCT, UNION) with their caret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import { canonWeirRow, OracleData, rocksOptions } from './oracle.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { holdsEnd } from '../support/restore-runs.js'

const OPTIONS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap', options: () => ({ 'execution.batch-size': '13' }) },
  { name: 'rocksdb', options: rocksOptions },
]

let data: OracleData
beforeAll(async () => {
  data = await OracleData.create({ seed: 91, rows: 2000 })
}, 60_000)
afterAll(async () => {
  await data?.close()
})

/** Weir's rows in the order they came (every change an insert), canonical, and the result's column names. */
async function ordered(sql: string, options: Record<string, string>): Promise<{ rows: string[]; columns: string[] }> {
  const r = await data.weir(sql, options)
  expect(r.changes.every(c => c.kind === 0), 'a sorted result is insert-only').toBe(true)
  return { rows: r.changes.map(c => canonWeirRow(r.schema, c.row)), columns: r.schema.map(f => f.name) }
}

describe.each(OPTIONS)('ORDER BY what is not selected, vs DuckDB ($name)', ({ options }) => {
  it('input columns only: every row, in order, the selected columns only', async () => {
    const weir = await ordered('SELECT k, s FROM t ORDER BY v DESC, ts, b, k, s', options())
    const duck = await data.duck('SELECT k, s FROM t ORDER BY v DESC NULLS LAST, ts, b NULLS FIRST, k NULLS FIRST, s NULLS FIRST')
    expect(duck.length).toBe(2000)
    expect(weir.columns).toEqual(['k', 's'])
    expect(weir.rows).toEqual(duck)
  })

  it('expressions over input columns, with LIMIT', async () => {
    // MOD(v, 5) and UPPER(s) are hidden columns named $order0 and $order1 (in EXPLAIN only).
    const weir = await ordered('SELECT k, v FROM t WHERE v IS NOT NULL ORDER BY MOD(v, 5) DESC, UPPER(s), ts, b LIMIT 30', options())
    const duck = await data.duck(
      'SELECT k, v FROM t WHERE v IS NOT NULL ORDER BY (v % 5) DESC NULLS LAST, UPPER(s) NULLS FIRST, ts, b NULLS FIRST LIMIT 30',
    )
    expect(duck.length).toBe(30)
    expect(weir.columns).toEqual(['k', 'v'])
    expect(weir.rows).toEqual(duck)
  })

  it('an output alias binds before the input column of the same name; input columns after it', async () => {
    // `k` names the output column (v AS k), not t.k; ts and b are t's and not selected.
    const weir = await ordered('SELECT v AS k, k AS kk FROM t ORDER BY k DESC, kk, ts, b FETCH FIRST 40 ROWS ONLY', options())
    const duck = await data.duck('SELECT v AS k, k AS kk FROM t ORDER BY v DESC NULLS LAST, t.k NULLS FIRST, ts, b NULLS FIRST LIMIT 40')
    expect(weir.columns).toEqual(['k', 'kk'])
    expect(weir.rows).toEqual(duck)
  })

  it('aggregates a GROUP BY query does not select', async () => {
    const weir = await ordered('SELECT k FROM t GROUP BY k ORDER BY COUNT(*) DESC, SUM(v), k LIMIT 5', options())
    const duck = await data.duck('SELECT k FROM t GROUP BY k ORDER BY COUNT(*) DESC, SUM(v) NULLS FIRST, k NULLS FIRST LIMIT 5')
    expect(duck.length).toBe(5)
    expect(weir.columns).toEqual(['k'])
    expect(weir.rows).toEqual(duck)
  })
})

it('INSERT INTO a sink with exactly the selected columns', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'weir-order-hidden-'))
  try {
    const out = join(dir, 'o')
    const session = new Session({ println: () => undefined })
    await session.executeSql(`${data.ddl}
      CREATE TABLE out (k STRING) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
      INSERT INTO out SELECT k FROM t ORDER BY v DESC, ts, b LIMIT 10;`)
    await session.awaitJobs()
    const duck = await data.duck('SELECT k FROM t ORDER BY v DESC NULLS LAST, ts, b NULLS FIRST LIMIT 10')
    expect(duck.length).toBe(10)
    // The sink's rows read back sorted: the ten rows, the sink's one column.
    expect(debeziumRows(out)).toEqual(duck.map(k => JSON.stringify({ k: k === 'NULL' ? null : JSON.parse(k) as unknown })).sort())
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

describe('over a stream, and what is refused', () => {
  const gen = `CREATE TABLE g (id BIGINT, v INT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n`

  async function explain(sql: string): Promise<string> {
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`${gen}EXPLAIN ${sql};`)
    return (results.at(-1) as { text: string }).text
  }

  it('ORDER BY the time attribute then a column, neither selected: the streaming sort, the keys dropped after it', async () => {
    const text = await explain('SELECT id FROM g ORDER BY ts, v')
    expect(text).toMatch(/Calc\(select=\[id\][^\n]*\n\s*\+- TemporalSort\(orderBy=\[ts ASC, v ASC\], emit=\[as the watermark passes ts\]/)
  })

  it('ORDER BY … LIMIT over a stream: a Top-N on the hidden key', async () => {
    expect(await explain('SELECT id FROM g ORDER BY v DESC LIMIT 3')).toContain('orderBy=[v DESC]')
  })

  it.each([
    { sql: 'SELECT DISTINCT id FROM g ORDER BY v LIMIT 3', message: 'with SELECT DISTINCT, ORDER BY sorts by the selected columns only', at: '2:36' },
    { sql: 'SELECT id FROM g UNION ALL SELECT v FROM g ORDER BY ts LIMIT 3', message: 'ORDER BY after UNION sorts by its output columns only', at: '2:53' },
    { sql: 'SELECT v FROM g GROUP BY v ORDER BY id LIMIT 3', message: "'id'", at: '2:37' },
  ])('refuses: $message', async ({ sql, message, at }) => {
    const session = new Session({ println: () => undefined })
    const error = await session.executeSql(`${gen}${sql};`).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(WeirError)
    expect((error as WeirError).message).toContain(message)
    const span = (error as WeirError).span!
    expect(`${span.start.line}:${span.start.column}`).toBe(at)
  })
})

describe('a sort on hidden keys checkpointed, cancelled and restored', () => {
  const sql = (out: string): string =>
    `${data.ddl}
    CREATE TABLE out (k STRING) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    CREATE TABLE firsts (k STRING) WITH ('connector' = 'filesystem', 'path' = '${out}-firsts', 'format' = 'debezium-json');
    EXECUTE STATEMENT SET BEGIN
      INSERT INTO out SELECT k FROM t ORDER BY v DESC, ts, b LIMIT 30;
      INSERT INTO firsts SELECT k FROM t LIMIT 1500;
    END;`

  async function run(out: string, options: Record<string, string>, signal?: AbortSignal, onCheckpoint?: () => void): Promise<JobMetrics> {
    const session = new Session({ println: () => undefined, signal, faults: holdsEnd(signal), options: { 'pipeline.name': 'hidden-sort-job', ...options },
      onCheckpoint })
    await session.executeSql(sql(out))
    return (await session.awaitJobs())[0]!
  }

  it.each(OPTIONS)('$name: the same 30 rows as a straight run and as DuckDB', async ({ options }) => {
    const root = mkdtempSync(join(tmpdir(), 'weir-hidden-sort-restore-'))
    try {
      const straight = join(root, 'straight')
      await run(straight, options())
      const expected = debeziumRows(straight)
      const duck = await data.duck('SELECT k FROM t ORDER BY v DESC NULLS LAST, ts, b NULLS FIRST LIMIT 30')
      expect(expected).toEqual(duck.map(k => JSON.stringify({ k: k === 'NULL' ? null : JSON.parse(k) as unknown })).sort())

      const out = join(root, 'restored')
      const common = { ...options(), 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': join(root, 'chk'), 'execution.batch-size': '1',
        'table.exec.mini-batch.enabled': 'false' }
      const cancel = new AbortController()
      const first = await run(out, common, cancel.signal, () => {
        if (hasCommittedRows(`${out}-firsts`)) cancel.abort()
      })
      expect(first.cancelled).toBe(true)
      expect(debeziumRows(out), 'a cancelled sort emits nothing').toEqual([])
      const second = await run(out, common)
      expect(second.sourceRecordsRead, 'the restored run resumes from the checkpoint').toBeLessThan(2000)
      expect(debeziumRows(out)).toEqual(expected)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)
})
