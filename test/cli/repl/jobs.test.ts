// The REPL's jobs, driven in Ink as a user drives them: an INSERT started in the background, SHOW
// JOBS, STOP JOB with and without a savepoint (and the job resumed from it), an unknown id, the
// question asked when quitting with jobs running, the status line's numbers, and failures of
// background jobs (their caret, and the statements after them).
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup } from 'ink-testing-library'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { CTRL_C, CTRL_D, DOWN, ENTER, ESC, lastLine, prompt, start, typeLine, until, type Driven } from './drive.js'

/** Checkpoints in a folder of the test's own, every 200 ms. */
function checkpointed(): { dir: string; options: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'weir-repl-jobs-'))
  return { dir, options: { 'state.checkpoints.dir': join(dir, 'checkpoints'), 'execution.checkpointing.interval': '200 ms' } }
}

const SEQUENCE = (rate: number, end = 100_000_000) =>
  `CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '${rate}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${end}');`

/** The rows of SHOW JOBS on the screen: [id, name, status, uptime, rows in, rows out, last checkpoint (its age)]. */
function jobRows(frame: string): string[][] {
  const at = frame.lastIndexOf('|   job id |')
  if (at < 0) return []
  return frame.slice(at).split('\n').slice(2).filter(l => /^\| +[0-9a-f]{8} \|/.test(l)).map(l => l.split('|').slice(1, -1).map(c => c.trim()))
}

/** The session's first unnamed INSERT job started (its name is the session's own: repl-<tag>-1), and its name. */
const FIRST_JOB = /job '(repl-[0-9a-z]{6}-1)' started in the background/

/** The id the REPL printed for a job it started. */
function idOf(frame: string, name: string): string {
  const m = new RegExp(`job '${name}' started in the background, id '([0-9a-f]{8})'`).exec(frame)
  if (m === null) throw new Error(`no id printed for ${name}:\n${frame}`)
  return m[1]!
}

/** Runs SHOW JOBS until a job's row passes `ok`. */
async function showJobsUntil(app: Driven, ok: (row: string[]) => boolean): Promise<string[]> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    await prompt(app)
    const before = (app.lastFrame() ?? '').split('rows in set').length + (app.lastFrame() ?? '').split('row in set').length
    await typeLine(app, 'SHOW JOBS;')
    const f = await until(app, f => f.split('rows in set').length + f.split('row in set').length > before)
    const row = jobRows(f).find(ok)
    if (row !== undefined) return row
    await new Promise(r => setTimeout(r, 200))
  }
  throw new Error(`SHOW JOBS never showed the row expected:\n${app.lastFrame()}`)
}

/** Quits, stopping the jobs still running without savepoints (a test leaves no job behind). */
async function quitCancelling(app: Driven): Promise<void> {
  await prompt(app)
  app.stdin.write(CTRL_D)
  await new Promise(r => setTimeout(r, 50))
  app.stdin.write('c')
  await until(app, f => !lastLine(f).startsWith('weir>') && !/\d+ jobs? (is|are) running:/.test(f))
}

/** A REPL with checkpoints on, running `INSERT INTO out <query>` into a blackhole over `SEQUENCE(rate, end)`: the app and the job's id. */
async function withInsert(query: string, rate = 500, end?: number): Promise<{ app: Driven; id: string; name: string; dir: string }> {
  const { dir, options } = checkpointed()
  const app = start([], options)
  await prompt(app)
  await typeLine(app, SEQUENCE(rate, end))
  await typeLine(app, `CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');`)
  await typeLine(app, `INSERT INTO out ${query};`)
  const f = await until(app, f => FIRST_JOB.test(f))
  const name = FIRST_JOB.exec(f)![1]!
  return { app, id: idOf(f, name), name, dir }
}

afterEach(() => cleanup())

describe('the REPL: jobs', () => {
  it('lists a running INSERT job with SHOW JOBS: id, name, status, uptime, rows in and out, last checkpoint', async () => {
    const { app, id, name } = await withInsert('SELECT id FROM g WHERE id % 2 = 0')
    const row = await showJobsUntil(app, r => r[0] === id && r[6] !== '-' && Number(r[4]!.replace(/,/g, '')) > 100)
    expect(row.slice(0, 3)).toEqual([id, name, 'RUNNING'])
    expect(row[3]).toMatch(/^\d+ s$/)
    // Rows in are what the source read, rows out what reached the sink: half of them.
    const rowsIn = Number(row[4]!.replace(/,/g, '')), rowsOut = Number(row[5]!.replace(/,/g, ''))
    expect(rowsOut).toBeGreaterThan(0)
    expect(rowsOut).toBeLessThan(rowsIn)
    // The last checkpoint this run completed, and how long ago.
    expect(row[6]).toMatch(/^\d+ \(\d+ s ago\)$/)
    await quitCancelling(app)
  })

  it('stops a job with STOP JOB WITH SAVEPOINT, printing the path, and the job resumes from it', async () => {
    const { dir, options } = checkpointed()
    const outDir = join(dir, 'out')
    const app = start([], options)
    await prompt(app)
    await typeLine(app, SEQUENCE(400, 1500))
    await typeLine(app, `CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${outDir}', 'format' = 'csv');`)
    // Named, the job finds its savepoint when it runs again (as `weir run` resumes a file's job).
    await typeLine(app, "SET 'pipeline.name' = 'copy';")
    await typeLine(app, 'INSERT INTO out SELECT id FROM g;')
    let f = await until(app, f => f.includes("job 'copy' started in the background"))
    const id = idOf(f, 'copy')
    await showJobsUntil(app, r => r[0] === id && Number(r[5]!.replace(/,/g, '')) > 200)
    await typeLine(app, `STOP JOB '${id}' WITH SAVEPOINT;`)
    // The path may wrap at the screen's edge.
    f = await until(app, f => new RegExp(`job 'copy' \\(${id}\\) stopped with a savepoint:\\s+file:\\S+savepoint-\\d+\n`).test(f))
    const path = /stopped with a savepoint:\s+(\S+)/.exec(f)![1]!
    const folder = fileURLToPath(path)
    expect(existsSync(join(folder, '_metadata'))).toBe(true)
    const stopped = await showJobsUntil(app, r => r[0] === id)
    expect(stopped[2]).toBe('FINISHED')
    // Its last checkpoint is the savepoint it stopped with.
    expect(stopped[6]).toMatch(new RegExp(`^${/savepoint-(\d+)$/.exec(path)![1]} \\(\\d+ s ago\\)$`))

    // Run again, the job resumes from the savepoint: every row of the sequence is written once.
    await typeLine(app, 'INSERT INTO out SELECT id FROM g;')
    f = await until(app, f => /job 'copy' finished: /.test(f))
    expect(f).toContain(`job 'copy': resuming from savepoint`)
    const ids = readdirSync(outDir).filter(n => !n.startsWith('.')).flatMap(n => readFileSync(join(outDir, n), 'utf8').trim().split('\n')).map(Number)
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 1500 }, (_, i) => i + 1))
    await quitCancelling(app)
  })

  it('stops a job with STOP JOB without a savepoint: CANCELED, no savepoint taken', async () => {
    const { app, id, name, dir } = await withInsert('SELECT id FROM g')
    await typeLine(app, `STOP JOB '${id}';`)
    const f = await until(app, f => f.includes(`job '${name}' (${id}) stopped\n`))
    expect(f).not.toContain('savepoint')
    const row = await showJobsUntil(app, r => r[0] === id)
    expect(row[2]).toBe('CANCELED')
    expect(readdirSync(join(dir, 'checkpoints', name)).filter(n => n.startsWith('savepoint'))).toEqual([])
    // A job that has ended cannot be stopped again: said at its id.
    await typeLine(app, `STOP JOB '${id}' WITH SAVEPOINT;`)
    const again = await until(app, f => f.includes('is not running') && lastLine(f) === `weir> STOP JOB '${id}' WITH SAVEPOINT;`)
    expect(again).toContain([`error: job '${name}' (${id}) is not running: it is CANCELED`, ' --> <repl>:1:10'].join('\n'))
    expect(again).toContain('help: SHOW JOBS lists the jobs of this session and their status')
    app.stdin.write('\x15') // Ctrl-U: the statement came back into the editor
    await quitCancelling(app)
  })

  it('refuses STOP JOB of an unknown id with a caret under it and a help line naming SHOW JOBS', async () => {
    const app = start()
    await prompt(app)
    await typeLine(app, "STOP JOB 'abcd1234' WITH SAVEPOINT;")
    const f = await until(app, f => f.includes('help:'))
    expect(f).toContain(
      ["error: no job with id 'abcd1234' in this session", ' --> <repl>:1:10', '  |', "1 | STOP JOB 'abcd1234' WITH SAVEPOINT;", '  |          ^^^^^^^^^^']
        .join('\n'),
    )
    expect(f).toContain('help: SHOW JOBS lists the jobs of this session and their ids')
    expect(lastLine(f)).toBe("weir> STOP JOB 'abcd1234' WITH SAVEPOINT;")
  })

  it('asks when quitting with a job running; Esc goes back, and stopping with savepoints prints each path', async () => {
    const { app, name } = await withInsert('SELECT id FROM g')
    await prompt(app)
    app.stdin.write(CTRL_D)
    let f = await until(app, f => f.includes('1 job is running'))
    expect(f).toMatch(
      /1 job is running: 'repl-[0-9a-z]{6}-1' \([0-9a-f]{8}\)\n❯ \(s\) stop them with savepoints, then quit\n {2}\(c\) stop them without savepoints, then quit\n {2}\(w\) keep waiting/,
    )
    app.stdin.write(ESC)
    f = await prompt(app)
    expect(lastLine(f)).toBe('weir>')
    // Asked again; the first answer (↓ then ↑ come back to it) with Enter.
    app.stdin.write(CTRL_D)
    await until(app, f => f.includes('❯ (s)'))
    app.stdin.write(DOWN)
    await until(app, f => f.includes('❯ (c)'))
    app.stdin.write('\x1b[A')
    await until(app, f => f.includes('❯ (s)'))
    app.stdin.write(ENTER)
    // The path may wrap at the screen's edge.
    f = await until(app, f => new RegExp(`job '${name}': savepoint\\s+file:`).test(f) && !f.includes('❯'))
    const path = /job 'repl-[0-9a-z]{6}-1': savepoint\s+(file:\S+)/.exec(f)![1]!
    expect(existsSync(join(fileURLToPath(path), '_metadata'))).toBe(true)
    expect(f).not.toContain('weir>\n')
  })

  it('keeps waiting when asked to, and quits when the job has finished', async () => {
    const { app, name } = await withInsert('SELECT id FROM g', 500, 1000)
    await prompt(app)
    app.stdin.write(CTRL_D)
    await until(app, f => f.includes('1 job is running'))
    app.stdin.write('w')
    await until(app, f => f.includes(`waiting for '${name}' to finish`))
    const f = await until(app, f => f.includes(`job '${name}' finished: 1,000 rows read, 1,000 rows written`) && !f.includes('waiting for'))
    expect(f).not.toContain('savepoint')
  })

  it('stops the jobs it waits for with savepoints on Ctrl-C', async () => {
    const { app, name } = await withInsert('SELECT id FROM g')
    await prompt(app)
    app.stdin.write(CTRL_D)
    await until(app, f => f.includes('1 job is running'))
    app.stdin.write('w')
    await until(app, f => f.includes(`waiting for '${name}' to finish · Ctrl-C stops them with savepoints`))
    app.stdin.write(CTRL_C)
    const f = await until(app, f => new RegExp(`job '${name}': savepoint\\s+file:`).test(f) && !f.includes('waiting for'))
    expect(f).toMatch(new RegExp(`job '${name}' stopped: [\\d,]+ rows? read`))
  })

  it('shows the watermark and rows/s in and out of a running event-time query in its status line', async () => {
    const app = start()
    await prompt(app)
    await typeLine(
      app,
      "CREATE TABLE e (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');",
    )
    await typeLine(app, 'SELECT id, ts FROM e WHERE id % 4 = 0;')
    // One row in four comes out; the watermark follows the rows' times (1970-01-01 00:00:<id> less 1 s).
    const f = await until(app, f => /in [1-9][\d,]* rows\/s · out [1-9][\d,]* rows\/s · watermark 1970-01-01 00:0\d:\d\d\.000/.test(f))
    const [, rateIn, rateOut] = /in ([\d,]+) rows\/s · out ([\d,]+) rows\/s/.exec(f)!
    expect(Number(rateOut!.replace(/,/g, ''))).toBeLessThan(Number(rateIn!.replace(/,/g, '')))
    app.stdin.write(ESC)
    await until(app, f => f.includes("query 'repl-select-1' stopped"))
  })

  it("says 'watermark none' for a query without event time", async () => {
    const app = start()
    await prompt(app)
    await typeLine(app, SEQUENCE(200))
    await typeLine(app, 'SELECT id FROM g;')
    await until(app, f => /in [1-9][\d,]* rows\/s · out [1-9][\d,]* rows\/s · watermark none/.test(f))
    app.stdin.write(ESC)
    await until(app, f => f.includes("query 'repl-select-1' stopped"))
  })
})

describe('the REPL: background jobs that fail', () => {
  /** Starts an INSERT that fails (division by zero) at row `at` of a sequence read at `rate` rows/s. */
  async function failingInsert(app: Driven, rate: number, at: number): Promise<void> {
    await typeLine(app, SEQUENCE(rate))
    await typeLine(app, `CREATE TABLE out (id BIGINT, q BIGINT) WITH ('connector' = 'blackhole');`)
    await typeLine(app, `INSERT INTO out SELECT id, 1000 / (id - ${at}) FROM g;`)
    await until(app, f => FIRST_JOB.test(f))
  }

  it("draws a background INSERT's failure against its own statement, not the text typed since", async () => {
    const app = start()
    await prompt(app)
    // A second and a half before it fails: another statement is typed meanwhile.
    await failingInsert(app, 20, 30)
    await prompt(app)
    await typeLine(app, 'SHOW TABLES;')
    const f = await until(app, f => f.includes('division by zero') && f.includes('note: input row'))
    expect(f).toContain('1 | INSERT INTO out SELECT id, 1000 / (id - 30) FROM g;')
    expect(f).not.toContain('1 | SHOW TABLES;')
  })

  it("runs later statements after a job failed and 'weir.on-job-failure' stopped the others", async () => {
    const app = start()
    await prompt(app)
    await typeLine(app, "SET 'weir.on-job-failure' = 'stop';")
    await failingInsert(app, 200, 3)
    await until(app, f => f.includes('division by zero'))
    await prompt(app)
    await typeLine(app, 'SELECT id FROM g WHERE id < 4;')
    const f = await until(app, f => f.includes("running 'repl-select-1'") || f.includes('not running'))
    expect(f).not.toContain('a job failed: not running')
    app.stdin.write(ESC)
    await until(app, f => f.includes("query 'repl-select-1' stopped"))
  })
})
