// The names of the REPL's INSERT jobs: a job resumes from the latest checkpoint or savepoint of its
// name, so an unnamed INSERT of a later session must not take an earlier session's name (it would
// silently go on from that session's savepoint, skipping input); a job named with 'pipeline.name'
// resumes across sessions, as with `weir run`.
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { ReplSession, type ReplOutput } from '../../../cli/repl/repl-session.js'

const SETUP = `CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '500', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '100000000');
CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');`

/** A REPL session (no terminal) with checkpoints in `dir`; what it printed. */
function session(dir: string): { repl: ReplSession; printed: string[] } {
  const printed: string[] = []
  const output: ReplOutput = {
    print: text => printed.push(text),
    selectStarted: () => () => undefined,
    selectEnded: () => undefined,
  }
  const options = { 'state.backend': 'heap', 'state.checkpoints.dir': join(dir, 'checkpoints'), 'execution.checkpointing.interval': '100 ms' }
  return { repl: new ReplSession(output, { options }), printed }
}

/** Runs `INSERT INTO out SELECT id FROM g` (after `before`) in a new session until it has read some rows, then quits, stopping it with a savepoint. */
async function insertAndQuit(dir: string, before = ''): Promise<{ name: string; printed: string[] }> {
  const { repl, printed } = session(dir)
  expect(await repl.submit(`${SETUP}${before}\nINSERT INTO out SELECT id FROM g;`)).toBe(true)
  const rowsIn = (): number => repl.runningJobs()[0]?.sample?.rowsIn ?? 0
  for (const deadline = Date.now() + 20_000; rowsIn() < 50 && Date.now() < deadline;) await new Promise(r => setTimeout(r, 20))
  const [job] = repl.runningJobs()
  await repl.close({ jobs: 'savepoint' })
  return { name: job!.name, printed }
}

describe('the REPL: job names', () => {
  it("names a session's unnamed INSERT jobs apart from another session's: a later session starts afresh", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-repl-names-'))
    const first = await insertAndQuit(dir)
    expect(first.printed.join('\n')).toMatch(/savepoint file:/)
    const second = await insertAndQuit(dir)
    // With the name of the first session's job, it would go on from that job's savepoint.
    expect(second.printed.join('\n')).not.toContain('resuming')
    expect(second.name).not.toBe(first.name)
    expect(second.name).toMatch(/^repl-[0-9a-z]{6}-1$/)
  })

  it("resumes a job named with 'pipeline.name' in a later session from its savepoint", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-repl-names-'))
    const named = "\nSET 'pipeline.name' = 'copy';"
    const first = await insertAndQuit(dir, named)
    expect(first.name).toBe('copy')
    const second = await insertAndQuit(dir, named)
    expect(second.printed.join('\n')).toContain("job 'copy': resuming from savepoint")
  })
})
