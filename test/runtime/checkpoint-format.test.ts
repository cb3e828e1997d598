// Checkpoints and savepoints written by an earlier Weir (manifest format 'weir-checkpoint/1', made
// by fixtures/checkpoint-format-1/generate.mjs) restore, on the backend that took them and into
// another parallelism, with the state they held; onto the other backend they are refused, saying so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { isWeirError } from '../../common/errors.js'

const FIXTURES = join(import.meta.dirname, 'fixtures', 'checkpoint-format-1')
// The job the fixtures were taken of: 20,000 seeded rows, a count and a sum per key.
const SQL = `
CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen', 'seed' = '7', 'number-of-rows' = '20000', 'rows-per-second' = '40000',
  'fields.k.min' = '0', 'fields.k.max' = '39', 'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '1000000');
CREATE TABLE out (k INT, c BIGINT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;`

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-format-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

type Backend = 'heap' | 'rocksdb'

/** Runs the job; returns the last change printed per key, and the restore log. */
async function run(backend: Backend, parallelism: number, checkpoints: string, from?: string): Promise<{ last: Map<string, string>; log: string[] }> {
  const last = new Map<string, string>()
  const log: string[] = []
  const session = new Session({
    println: line => {
      const m = /^([+-][IUD])\[(\d+), (.*)\]$/.exec(line)
      if (m) last.set(m[2]!, `${m[1]} ${m[3]}`)
    },
    log: l => log.push(l),
    options: {
      'pipeline.name': 'v1',
      'state.backend': backend,
      'state.dir': mkdtempSync(join(root, 'state-')),
      'state.checkpoints.dir': checkpoints,
      'execution.checkpointing.interval': '5 ms',
      'execution.batch-size': '50',
      'parallelism.default': String(parallelism),
      'table.exec.mini-batch.enabled': 'false',
    },
    recovery: { from },
  })
  await session.executeSql(SQL)
  const [metrics] = await session.awaitJobs()
  expect(metrics!.cancelled).toBe(false)
  return { last, log }
}

/** A copy of a fixture's checkpoint folder, and its savepoint's folder if it has one. */
function copyOf(fixture: string): { checkpoints: string; savepoint: string | undefined } {
  const checkpoints = mkdtempSync(join(root, `${fixture}-`))
  cpSync(join(FIXTURES, fixture), checkpoints, { recursive: true })
  const savepoint = readdirSync(join(checkpoints, 'v1')).find(f => f.startsWith('savepoint-'))
  return { checkpoints, savepoint: savepoint === undefined ? undefined : join(checkpoints, 'v1', savepoint) }
}

describe('checkpoints of manifest format 1', () => {
  let expected: Map<string, string>
  beforeAll(async () => {
    expected = (await run('heap', 1, mkdtempSync(join(root, 'straight-')))).last
    expect(expected.size).toBe(40)
  })

  const cases = (['heap', 'rocksdb'] as const).flatMap(backend =>
    (['checkpoint', 'savepoint'] as const).flatMap(kind => [2, 3].map(p => ({ backend, kind, p })))
  )
  it.each(cases)('a $backend $kind restores at parallelism $p with its state', async ({ backend, kind, p }) => {
    const { checkpoints, savepoint } = copyOf(`${backend}-${kind}`)
    const { last, log } = await run(backend, p, checkpoints, kind === 'savepoint' ? savepoint : undefined)
    expect(log.join('\n')).toMatch(kind === 'savepoint' ? /starting from savepoint 2\b/ : /resuming from checkpoint 2\b/)
    // Restored without its state, a key's count and sum would start over: the last changes would differ.
    expect(last).toEqual(expected)
  })

  it.each([['heap', 'rocksdb'], ['rocksdb', 'heap']] as const)('a %s checkpoint is refused by the %s backend, saying how to restore it', async (was, now) => {
    const { checkpoints } = copyOf(`${was}-checkpoint`)
    // Given explicitly: resuming on its own, Weir skips a checkpoint it cannot restore for an older one.
    const e = await run(now, 2, checkpoints, join(checkpoints, 'v1', 'chk-2')).catch((x: unknown) => x)
    expect(isWeirError(e)).toBe(true)
    expect((e as Error).message).toMatch(new RegExp(`checkpoint '.*/v1/chk-2' holds ${was} state, but 'state.backend' is now '${now}'`))
    expect((e as { help?: string }).help).toBe(
      `set 'state.backend' = '${was}' to restore it (a savepoint taken on either backend restores onto the same backend)`,
    )
  })
})
