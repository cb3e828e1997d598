// The `weir` command end to end, as a user runs it: the compiled CLI in a child process.
import { describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

const bin = join(process.cwd(), 'bin/weir.js')

function weir(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

function sqlFile(sql: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-cli-'))
  const file = join(dir, 'job.sql')
  writeFileSync(file, sql)
  return file
}

describe('weir --version and --help', () => {
  it('load only the command line, not the engine', () => {
    for (const flag of ['--version', '--help']) {
      const r = spawnSync(process.execPath, ['--import', join(process.cwd(), 'test/support/trace-loads.mjs'), bin, flag], { encoding: 'utf8', timeout: 60_000 })
      expect(r.status).toBe(0)
      expect(r.stdout).toMatch(flag === '--version' ? /^weir \d+\.\d+\.\d+\n$/ : /usage:/)
      if (flag === '--help') expect(r.stdout).toMatch(/--stats \[INTERVAL\] +print every operator subtask's rows in\/out/)
      const loaded = r.stderr.split('\n').filter(l => l.startsWith('load: file:')).map(l => l.slice('load: '.length))
      expect(loaded.some(u => u.endsWith('/dist/cli/main.js'))).toBe(true)
      expect(loaded.filter(u => !/\/(bin\/weir|dist\/cli\/(main|usage))\.js$/.test(u))).toEqual([])
    }
  })
})

describe('weir run', () => {
  it('runs the example job to completion and exits 0', () => {
    const r = weir('run', 'examples/clicks.sql')
    expect(r.stderr).toContain("job 'clicks-1' started")
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    // 400 clicks of 5 users over about 5 minutes: one row per user and minute.
    expect(lines.length).toBeGreaterThan(20)
    expect(
      lines.every(l => /^\+I\[(alice|bob|carol|dave|erin), 2024-05-01 1\d:\d\d:00\.000, 2024-05-01 1\d:\d\d:00\.000, \d+, \d+, (NULL|\d+\.\d\d)\]$/.test(l)),
    ).toBe(true)
    const total = lines.reduce((sum, l) => sum + Number(l.split(', ')[3]), 0)
    expect(total).toBe(400)
    expect(r.stderr).toMatch(/job 'clicks-1' finished: 400 rows read, \d+ rows written/)
  })

  it('prints a SELECT as a table of changes', () => {
    const file = sqlFile(`
      CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = '${
      join(process.cwd(), 'test/golden/data/bad.jsonl')
    }', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
      SELECT b, a, a + 1 AS c FROM t;`)
    const r = weir('run', file)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('| op |')
    expect(r.stdout).toMatch(/\| op \| b \| a \| c \|/)
    expect(r.stdout).toMatch(/\| \+I \| x \| 1 \| 2 \|/)
    expect(r.stdout).toContain('1 row in set')
  })

  it('renders a syntax error with file, line, column and caret, and exits 1', () => {
    const file = sqlFile(`CREATE TABLE t (a INT) WITH ('connector' = 'datagen');\nSELECT a FORM t;\n`)
    const r = weir('run', file)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`--> ${file}:2:10`)
    expect(r.stderr).toContain('2 | SELECT a FORM t;')
    expect(r.stderr).toMatch(/\n {2}\| {10}\^\^\^\^\n/)
    expect(r.stderr).not.toMatch(/at \w+ \(.*\.js:\d+:\d+\)/)
  })

  it('renders an unknown column with a did-you-mean help', () => {
    const file = sqlFile(`CREATE TABLE t (user_id STRING) WITH ('connector' = 'datagen');\nSELECT user_idd FROM t;\n`)
    const r = weir('run', file)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("error: column 'user_idd' not found")
    expect(r.stderr).toContain("help: did you mean 'user_id'?")
  })

  it('says when the file does not exist', () => {
    const r = weir('run', '/nonexistent/job.sql')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      "error: cannot read '/nonexistent/job.sql' (the SQL file): no such file or folder (ENOENT)\nhelp: '/nonexistent/job.sql' does not exist: check the path",
    )
  })

  it('fails a job on a missing input path with the path in the message', () => {
    const file = sqlFile(`CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '/nonexistent/input.json', 'format' = 'json');
      CREATE TABLE o (a INT) WITH ('connector' = 'blackhole');
      INSERT INTO o SELECT a FROM t;`)
    const r = weir('run', file)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('/nonexistent/input.json')
  })

  it('stops an unbounded job cleanly on Ctrl-C (SIGINT)', async () => {
    const file = sqlFile(`
      CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
      CREATE TABLE out (id BIGINT) WITH ('connector' = 'print');
      INSERT INTO out SELECT id FROM gen;`)
    const child = spawn(process.execPath, [bin, 'run', file], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => {
      stdout += d
    })
    child.stderr.on('data', d => {
      stderr += d
    })
    await new Promise<void>(resolve => {
      const check = setInterval(() => {
        if (stdout.split('\n').length > 20) {
          clearInterval(check)
          resolve()
        }
      }, 20)
    })
    child.kill('SIGINT')
    const code = await new Promise<number | null>(resolve => child.on('exit', c => resolve(c)))
    expect(code).toBe(130)
    expect(stderr).toContain('stopping')
    expect(stderr).toMatch(/job 'job-1' stopped: \d+ rows read/)
    const ids = stdout.trim().split('\n').map(l => Number(/^\+I\[(\d+)\]$/.exec(l)![1]))
    expect(ids.slice(0, 5)).toEqual([1, 2, 3, 4, 5])
    // Consecutive: nothing lost or duplicated up to the stop.
    expect(ids.every((v, i) => v === i + 1)).toBe(true)
  })
})

describe('savepoints from the command line', () => {
  // An unbounded job with state: a running count over a generated sequence, printed as it changes.
  const JOB = `
    CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
    CREATE TABLE out (c BIGINT, s BIGINT) WITH ('connector' = 'print');
    INSERT INTO out SELECT COUNT(*), SUM(id) FROM gen;`

  function start(cwd: string, ...args: string[]): { child: ReturnType<typeof spawn>; out: () => string; err: () => string } {
    const child = spawn(process.execPath, [bin, 'run', 'job.sql', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = '', stderr = ''
    child.stdout!.on('data', d => {
      stdout += d
    })
    child.stderr!.on('data', d => {
      stderr += d
    })
    return { child, out: () => stdout, err: () => stderr }
  }
  const exited = (child: ReturnType<typeof spawn>): Promise<number | null> =>
    new Promise(resolve => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode)
      else child.on('exit', c => resolve(c))
    })
  const printed = async (out: () => string, lines: number): Promise<void> => {
    await new Promise<void>(resolve => {
      const t = setInterval(() => {
        if (out().split('\n').length > lines) {
          clearInterval(t)
          resolve()
        }
      }, 20)
    })
  }
  /** The (count, sum) of the last +I/+U line. */
  const last = (stdout: string): [number, number] => {
    const m = stdout.trim().split('\n').filter(l => /^\+[IU]\[/.test(l)).at(-1)!.match(/\[(\d+), (\d+)\]/)!
    return [Number(m[1]), Number(m[2])]
  }

  it('SIGTERM takes a savepoint and stops; the next run resumes from it with the count and the source position', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'weir-sp-'))
    writeFileSync(join(cwd, 'job.sql'), JOB)
    const a = start(cwd)
    await printed(a.out, 30)
    a.child.kill('SIGTERM')
    expect(await exited(a.child)).toBe(0)
    expect(a.err()).toContain('taking a savepoint')
    expect(a.err()).toMatch(/savepoint: file:\/\/.*\/\.weir\/checkpoints\/job-1\/savepoint-\d+/)
    const [count, sum] = last(a.out())
    // The running count is exactly the sum of the first `count` ids: no id skipped or repeated.
    expect(sum).toBe((count * (count + 1)) / 2)

    const b = start(cwd)
    await printed(b.out, 10)
    b.child.kill('SIGINT')
    expect(await exited(b.child)).toBe(130)
    expect(b.err()).toMatch(/job 'job-1': resuming from savepoint \d+/)
    // The first change retracts the count the savepoint held, then counts on from it.
    const first = b.out().trim().split('\n')[0]!
    expect(first).toBe(`-U[${count}, ${sum}]`)
    const [count2, sum2] = last(b.out())
    expect(count2).toBeGreaterThan(count)
    expect(sum2).toBe((count2 * (count2 + 1)) / 2)
  })

  it('weir savepoint FILE.sql stops the running job with a savepoint; --fresh ignores it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'weir-sp-'))
    writeFileSync(join(cwd, 'job.sql'), JOB)
    const a = start(cwd)
    await printed(a.out, 20)
    // Asynchronously: the running job's output must keep draining meanwhile.
    const sp = spawn(process.execPath, [bin, 'savepoint', 'job.sql'], { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
    let spErr = ''
    sp.stderr.on('data', d => {
      spErr += d
    })
    expect(await exited(sp)).toBe(0)
    expect(spErr).toContain('resumes from the savepoint')
    expect(await exited(a.child)).toBe(0)
    expect(a.err()).toMatch(/savepoint: /)

    const b = start(cwd, '--fresh')
    await printed(b.out, 3)
    b.child.kill('SIGINT')
    await exited(b.child)
    expect(b.err()).not.toContain('resuming')
    // Counting from id 1 again: the first change is +I[n, 1 + … + n].
    const [n, total] = b.out().trim().split('\n')[0]!.match(/^\+I\[(\d+), (\d+)\]$/)!.slice(1).map(Number)
    expect(total).toBe((n! * (n! + 1)) / 2)

    const none = spawnSync(process.execPath, [bin, 'savepoint', 'job.sql'], { cwd, encoding: 'utf8', timeout: 60_000 })
    expect(none.status).toBe(1)
    expect(none.stderr).toContain("no running job of 'job.sql' in this directory")
  })

  it('rejects --fresh with --from-savepoint, and a --from-savepoint without a path', () => {
    const file = sqlFile(JOB)
    expect(weir('run', file, '--fresh', '--from-savepoint', '/x').stderr).toContain('exclude each other')
    expect(weir('run', file, '--from-savepoint').stderr).toContain('--from-savepoint needs a PATH')
  })
})

describe('weir explain', () => {
  it('prints the plan without running the job', () => {
    const r = weir('explain', 'examples/clicks.sql')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('== Physical Plan ==')
    expect(r.stdout).toContain('WindowAggregate(window=[TUMBLE(size=1 min)], time=[ts], groupBy=[user_id]')
    expect(r.stdout).toContain('Exchange(distribution=[hash[user_id]])')
    expect(r.stdout).not.toContain('+I[')
  })

  it('rejects unknown commands with usage', () => {
    const r = weir('frobnicate')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("unknown command 'frobnicate'")
    expect(r.stderr).toContain('usage:')
  })
})
