// A table of INSERT queries over one seeded input (test/support/seeded-rows.ts), each run three ways
// into an exactly-once debezium-json sink: straight on heap; then, for each entry of a restore
// matrix, checkpointed at one parallelism on worker threads, cancelled after a checkpoint that
// committed rows, and restored at another. The committed changelog of every restored run must
// materialize to the straight run's rows. The restore tests of one operator family differ only in
// their cases and in what makes a straight run's rows worth comparing, which `checkStraight` says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { debeziumRows } from './debezium-files.js'
import { writeSeededRows } from './seeded-rows.js'
import { type Backend, checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from './restore-runs.js'

export type Row = Record<string, unknown>

export interface RestoreCase {
  readonly name: string
  /** The sink's columns; the suite's `columns` where absent. */
  readonly columns?: string
  /** What is inserted: a query over `t` (k STRING, v INT, ts TIMESTAMP(3)). */
  readonly query: string
  /** Applied to each materialized row before comparing (for orders that may differ from run to run). */
  readonly normalize?: (row: Row) => Row
}

export interface RestoreSuite<C extends RestoreCase> {
  /** The job's name, and the prefix of the temporary folder. */
  readonly name: string
  readonly seeded: { readonly rows: number; readonly keys: number; readonly seed: number }
  readonly cases: readonly C[]
  readonly columns?: string
  /** Statements before the tables (CREATE FUNCTION …). */
  readonly prelude?: string
  /** Whether `t` has a watermark (ts - 2 s); true where absent. */
  readonly watermark?: boolean
  /** How many rows the job's sources read in all when run straight (a self-join reads `t` twice). */
  readonly sourceRows?: (c: C) => number
  /** Where checkpoints are taken (a) and restored (z); RESTORE_MATRIX where absent. */
  readonly matrix?: readonly { readonly b: Backend; readonly a: number; readonly z: number }[]
  /** Asserts the straight run's rows hold what the case means to test (several values per group…); `input` is the seeded file. */
  readonly checkStraight: (rows: readonly string[], c: C, input: string) => void
  /** Asserted of every run's rows, straight and restored. */
  readonly checkEach?: (rows: readonly string[]) => void
}

/** Declares one `describe` per case: the straight run in its `beforeAll`, a test per matrix entry. */
export function describeRestoreCases<C extends RestoreCase>(suite: RestoreSuite<C>): void {
  let root: string
  let input: string
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), `weir-${suite.name}-`))
    input = join(root, 'input.jsonl')
    writeSeededRows(input, suite.seeded)
  })
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
  })

  const watermark = suite.watermark === false ? '' : `, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND`
  const sql = (c: C, out: string): string =>
    `${suite.prelude ?? ''}
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)${watermark})
      WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (${c.columns ?? suite.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${c.query};`
  const job = { 'pipeline.name': `${suite.name}-job` }
  const rowsOf = (c: C, out: string): string[] => {
    const rows = debeziumRows(out, c.normalize)
    suite.checkEach?.(rows)
    return rows
  }

  describe.each(suite.cases)('$name', c => {
    let expected: string[]
    beforeAll(async () => {
      const out = mkdtempSync(join(root, 'straight-'))
      const metrics = await runInsertJob(sql(c, out), { ...job, 'state.backend': 'heap', 'execution.batch-size': '1' })
      expect(metrics.cancelled).toBe(false)
      expected = rowsOf(c, out)
      suite.checkStraight(expected, c, input)
    }, 120_000)

    it.each(suite.matrix ?? RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
      const out = mkdtempSync(join(root, 'out-'))
      await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { ...job, ...b.options(root) }, a, z,
        sourceRows: suite.sourceRows?.(c) ?? suite.seeded.rows, holdAfter: Math.floor(suite.seeded.rows / a / 2) })
      expect(rowsOf(c, out)).toEqual(expected)
    }, 240_000)
  })
}
