// Statement sets: `EXECUTE STATEMENT SET BEGIN INSERT …; INSERT …; END` (and `BEGIN STATEMENT SET; …
// END;`) run their INSERTs as one job that reads each source table once. Each sink's rows must equal
// DuckDB's answer to its INSERT's query over the same input (on heap and RocksDB), the source must be
// read once for all of them, and a run checkpointed, cancelled and restored at another parallelism
// must commit the same rows to every sink as a straight run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { parseSql } from '../../grammar/index.js'
import { WeirError } from '../../common/errors.js'
import { splitStatements } from '../../grammar/statements.js'
import { T, type Field } from '../../common/types.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { canonWeirRow, expectSameMultiset, OracleData, rocksDir } from '../oracle/oracle.js'
import { debeziumRows, hasCommittedRows } from '../support/debezium-files.js'
import { holdsEnd } from '../support/restore-runs.js'

let root: string
let data: OracleData

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'weir-statement-set-'))
  data = await OracleData.create({ seed: 23, rows: 4000 })
}, 60_000)
afterAll(async () => {
  await data?.close()
  rmSync(root, { recursive: true, force: true })
})

interface Sink {
  readonly name: string
  readonly fields: readonly Field[]
  readonly weir: string
  readonly duck: string
}

// Three readers of `t` with different columns: a pushed-down filter, and two aggregates (one updating per key).
const SINKS: readonly Sink[] = [
  {
    name: 'by_k',
    fields: [{ name: 'k', type: T.string() }, { name: 'c', type: T.bigint() }, { name: 's', type: T.int() }],
    weir: 'SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k',
    duck: 'SELECT k, COUNT(*), SUM(v) FROM t GROUP BY k',
  },
  {
    name: 'big_v',
    fields: [{ name: 'k', type: T.string() }, { name: 'v', type: T.int() }, { name: 'w', type: T.string() }],
    weir: 'SELECT k, v, s FROM t WHERE v > 80',
    duck: 'SELECT k, v, s FROM t WHERE v > 80',
  },
  {
    name: 'by_s',
    fields: [{ name: 'w', type: T.string() }, { name: 'm', type: T.int() }],
    weir: 'SELECT s, MAX(v) FROM t WHERE k IS NOT NULL GROUP BY s',
    duck: 'SELECT s, MAX(v) FROM t WHERE k IS NOT NULL GROUP BY s',
  },
]

const columnsOf = (s: Sink): string => s.fields.map(f => `${f.name} ${f.type.kind}`).join(', ')

function script(out: string, form: 'execute' | 'begin'): string {
  const sinks = SINKS.map(s =>
    `CREATE TABLE ${s.name} (${columnsOf(s)}) WITH ('connector' = 'filesystem', 'path' = '${join(out, s.name)}', 'format' = 'debezium-json');`
  ).join('\n')
  const inserts = SINKS.map(s => `  INSERT INTO ${s.name} ${s.weir};`).join('\n')
  const set = form === 'execute' ? `EXECUTE STATEMENT SET BEGIN\n${inserts}\nEND;` : `BEGIN STATEMENT SET;\n${inserts}\nEND;`
  return `${data.ddl}\n${sinks}\n${set}`
}

/** A sink's committed rows in the oracle's canonical form. */
function sinkRows(out: string, s: Sink): string[] {
  return debeziumRows(join(out, s.name)).map(text => {
    const o = JSON.parse(text) as Record<string, unknown>
    return canonWeirRow(s.fields, s.fields.map(f => o[f.name]))
  })
}

async function run(out: string, options: Record<string, string>, signal?: AbortSignal, onCheckpoint?: (id: number) => void,
  form: 'execute' | 'begin' = 'execute'): Promise<{ metrics: JobMetrics; jobs: number }>
{
  const session = new Session({
    println: () => undefined,
    signal,
    // The sources' ends held until the cancel: the job still runs at the checkpoint that triggers it.
    faults: holdsEnd(signal),
    options: { 'pipeline.name': 'statement-set-job', ...options },
    onCheckpoint: (_job, id) => onCheckpoint?.(id),
  })
  await session.executeSql(script(out, form))
  const all = await session.awaitJobs()
  return { metrics: all[0]!, jobs: all.length }
}

describe.each([
  { name: 'heap', options: (): Record<string, string> => ({ 'execution.batch-size': '7' }), form: 'execute' as const },
  { name: 'rocksdb', options: (): Record<string, string> => ({ 'state.backend': 'rocksdb', 'state.cache.size': '64 kb', 'state.dir': rocksDir() }),
    form: 'begin' as const },
])('a statement set of three INSERTs vs DuckDB ($name, $form form)', ({ options, form }) => {
  it("gives each sink its query's rows, in one job that reads the table once", async () => {
    const out = mkdtempSync(join(root, 'oracle-'))
    const { metrics, jobs } = await run(out, options(), undefined, undefined, form)
    expect(jobs).toBe(1)
    expect(metrics.sourceRecordsRead, 'one source for the three readers of t').toBe(data.events.length)
    for (const s of SINKS) {
      const expected = await data.duck(s.duck)
      expect(expected.length).toBeGreaterThan(3)
      expectSameMultiset(sinkRows(out, s), expected)
    }
  }, 120_000)
})

describe('a statement set checkpointed, cancelled and restored', () => {
  let expected: string[][]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    const { metrics } = await run(out, { 'execution.batch-size': '1', 'table.exec.mini-batch.enabled': 'false' })
    expect(metrics.cancelled).toBe(false)
    expected = SINKS.map(s => sinkRows(out, s))
  }, 120_000)

  it.each([
    { backend: 'heap', a: 1, z: 2 },
    { backend: 'rocksdb', a: 2, z: 1 },
  ])('$backend: checkpointed at p=$a, restored at p=$z, every sink commits what a straight run does', async ({ backend, a, z }) => {
    const out = mkdtempSync(join(root, 'restored-'))
    const options: Record<string, string> = {
      'state.backend': backend,
      ...(backend === 'rocksdb' ? { 'state.cache.size': '64 kb', 'state.dir': mkdtempSync(join(root, 'state-')) } : {}),
      'execution.checkpointing.interval': '5 ms',
      'state.checkpoints.dir': mkdtempSync(join(root, 'chk-')),
      'execution.batch-size': '1',
      'table.exec.mini-batch.enabled': 'false',
    }
    const cancel = new AbortController()
    const first = await run(out, { ...options, 'parallelism.default': String(a) }, cancel.signal, id => {
      if (id >= 1 && SINKS.every(s => hasCommittedRows(join(out, s.name)))) cancel.abort()
    })
    expect(first.metrics.cancelled).toBe(true)
    const second = await run(out, { ...options, 'parallelism.default': String(z) })
    expect(second.metrics.cancelled).toBe(false)
    expect(second.metrics.sourceRecordsRead, 'the restored run resumed midway').toBeLessThan(data.events.length)
    SINKS.forEach((s, i) => expect(sinkRows(out, s), s.name).toEqual(expected[i]!.slice().sort()))
  }, 240_000)
})

describe('statement set syntax', () => {
  const ddl = `CREATE TABLE src (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
    CREATE TABLE o1 (a INT) WITH ('connector' = 'blackhole');
    CREATE TABLE o2 (b STRING) WITH ('connector' = 'blackhole');\n`

  it('parses both forms, and EXPLAIN STATEMENT SET shows one source read twice', async () => {
    const [set] = parseSql('EXECUTE STATEMENT SET BEGIN INSERT INTO o1 SELECT a FROM src; INSERT INTO o2 SELECT b FROM src; END')
    expect(set?.kind).toBe('StatementSet')
    const stmts = parseSql('BEGIN STATEMENT SET; INSERT INTO o1 SELECT a FROM src;; END; SELECT 1')
    expect(stmts.map(s => s.kind)).toEqual(['StatementSet', 'QueryStatement'])
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(
      `${ddl} EXPLAIN STATEMENT SET BEGIN INSERT INTO o1 SELECT a FROM src WHERE a > 0; INSERT INTO o2 SELECT b FROM src; END;`,
    )
    const plan = results.at(-1)!
    expect(plan.kind).toBe('explain')
    const text = (plan as { text: string }).text
    expect(text.match(/Source\(table=\[src\]/g)?.length).toBe(1)
    expect(text).toContain('(reuse_id=[1])')
    expect(text).toContain('Reused(reference_id=[1])')
    expect(text).toMatch(/Sink\(table=\[o1\][\s\S]*Sink\(table=\[o2\]/)
  })

  it.each([
    {
      sql: 'EXECUTE STATEMENT SET BEGIN INSERT INTO o1 SELECT a FROM src;\n  SELECT b FROM src; END;',
      message: 'a statement set holds INSERT statements only, not a SELECT',
      at: '2:3',
    },
    { sql: "BEGIN STATEMENT SET;\nCREATE TABLE x (a INT) WITH ('connector' = 'blackhole');\nEND;", message: 'not CREATE TABLE', at: '2:1' },
    { sql: 'EXECUTE STATEMENT SET BEGIN END;', message: 'a statement set needs at least one INSERT', at: '1:1' },
    { sql: 'BEGIN STATEMENT SET;\nINSERT INTO o1 SELECT a FROM src;', message: 'the statement set at line 1 has no END', at: '2:34' },
  ])('refuses $message', ({ sql, message, at }) => {
    let error: WeirError | undefined
    try {
      parseSql(sql)
    } catch (e) {
      error = e as WeirError
    }
    expect(error).toBeInstanceOf(WeirError)
    expect(error!.message).toContain(message)
    expect(`${error!.span?.start.line}:${error!.span?.start.column}`).toBe(at)
  })

  it('a REPL reads a statement set to its END as one statement', () => {
    const open = splitStatements('BEGIN STATEMENT SET;\nINSERT INTO o1 SELECT a FROM src;\n')
    expect(open.statements).toEqual([])
    expect(open.restIsBlank).toBe(false)
    const text = "BEGIN STATEMENT SET;\nINSERT INTO o1 SELECT a FROM src; -- END;\nINSERT INTO o2 SELECT 'END;' FROM src;\nEND;\nSELECT 1;"
    const done = splitStatements(text)
    expect(done.statements.map(s => s.text.trim())).toEqual([text.slice(0, text.indexOf('END;\nSELECT') + 4), 'SELECT 1;'])
  })
})
