// File-system failures on every path `weir run` touches — the SQL file, sources, sinks (plain and
// exactly-once), RocksDB state, checkpoints and savepoints — as a user meets
// them: real files that cannot be read or written, a path through a regular file, a full or
// read-only disk. Each says which path, what Weir was doing, why in words, and what to do; none is
// an "internal error" with a stack trace.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { canRunUnprivileged, mountTmpfs, sharedTempDir, unmount, unprivileged } from '../support/fs-failures.js'

const bin = join(process.cwd(), 'bin/weir.js')
const root = sharedTempDir('weir-fs-errors-')
/** Tests that need permission bits to apply run where an unprivileged child can run this checkout. */
const itAsUser = canRunUnprivileged(bin) ? it : it.skip
afterAll(() => rmSync(root, { recursive: true, force: true }))

let n = 0
/** A fresh folder (usable by the unprivileged user) with job.sql holding `sql`; `$DIR` in it stands for the folder. */
function job(sql: string): { dir: string; file: string } {
  const dir = join(root, `case-${++n}`)
  mkdirSync(dir)
  chmodSync(dir, 0o777)
  const file = join(dir, 'job.sql')
  writeFileSync(file, sql.replaceAll('$DIR', dir))
  return { dir, file }
}

interface Run {
  readonly code: number | null
  readonly stderr: string
}

/** `weir run job.sql` in `dir`; `asUser`: as a user that permission bits apply to (not root). */
function run(dir: string, opts: { asUser?: boolean; args?: readonly string[] } = {}): Run {
  const r = spawnSync(process.execPath, [bin, 'run', 'job.sql', ...(opts.args ?? [])], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    ...(opts.asUser ? unprivileged() : {}),
  })
  return { code: r.status, stderr: r.stderr }
}

/** Exit 1 with `message` and `help`, and nothing a user should not see. */
function expectFsError(r: Run, message: string | RegExp, help: string | RegExp): void {
  if (typeof message === 'string') expect(r.stderr).toContain(message)
  else expect(r.stderr).toMatch(message)
  if (typeof help === 'string') expect(r.stderr).toContain(`help: ${help}`)
  else expect(r.stderr).toMatch(help)
  expect(r.stderr).not.toContain('internal error')
  expect(r.stderr).not.toMatch(/\n\s+at /)
  expect(r.code).toBe(1)
}

const SOURCE = (path: string): string => `CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');`
const COPY = (sinkPath: string): string =>
  `CREATE TABLE o (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '${sinkPath}', 'format' = 'json');
   INSERT INTO o SELECT id, s FROM t;`
/** A stateful query (RocksDB state under 'state.dir'). */
const COUNT = `CREATE TABLE o (s STRING, c BIGINT) WITH ('connector' = 'blackhole');
   INSERT INTO o SELECT s, COUNT(*) FROM t GROUP BY s;`

function rows(dir: string, count: number, width = 10): string {
  const file = join(dir, 'in.json')
  writeFileSync(file, Array.from({ length: count }, (_, i) => `{"id": ${i}, "s": "${'x'.repeat(width)}${i % 7}"}\n`).join(''))
  return file
}

describe('the sources', () => {
  itAsUser('an unreadable source folder: EACCES names the folder, the table and the permission to fix', () => {
    const { dir } = job(`${SOURCE('$DIR/data')} ${COPY('$DIR/out')}`)
    mkdirSync(join(dir, 'data'))
    writeFileSync(join(dir, 'data', 'a.json'), '{"id": 1}\n')
    chmodSync(join(dir, 'data'), 0o000)
    expectFsError(run(dir, { asUser: true }), `cannot list '${dir}/data' (the source of table 't'): permission denied (EACCES)`,
      `check the permissions of '${dir}/data' and the folders above it: Weir needs to read it; or change the 'path' option of table 't'`)
  })

  itAsUser('an unreadable file in a source folder: EACCES names the file', () => {
    const { dir } = job(`${SOURCE('$DIR/data')} ${COPY('$DIR/out')}`)
    mkdirSync(join(dir, 'data'))
    writeFileSync(join(dir, 'data', 'a.json'), '{"id": 1}\n')
    chmodSync(join(dir, 'data', 'a.json'), 0o000)
    expectFsError(run(dir, { asUser: true }), `cannot read '${dir}/data/a.json' (the source of table 't'): permission denied (EACCES)`,
      `check the permissions of '${dir}/data/a.json'`)
  })

  it('a source path through a regular file: ENOTDIR', () => {
    const { dir } = job(`${SOURCE('$DIR/job.sql/data')} ${COPY('$DIR/out')}`)
    expectFsError(run(dir), `cannot read '${dir}/job.sql/data' (the source of table 't'): a part of the path is a file, not a folder (ENOTDIR)`,
      `a part of '${dir}/job.sql/data' is a file where a folder should be: check the 'path' option of table 't', or move that file away`)
  })
})

describe('the sinks', () => {
  it('a sink path that is a regular file: EEXIST says the sink writes into a folder', () => {
    const { dir } = job(`${SOURCE('$DIR/in.json')} ${COPY('$DIR/job.sql')}`)
    rows(dir, 3)
    expectFsError(run(dir), `cannot create '${dir}/job.sql' (the sink of table 'o'): a file or folder of that name is in the way (EEXIST)`,
      `'${dir}/job.sql' is a file, but the filesystem sink writes part files into a folder: change the 'path' option of table 'o'`)
  })

  itAsUser('a sink folder it may not write: EACCES names the part file', () => {
    const { dir } = job(`${SOURCE('$DIR/in.json')} ${COPY('$DIR/out')}`)
    rows(dir, 3)
    mkdirSync(join(dir, 'out'), { mode: 0o555 })
    chmodSync(join(dir, 'out'), 0o555)
    expectFsError(run(dir, { asUser: true }),
      new RegExp(`cannot create '${dir}/out/\\.part-[0-9a-f-]+-0{10}\\.json\\.inprogress' \\(the sink of table 'o'\\): permission denied \\(EACCES\\)`),
      `check the permissions of '${dir}/out/.part-`)
  })

  itAsUser('an exactly-once sink folder it may not list (recovery looks for its leftovers): EACCES', () => {
    const { dir } = job(`SET 'execution.checkpointing.interval' = '1 h'; ${SOURCE('$DIR/in.json')} ${COPY('$DIR/out')}`)
    rows(dir, 3)
    mkdirSync(join(dir, 'out'))
    chmodSync(join(dir, 'out'), 0o333)
    expectFsError(run(dir, { asUser: true }), `cannot list '${dir}/out' (the sink of table 'o'): permission denied (EACCES)`,
      `check the permissions of '${dir}/out' and the folders above it: Weir needs to read it; or change the 'path' option of table 'o'`)
  })

  it.for([['plain', ''], ['exactly-once', `SET 'execution.checkpointing.interval' = '1 h';`]] as const)(
    'a full disk under the %s sink: ENOSPC names the part file and says to free space (not a silently cut file)',
    ([, set], ctx) => {
      const { dir } = job(`${set} ${SOURCE('$DIR/in.json')} ${COPY('$DIR/out')}`)
      rows(dir, 4000, 100)
      mkdirSync(join(dir, 'out'))
      if (!mountTmpfs(join(dir, 'out'), 64)) ctx.skip() // test/common/fs-errors.test.ts maps a real ENOSPC everywhere
      try {
        expectFsError(run(dir),
          new RegExp(`cannot write '${dir}/out/\\.part-[^']+\\.inprogress' \\(the sink of table 'o'\\): no space left on the device \\(ENOSPC\\)`),
          `free disk space on the file system of '${dir}/out/.part-`)
      } finally {
        unmount(join(dir, 'out'))
      }
    },
  )
})

describe('RocksDB state', () => {
  it("a 'state.dir' through a regular file: ENOTDIR names the folder and 'state.dir'", () => {
    const { dir } = job(`SET 'state.dir' = '$DIR/job.sql/state'; ${SOURCE('$DIR/in.json')} ${COUNT}`)
    rows(dir, 3)
    expectFsError(run(dir), new RegExp(
      `cannot create '${dir}/job\\.sql/state/job-1/[^']+' \\(a folder of RocksDB working state\\): a part of the path is a file, not a folder \\(ENOTDIR\\)`,
    ), /help: a part of '[^']+' is a file where a folder should be: check 'state.dir', or move that file away/)
  })

  itAsUser("a 'state.dir' it may not write: EACCES", () => {
    const { dir } = job(`SET 'state.dir' = '$DIR/state'; ${SOURCE('$DIR/in.json')} ${COUNT}`)
    rows(dir, 3)
    mkdirSync(join(dir, 'state'))
    chmodSync(join(dir, 'state'), 0o555)
    expectFsError(run(dir, { asUser: true }),
      new RegExp(`cannot create '${dir}/state/job-1/[^']+' \\(a folder of RocksDB working state\\): permission denied \\(EACCES\\)`),
      /help: check the permissions of '[^']+' and the folders above it: Weir needs to write there; or change 'state.dir'/)
  })

  it("a 'state.dir' on a read-only file system: EROFS", ctx => {
    const { dir } = job(`SET 'state.dir' = '$DIR/state'; ${SOURCE('$DIR/in.json')} ${COUNT}`)
    rows(dir, 3)
    mkdirSync(join(dir, 'state'))
    if (!mountTmpfs(join(dir, 'state'), 64, true)) ctx.skip()
    try {
      expectFsError(run(dir),
        new RegExp(`cannot create '${dir}/state/job-1/[^']+' \\(a folder of RocksDB working state\\): the file system is read-only \\(EROFS\\)`),
        /help: '[^']+' is on a read-only file system: change 'state.dir' to a writable location, or make it writable/)
    } finally {
      unmount(join(dir, 'state'))
    }
  })
})

describe('checkpoints and savepoints', () => {
  // The job's folder itself is usable (a run takes its lock there first); a checkpoint's is not.
  it("a file where a checkpoint's folder should be: EEXIST names the checkpoint file and the setting", () => {
    const { dir } = job(`SET 'execution.checkpointing.interval' = '1 h'; SET 'state.checkpoints.dir' = '$DIR/cp';
      ${SOURCE('$DIR/in.json')} ${COPY('$DIR/out')}`)
    rows(dir, 3)
    mkdirSync(join(dir, 'cp', 'job-1'), { recursive: true })
    writeFileSync(join(dir, 'cp', 'job-1', 'chk-1'), 'not a folder')
    expectFsError(run(dir), `cannot write '${dir}/cp/job-1/chk-1/_metadata' (checkpoint storage): a file or folder of that name is in the way (EEXIST)`,
      `a file stands where checkpoint storage needs a folder: remove or rename '${dir}/cp/job-1/chk-1/_metadata' or the file above it`)
  })

  itAsUser("a checkpoint's folder it may not write: EACCES", () => {
    const { dir } = job(`SET 'execution.checkpointing.interval' = '1 h'; SET 'state.checkpoints.dir' = '$DIR/cp';
      ${SOURCE('$DIR/in.json')} ${COPY('$DIR/out')}`)
    rows(dir, 3)
    mkdirSync(join(dir, 'cp', 'job-1', 'chk-1'), { recursive: true })
    chmodSync(join(dir, 'cp'), 0o777)
    chmodSync(join(dir, 'cp', 'job-1'), 0o777)
    chmodSync(join(dir, 'cp', 'job-1', 'chk-1'), 0o555)
    expectFsError(run(dir, { asUser: true }), `cannot write '${dir}/cp/job-1/chk-1/_metadata' (checkpoint storage): permission denied (EACCES)`,
      `check the permissions of '${dir}/cp/job-1/chk-1/_metadata' and the folders above it: Weir needs to write there; or change 'state.checkpoints.dir' (or 'state.savepoints.dir')`)
  })

  itAsUser('a savepoint it may not read (--from-savepoint): EACCES', () => {
    const { dir } = job(`${SOURCE('$DIR/in.json')} ${COPY('$DIR/out')}`)
    rows(dir, 3)
    mkdirSync(join(dir, 'savepoint-1'))
    writeFileSync(join(dir, 'savepoint-1', '_metadata'), '{}')
    chmodSync(join(dir, 'savepoint-1'), 0o000)
    expectFsError(run(dir, { asUser: true, args: ['--from-savepoint', join(dir, 'savepoint-1')] }),
      `cannot read '${dir}/savepoint-1/_metadata' (checkpoint storage): permission denied (EACCES)`, `check the permissions of '${dir}/savepoint-1/_metadata'`)
  })

  it("a file where the savepoint's folder should be, when SIGTERM asks for a savepoint: EEXIST", async () => {
    const { dir } = job(`SET 'state.savepoints.dir' = '$DIR/sp';
      CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
      CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO o SELECT id FROM gen;`)
    mkdirSync(join(dir, 'sp', 'job-1'), { recursive: true })
    writeFileSync(join(dir, 'sp', 'job-1', 'savepoint-1'), 'not a folder')
    const child = spawn(process.execPath, [bin, 'run', 'job.sql'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
      if (stderr.includes("job 'job-1' started")) child.kill('SIGTERM')
    })
    const code = await new Promise<number | null>(resolve => child.on('exit', c => resolve(c)))
    expectFsError({ code, stderr },
      `cannot write '${dir}/sp/job-1/savepoint-1/_metadata' (checkpoint storage): a file or folder of that name is in the way (EEXIST)`,
      `a file stands where checkpoint storage needs a folder: remove or rename '${dir}/sp/job-1/savepoint-1/_metadata' or the file above it`)
  })
})

describe("the CLI's own files", () => {
  it('a SQL file that is a folder: EISDIR says to give the file', () => {
    const { dir } = job('')
    mkdirSync(join(dir, 'jobs.sql'))
    const r = spawnSync(process.execPath, [bin, 'run', 'jobs.sql'], { cwd: dir, encoding: 'utf8' })
    expectFsError({ code: r.status, stderr: r.stderr }, `cannot read 'jobs.sql' (the SQL file): it is a folder, not a file (EISDIR)`,
      `'jobs.sql' is a folder; give the SQL file to run`)
  })

  itAsUser('a SQL file it may not read: EACCES', () => {
    const { dir, file } = job(`${SOURCE('$DIR/in.json')} ${COPY('$DIR/out')}`)
    chmodSync(file, 0o000)
    expectFsError(run(dir, { asUser: true }), `cannot read 'job.sql' (the SQL file): permission denied (EACCES)`,
      `check the permissions of 'job.sql' and the folders above it: Weir needs to read it`)
  })
})
