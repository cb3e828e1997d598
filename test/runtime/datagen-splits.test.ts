// datagen split at parallelism N on worker threads (datagen-splits.ts): a GROUP BY over a sequence
// field must equal its known answer at p = 1, 2, 3, and checkpointed and restored 1 → 2, 2 → 1 and
// 2 → 3 on heap and RocksDB (the splits re-mapped): every row once.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { subtaskWorkersRunning } from '../../runtime/worker-pool.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const ROWS = 3000
let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-datagen-splits-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
  expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
})

const sql = (out: string): string =>
  `CREATE TABLE g (id BIGINT, r INT) WITH ('connector' = 'datagen', 'number-of-rows' = '${ROWS}', 'rows-per-second' = '10000000',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000', 'seed' = '5');
  CREATE TABLE out (k BIGINT, n BIGINT, total BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  INSERT INTO out SELECT id % 13, COUNT(*), SUM(id) FROM g GROUP BY id % 13;`

/** The answer: ids 1..ROWS grouped by id mod 13. */
function expected(): string[] {
  const groups = new Map<number, [number, number]>()
  for (let id = 1; id <= ROWS; id++) {
    const g = groups.get(id % 13) ?? [0, 0]
    groups.set(id % 13, [g[0] + 1, g[1] + id])
  }
  return [...groups].map(([k, [n, total]]) => JSON.stringify({ k, n, total })).sort()
}
const written = (out: string): string[] => debeziumRows(out).sort()

describe('datagen split across subtasks', () => {
  it.each([1, 2, 3])('at p = %i on worker threads: every row once, each subtask making its share', async p => {
    const out = mkdtempSync(join(root, 'p-'))
    const m = await runInsertJob(sql(out), { 'parallelism.default': String(p), 'execution.worker-threads': 'true' })
    const bySubtask = Object.values(m.sourceSubtaskRecordsRead!)[0]!
    expect(bySubtask).toHaveLength(p)
    for (const n of bySubtask) expect(n).toBe(Math.floor(ROWS / p))
    expect(written(out)).toEqual(expected())
  }, 120_000)

  it.each(RESTORE_BACKENDS.flatMap(b => [[1, 2], [2, 1], [2, 3]].map(([a, z]) => ({ b, a: a!, z: z! }))))(
    '$b.name: checkpointed at p=$a, cancelled, restored at p=$z',
    async ({ b, a, z }) => {
      const out = mkdtempSync(join(root, 'out-'))
      await checkpointedThenRestored({ root, out, sql: sql(out), options: { 'pipeline.name': 'datagen-splits', ...b.options(root) }, a, z, sourceRows: ROWS })
      expect(written(out)).toEqual(expected())
    },
    240_000,
  )
})
