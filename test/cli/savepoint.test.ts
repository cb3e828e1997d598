// `weir savepoint FILE.sql` against what a user can leave behind: a pid file of a run killed with -9
// whose pid now belongs to an unrelated process (never signalled), a job that has nowhere to write
// a savepoint (a failure, not a success), and a savepoint that is reported only with its location
// once its metadata is there. Also: `weir run` where its pid file cannot be written.
import { describe, expect, it } from 'vitest'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const WEIR = resolve('bin/weir.js')

/** An unbounded job; `checkpoints` false runs it without a checkpoint folder. */
function job(checkpoints: boolean): string {
  return `
    ${checkpoints ? '' : `SET 'state.checkpoints.dir' = '';`}
    CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '500', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
    CREATE TABLE out (c BIGINT) WITH ('connector' = 'print');
    INSERT INTO out SELECT COUNT(*) FROM gen;`
}

function start(cwd: string): { child: ChildProcess; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; out: () => string } {
  const child = spawn(process.execPath, [WEIR, 'run', 'job.sql'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString()
  })
  child.stderr!.resume()
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(r => child.on('exit', (code, signal) => r({ code, signal })))
  return { child, exit, out: () => stdout }
}

async function printed(out: () => string, lines: number): Promise<void> {
  while (out().split('\n').length <= lines) await new Promise(r => setTimeout(r, 20))
}

function savepoint(cwd: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [WEIR, 'savepoint', 'job.sql'], { cwd, encoding: 'utf8', timeout: 120_000 })
  return { status: r.status, stderr: r.stderr }
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(f => join(dir, f)).filter(f => statSync(f).isFile())
}

function workDir(checkpoints = true): string {
  const cwd = mkdtempSync(join(tmpdir(), 'weir-savepoint-'))
  writeFileSync(join(cwd, 'job.sql'), job(checkpoints))
  return cwd
}

describe('weir savepoint', () => {
  it('never signals the process that now has the pid of a run killed with -9, and says the run is gone', async () => {
    const cwd = workDir()
    const run = start(cwd)
    await printed(run.out, 5)
    run.child.kill('SIGKILL')
    await run.exit
    // The kernel hands the dead run's pid to a new process: here, one we start, written into what the run left.
    const bystander = spawn('sleep', ['120'], { stdio: 'ignore' })
    const bystanderExit = new Promise<NodeJS.Signals | null>(r => bystander.on('exit', (_c, signal) => r(signal)))
    const left = filesUnder(join(cwd, '.weir', 'run'))
    expect(left.length).toBeGreaterThan(0)
    for (const f of left) writeFileSync(f, readFileSync(f, 'utf8').replace(new RegExp(`\\b${run.child.pid}\\b`, 'g'), String(bystander.pid)))

    const r = savepoint(cwd)
    bystander.kill('SIGKILL')
    // Had it been sent SIGTERM, it would have died of that.
    expect(await bystanderExit).toBe('SIGKILL')
    expect(r.status, r.stderr).toBe(1)
    expect(r.stderr).toContain(`error: the run of 'job.sql' that '${join(cwd, '.weir', 'run', 'job')}/claim-`)
    expect(r.stderr).toContain(`is not running any more: pid ${bystander.pid} on host`)
    expect(r.stderr).toContain(`pid ${bystander.pid} belongs to another process now, which was left alone`)
    expect(r.stderr).not.toContain('resumes from the savepoint')
    // The stale file is gone: the next `weir savepoint` says there is no run.
    expect(savepoint(cwd).stderr).toContain("no running job of 'job.sql' in this directory")
  })

  it("reports success with the savepoint's location once its metadata exists", async () => {
    const cwd = workDir()
    const run = start(cwd)
    await printed(run.out, 5)
    const r = savepoint(cwd)
    expect(r.status, r.stderr).toBe(0)
    const m = /savepoint of job 'job-1': (file:\/\/\S+\/savepoint-\d+)\n/.exec(r.stderr)
    expect(m, r.stderr).not.toBeNull()
    expect(existsSync(join(fileURLToPath(m![1]!), '_metadata'))).toBe(true)
    expect(r.stderr).toContain("stopped; 'weir run job.sql' resumes from the savepoint")
    expect((await run.exit).code).toBe(0)
  })

  it('fails, saying so, when the job stopped without a savepoint (it has no checkpoint folder)', async () => {
    const cwd = workDir(false)
    const run = start(cwd)
    await printed(run.out, 5)
    const r = savepoint(cwd)
    expect(r.status, r.stderr).toBe(1)
    expect(r.stderr).toContain("error: job 'job-1' stopped without a savepoint")
    expect(r.stderr).toContain("help: a job without 'state.checkpoints.dir' has nowhere to write one")
    expect(r.stderr).not.toContain('resumes from the savepoint')
    await run.exit
  })
})

describe('weir run and its pid file', () => {
  it('says which path it cannot write, without a stack trace', () => {
    const cwd = workDir()
    writeFileSync(join(cwd, '.weir'), 'a file where the folder should be')
    const r = spawnSync(process.execPath, [WEIR, 'run', 'job.sql'], { cwd, encoding: 'utf8', timeout: 60_000 })
    expect(r.status).toBe(1)
    expect(r.stderr).toContain(
      `error: cannot create the lock folder '${join(cwd, '.weir', 'run', 'job')}': a part of the path is a file, not a folder (ENOTDIR)`,
    )
    expect(r.stderr).toContain("help: 'weir run' keeps a file naming its process under .weir/run")
    expect(r.stderr).not.toMatch(/internal error|at \w+ \(/)
  })
})
