// An operator that keeps its input rows in state keeps only the columns the query above it reads
// (columns are pruned): a changed SELECT can change the stored rows' shape. Restoring rows of the
// old shape into the new would read wrong values silently, so the restore is refused, naming the
// operator and the rows' columns; a change that keeps the shape restores as before.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isWeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { writeSeededRows } from '../support/seeded-rows.js'
import { holdSourceEndsUntil } from '../support/restore-runs.js'

let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-stored-rows-'))
  input = join(root, 'input.jsonl')
  writeSeededRows(input, { rows: 20_000, keys: 40, seed: 3 })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function run(select: string, checkpoints: string, cancelAt?: number): Promise<JobMetrics> {
  const cancel = new AbortController()
  const session = new Session({
    println: () => undefined,
    signal: cancel.signal,
    faults: cancelAt === undefined ? undefined : holdSourceEndsUntil(cancel.signal),
    options: { 'pipeline.name': 'stored-rows', 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints, 'execution.batch-size': '5' },
    onCheckpoint: (_job, id) => {
      if (cancelAt !== undefined && id >= cancelAt) cancel.abort()
    },
  })
  await session.executeSql(`
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (k STRING, a INT, b INT) WITH ('connector' = 'blackhole');
    INSERT INTO out ${select};`)
  const [m] = await session.awaitJobs()
  return m!
}

const JOIN = (left: string): string => `SELECT a.k, ${left}, b.v FROM t a JOIN t b ON a.k = b.k AND a.ts = b.ts`

it('a join whose stored rows gained a column is refused on restore, naming the operator and the columns', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  const first = await run(JOIN('a.v'), checkpoints, 1)
  expect(first.cancelled, 'the job must still run at its first checkpoint').toBe(true)
  // The left side now stores ts too (it is read above the join): rows of two columns would be read as three.
  const e = await run(JOIN('CAST(EXTRACT(SECOND FROM a.ts) AS INT)'), checkpoints).catch((x: unknown) => x)
  expect(isWeirError(e), String(e)).toBe(true)
  expect((e as Error).message).toMatch(/operator \S+ \(Join\) changed: rows \[.*\] → \[.*TIMESTAMP.*\]/)
})

it('a change above the join that keeps the stored rows restores', async () => {
  const checkpoints = mkdtempSync(join(root, 'chk-'))
  const first = await run(JOIN('a.v'), checkpoints, 1)
  expect(first.cancelled, 'the job must still run at its first checkpoint').toBe(true)
  const second = await run(JOIN('a.v + 1'), checkpoints)
  expect(second.cancelled).toBe(false)
})
