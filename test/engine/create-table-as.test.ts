// CREATE TABLE … AS SELECT: the new table's columns come from the query (after any declared in its
// CREATE part, which keep their place and type), and the query fills it as one job. The rows written
// are checked against DuckDB over the same input; the schema through DESCRIBE and SHOW CREATE TABLE;
// bad forms are refused where they are, and a failed CTAS leaves no table behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session, type StatementResult } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import { T, type Field } from '../../common/types.js'
import { canonWeirRow, expectSameMultiset, OracleData } from '../oracle/oracle.js'
import { debeziumRows } from '../support/debezium-files.js'

let root: string
let data: OracleData

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'weir-ctas-'))
  data = await OracleData.create({ seed: 31, rows: 3000 })
}, 60_000)
afterAll(async () => {
  await data?.close()
  rmSync(root, { recursive: true, force: true })
})

async function runSql(sql: string): Promise<{ results: StatementResult[]; session: Session }> {
  const session = new Session({ println: () => undefined })
  const results = await session.executeSql(`${data.ddl}\n${sql}`)
  await session.awaitJobs()
  return { results, session }
}

/** A DESCRIBE result as `name type null key` lines. */
function described(r: StatementResult | undefined): string[] {
  if (r?.kind !== 'table') throw new Error(`expected a table, got ${r?.kind}`)
  return r.rows.map(row => row.slice(0, 4).join(' ').trim())
}

function rowsOf(dir: string, fields: readonly Field[]): string[] {
  return debeziumRows(dir).map(text => {
    const o = JSON.parse(text) as Record<string, unknown>
    return canonWeirRow(fields, fields.map(f => o[f.name]))
  })
}

describe('CREATE TABLE … AS SELECT', () => {
  it('takes its columns from the query (a time attribute becomes a plain TIMESTAMP) and is filled by it', async () => {
    const out = join(root, 'plain')
    const { results } = await runSql(`
      CREATE TABLE big WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json')
        AS SELECT k, v * 2 AS v2, s, ts FROM t WHERE v > 50;
      DESCRIBE big;`)
    expect(results.find(r => r.kind === 'job')).toBeDefined()
    expect(described(results.at(-1))).toEqual(['k STRING TRUE', 'v2 INT TRUE', 's STRING TRUE', 'ts TIMESTAMP(3) TRUE'])
    const fields = [{ name: 'k', type: T.string() }, { name: 'v2', type: T.int() }, { name: 's', type: T.string() }]
    const expected = await data.duck('SELECT k, v * 2, s FROM t WHERE v > 50')
    expect(expected.length).toBeGreaterThan(10)
    expectSameMultiset(rowsOf(out, fields), expected)
  }, 120_000)

  it('keeps declared columns first, with their types and a primary key, NULL where the query has no value', async () => {
    const out = join(root, 'declared')
    const { results } = await runSql(`
      CREATE TABLE per_key (extra STRING, total BIGINT, k STRING, PRIMARY KEY (k) NOT ENFORCED)
        WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json')
        AS SELECT k, SUM(v) AS total, COUNT(*) AS n FROM t WHERE k IS NOT NULL GROUP BY k;
      DESCRIBE per_key;
      SHOW CREATE TABLE per_key;`)
    expect(described(results.at(-2))).toEqual(['extra STRING TRUE', 'total BIGINT TRUE', 'k STRING FALSE PRI(k)', 'n BIGINT FALSE'])
    const ddl = (results.at(-1) as { text: string }).text
    expect(ddl).toContain('PRIMARY KEY (`k`) NOT ENFORCED')
    const fields = [{ name: 'extra', type: T.string() }, { name: 'total', type: T.bigint() }, { name: 'k', type: T.string() }, { name: 'n', type: T.bigint() }]
    const expected = await data.duck('SELECT NULL, SUM(v), k, COUNT(*) FROM t WHERE k IS NOT NULL GROUP BY k')
    expectSameMultiset(rowsOf(out, fields), expected)
  }, 120_000)

  it('with IF NOT EXISTS and the table there, inserts nothing', async () => {
    const { results, session } = await runSql(`
      CREATE TABLE there (k STRING) WITH ('connector' = 'blackhole');
      CREATE TABLE IF NOT EXISTS there WITH ('connector' = 'blackhole') AS SELECT k, v FROM t;`)
    expect(results.at(-1)).toEqual({ kind: 'ok', message: "'there' already exists; nothing inserted" })
    expect(session.listJobs('insert')).toHaveLength(0)
  })

  it.each([
    {
      sql: `CREATE TABLE c (x AS 1) WITH ('connector' = 'blackhole') AS SELECT k FROM t`,
      message: "CREATE TABLE … AS SELECT declares physical columns only, and 'x' is a computed column",
    },
    { sql: `CREATE TABLE c WITH ('connector' = 'blackhole') AS SELECT k, v AS k FROM t`, message: "produces two columns named 'k'" },
    {
      sql: `CREATE TABLE c (must INT NOT NULL) WITH ('connector' = 'blackhole') AS SELECT k FROM t`,
      message: "column 'must' is NOT NULL, but the query of CREATE TABLE … AS SELECT does not produce it",
    },
    { sql: `CREATE TABLE c WITH ('connector' = 'blackhole') LIKE t AS SELECT k FROM t`, message: 'from LIKE or from AS SELECT, not both' },
    { sql: `CREATE TABLE c WITH ('connector' = 'datagen') AS SELECT k FROM t`, message: 'cannot be written to' },
  ])('refuses: $message', async ({ sql, message }) => {
    const session = new Session({ println: () => undefined })
    await session.executeSql(data.ddl)
    const error = await session.executeSql(sql).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(WeirError)
    expect((error as WeirError).message).toContain(message)
    expect((error as WeirError).span).toBeDefined()
    // Nothing was left behind: the name is free.
    await expect(session.executeSql(`CREATE TABLE c (a INT) WITH ('connector' = 'blackhole')`)).resolves.toBeDefined()
  })
})
