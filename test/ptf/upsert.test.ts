// A process function declared changelog: 'upsert' emits the latest row per (PARTITION BY columns,
// upsertKey) and deletes by key. A consumer that retracts (a GROUP BY, a debezium sink) gets it through
// a ChangelogNormalize: DuckDB's GROUP BY over the function's final rows (the harness's output with its
// upserts applied) is the oracle, straight on heap and RocksDB and checkpointed then restored at
// another parallelism. An upsert sink keyed by the upsert key, print and blackhole take it as it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import { defineProcessFunction } from '../../ptf/api.js'
import { harness } from '../../testing/index.js'
import { loadProcessFunction } from '../../ptf/load.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const MODULES = resolve(import.meta.dirname, 'modules')
const ROWS = 1500
const payments = Array.from({ length: ROWS }, (_, i) => ({ card_id: `c${(i * 7) % 13}`, amount: ((i * 7919) % 1000) / 4 }))

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-upsert-'))
  writeFileSync(join(root, 'p.jsonl'), payments.map(p => JSON.stringify(p)).join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const ddl = (out: string, columns: string): string => `
  CREATE TABLE p (card_id STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${join(root, 'p.jsonl')}', 'format' = 'json');
  CREATE TABLE out (${columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  CREATE FUNCTION latest AS '${MODULES}/latest.ts';`
const CALL = 'latest(input => TABLE p PARTITION BY card_id)'
const GROUPED = `SELECT bucket, COUNT(*) AS cards, SUM(n) AS total, MAX(last) AS top FROM ${CALL} GROUP BY bucket`
const groupSql = (out: string): string => `${ddl(out, 'bucket INT, cards BIGINT, total BIGINT, top DOUBLE')}\nINSERT INTO out ${GROUPED};`
const rowsSql = (out: string): string => `${ddl(out, 'card_id STRING, bucket INT, n BIGINT, last DOUBLE')}\nINSERT INTO out SELECT * FROM ${CALL};`

/** The function's final rows: the harness's output over all payments, each upsert and delete applied by key. */
async function finalRows(): Promise<Map<string, Record<string, unknown>>> {
  const h = await harness(await loadProcessFunction(`${MODULES}/latest.ts`, 'TYPESCRIPT'), { partitionBy: ['card_id'] })
  for (const p of payments) h.processElement(p)
  const rows = new Map<string, Record<string, unknown>>()
  h.output.forEach((r, i) => {
    const key = `${String(r['card_id'])}|${String(r['bucket'])}`
    if (h.kinds[i] === '-D') rows.delete(key)
    else rows.set(key, r)
  })
  return rows
}

/** DuckDB's GROUP BY over the final rows, as the debezium sink's rows read back. */
async function groupOracle(): Promise<string[]> {
  const db = await DuckDBInstance.create(':memory:')
  const c = await db.connect()
  await c.run('CREATE TABLE f (card_id VARCHAR, bucket INTEGER, n BIGINT, last DOUBLE)')
  const values = [...(await finalRows()).values()].map(r => `('${String(r['card_id'])}', ${String(r['bucket'])}, ${String(r['n'])}, ${String(r['last'])})`)
  await c.run(`INSERT INTO f VALUES ${values.join(', ')}`)
  const result = await c.runAndReadAll(GROUPED.replace(CALL, 'f'))
  const out = result.getRows().map(([bucket, cards, total, top]) => JSON.stringify({ bucket, cards: Number(cards), total: Number(total), top }))
  c.closeSync()
  db.closeSync()
  return out.sort()
}

describe.each(RESTORE_BACKENDS)("changelog: 'upsert' on $name", b => {
  it('a GROUP BY over it equals DuckDB over its final rows', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(groupSql(out), b.options(root))
    const expected = await groupOracle()
    expect(expected.length).toBe(5)
    expect(debeziumRows(out)).toEqual(expected)
  })

  it('a changelog sink ends with its final rows (deletes by key remove the whole row)', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(rowsSql(out), b.options(root))
    const expected = [...(await finalRows()).values()].map(r => JSON.stringify(r)).sort()
    expect(expected.length).toBeLessThan(13 * 5) // some bucket 0 rows were deleted
    expect(debeziumRows(out)).toEqual(expected)
  })
})

describe('checkpointed and restored', () => {
  it.each([
    { b: RESTORE_BACKENDS[0]!, a: 1, z: 3 },
    { b: RESTORE_BACKENDS[1]!, a: 2, z: 1 },
  ])('on $b.name from parallelism $a to $z, the GROUP BY over it equals DuckDB', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: groupSql(out), options: b.options(root), a, z, sourceRows: ROWS })
    expect(debeziumRows(out)).toEqual(await groupOracle())
  })
})

async function explain(sink: string, select = `SELECT * FROM ${CALL}`): Promise<string> {
  const session = new Session({ println: () => undefined, explainOnly: true })
  const results = await session.executeSql(`${ddl(join(root, 'x'), 'card_id STRING, bucket INT, n BIGINT, last DOUBLE')}
    CREATE TABLE hole (card_id STRING, bucket INT, n BIGINT, last DOUBLE) WITH ('connector' = 'blackhole');
    CREATE TABLE shown (card_id STRING, bucket INT, n BIGINT, last DOUBLE) WITH ('connector' = 'print');
    CREATE TABLE up (card_id STRING, bucket INT, n BIGINT, last DOUBLE, PRIMARY KEY (card_id, bucket) NOT ENFORCED)
      WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'value.format' = 'json');
    CREATE TABLE by_card (card_id STRING, bucket INT, n BIGINT, last DOUBLE, PRIMARY KEY (card_id) NOT ENFORCED)
      WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'value.format' = 'json');
    EXPLAIN INSERT INTO ${sink} ${select};`)
  return (results.at(-1) as { text: string }).text
}

describe('the planner knows the upsert key', () => {
  it('an upsert sink keyed by it, print and blackhole take the upserts as they are', async () => {
    for (const sink of ['up', 'shown', 'hole']) {
      const text = await explain(sink)
      expect(text, sink).not.toContain('ChangelogNormalize')
      expect(text, sink).not.toContain('UpsertMaterialize')
      expect(text, sink).toMatch(
        /ProcessFunction\(function=\[latest\], partitionBy=\[card_id\], output=\[bucket, n, last\], upsertKey=\[card_id, bucket\], changelog=\[updating, no -U\]\)/,
      )
    }
    // Through a projection that keeps the key.
    expect(await explain('up', `SELECT card_id, bucket, n * 2, last FROM ${CALL}`)).not.toContain('ChangelogNormalize')
  })

  it('a GROUP BY, a changelog sink, a filter and an upsert sink keyed otherwise get retractions', async () => {
    expect(await explain('out', GROUPED.replace('SELECT', 'SELECT CAST(NULL AS STRING), bucket, cards, top FROM (SELECT') + ')')).toMatch(
      /ChangelogNormalize\(key=\[card_id, bucket\], changelog=\[updating\]\)/,
    )
    expect(await explain('out')).toContain('ChangelogNormalize(key=[card_id, bucket]')
    expect(await explain('up', `SELECT * FROM ${CALL} WHERE n > 1`)).toContain('ChangelogNormalize(key=[card_id, bucket]')
    expect(await explain('by_card')).toContain('ChangelogNormalize(key=[card_id, bucket]')
  })
})

describe('declarations and emits', () => {
  const base = { input: { amount: 'DOUBLE' }, output: { bucket: 'INT', n: 'BIGINT' }, process() {} } as const
  it.each([
    [{ changelog: 'upsert' }, "changelog: 'upsert' needs upsertKey: the output columns that identify a row"],
    [{ changelog: 'upsert', upsertKey: ['card'] }, 'upsertKey column "card" is not an output column (output: bucket, n)'],
    [{ changelog: 'upsert', upsertKey: ['n', 'n'] }, "upsertKey names 'n' twice"],
    [{ changelog: 'upsert', upsertKey: 'n' }, 'upsertKey must be an array of output column names, got "n"'],
    [{ changelog: 'retract', upsertKey: ['n'] }, "upsertKey is declared but changelog is not 'upsert'"],
  ])('%j is refused', (extra, message) => {
    expect(() => defineProcessFunction({ ...base, ...extra } as never)).toThrow(message)
  })

  it("an upsert function that emits a '-U' fails, naming the function", async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const e = await runInsertJob(`${ddl(out, 'card_id STRING, amount DOUBLE')}
      CREATE FUNCTION bad AS '${MODULES}/upsert-retracting.ts';
      INSERT INTO out SELECT * FROM bad(input => TABLE p PARTITION BY card_id);`, { 'state.backend': 'heap' }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toMatch(
      /process function 'bad' failed on key \[c\d+\] .*: emitted a '-U' row, but the function's output is an upsert stream/,
    )
  })

  it('the harness shows the upserts and deletes as the function emits them', async () => {
    const h = await harness(await loadProcessFunction(`${MODULES}/latest.ts`, 'TYPESCRIPT'), { partitionBy: ['card_id'] })
    for (const amount of [10, 20, 210]) h.processElement({ card_id: 'a', amount })
    expect(h.take()).toEqual([
      { card_id: 'a', bucket: 0, n: 1, last: 10 },
      { card_id: 'a', bucket: 0, n: 2, last: 20 },
      { card_id: 'a', bucket: 0, n: null, last: null },
      { card_id: 'a', bucket: 4, n: 1, last: 210 },
    ])
    expect(h.kinds).toEqual(['+I', '+U', '-D', '+I'])
  })
})
