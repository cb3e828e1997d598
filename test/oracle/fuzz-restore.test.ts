// Random queries (fuzz-queries.ts) as INSERT jobs into an exactly-once debezium-json file sink: run
// straight, and checkpointed midway, cancelled and restored at another parallelism (restore-runs.ts),
// on heap and on RocksDB with a 64 kb cache. The straight run (at the first run's parallelism) must
// commit DuckDB's result, and the restored job the straight run's. More seeds:
// `WEIR_FUZZ_COUNT=100 WEIR_FUZZ_SEED=1000 npx vitest run test/oracle/fuzz-restore.test.ts`; to chase
// one query, WEIR_FUZZ_SQL (its text, the same in DuckDB), WEIR_FUZZ_CASE (the RESTORE_MATRIX entry
// instead of the seed's) and WEIR_FUZZ_OPTS (JSON options added to every run).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatType, withoutTimeAttr } from '../../common/types.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'
import { fuzzData, fuzzQuery, fuzzSeeds, weirText } from './fuzz-queries.js'
import { type OracleData, Rng, canonWeirRow, expectSameMultiset, materialize } from './oracle.js'

const ROWS = 300
const GIVEN_SQL = process.env['WEIR_FUZZ_SQL']
const GIVEN_CASE = process.env['WEIR_FUZZ_CASE']
const EXTRA_OPTIONS = JSON.parse(process.env['WEIR_FUZZ_OPTS'] ?? '{}') as Record<string, string>

const seeds = fuzzSeeds(6)

describe('random queries checkpointed and restored', () => {
  let data: OracleData
  let root: string
  beforeAll(async () => {
    data = await fuzzData(778, ROWS)
    root = mkdtempSync(join(tmpdir(), 'weir-fuzz-restore-'))
  })
  afterAll(async () => {
    await data?.close()
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  })

  it.each(seeds)('query of seed %i: restored output = straight output = DuckDB', async seed => {
    const q = GIVEN_SQL !== undefined ? { weir: GIVEN_SQL, duck: GIVEN_SQL, what: 'given' } : fuzzQuery(new Rng(seed))
    const { b, a, z } = RESTORE_MATRIX[Number(GIVEN_CASE ?? seed) % RESTORE_MATRIX.length]!
    const where = `${b.name}, ${a} → ${z}: ${q.what}\n${q.weir}`
    // The sink's columns are the query's, by position.
    const selected = await data.weir(weirText(q))
    const expected = await data.duck(q.duck)
    expectSameMultiset(materialize(selected.changes).map(row => canonWeirRow(selected.schema, row)), expected)
    const columns = selected.schema.map((f, i) => `f${i} ${formatType(withoutTimeAttr(f.type))}`).join(', ')
    const job = (out: string): string =>
      `${data.ddl}
      CREATE TABLE out (${columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
      ${q.views ?? ''}INSERT INTO out SELECT * FROM (${q.weir});`
    const straight = mkdtempSync(join(root, 'straight-'))
    const straightOptions = { 'parallelism.default': String(a), 'execution.worker-threads': 'true', 'execution.batch-size': '1' }
    await runInsertJob(job(straight), { ...b.options(root), ...straightOptions, ...EXTRA_OPTIONS })
    const expectedRows = debeziumRows(straight)
    expect(expectedRows.length, `the straight run committed every row of the result: ${where}`).toBe(expected.length)
    if (expected.length === 0) return
    const restored = mkdtempSync(join(root, 'restored-'))
    const scans = weirText(q).split(/\bFROM t\b|TABLE t\b/).length - 1
    // At a > 1 the first run keeps its subtasks on the job's thread, where the harness can hold every
    // source midway (a source read on a worker thread reads to its end; restore-runs.ts).
    await checkpointedThenRestored({ root, out: restored, sql: job(restored), options: { ...b.options(root), ...EXTRA_OPTIONS }, a, z, sourceRows: ROWS * scans,
      scans, holdAfter: ROWS / 2, sourcesOnWorkers: a > 1, cancelBeforeRows: true })
      .catch((e: unknown) => {
        throw new Error(`${where}\n${String(e)}`)
      })
    expect(debeziumRows(restored), where).toEqual(expectedRows)
  })
})
