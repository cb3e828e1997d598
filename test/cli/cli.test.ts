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

describe('weir run', () => {
  it('runs the example job to completion and exits 0', () => {
    const r = weir('run', 'examples/clicks.sql')
    expect(r.stderr).toContain("job 'clicks-1' started")
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    // 400 clicks of 5 users over about 5 minutes: one row per user and minute.
    expect(lines.length).toBeGreaterThan(20)
    expect(lines.every(l => /^\+I\[(alice|bob|carol|dave|erin), 2024-05-01 1\d:\d\d:00\.000, 2024-05-01 1\d:\d\d:00\.000, \d+, \d+, (NULL|\d+\.\d\d)\]$/.test(l))).toBe(true)
    const total = lines.reduce((sum, l) => sum + Number(l.split(', ')[3]), 0)
    expect(total).toBe(400)
    expect(r.stderr).toMatch(/job finished: 400 rows read, \d+ rows written/)
  })

  it('prints a SELECT as a table of changes', () => {
    const file = sqlFile(`
      CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = '${join(process.cwd(), 'test/golden/data/bad.jsonl')}', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
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
    expect(r.stderr).toContain("cannot read '/nonexistent/job.sql': no such file")
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
    child.stdout.on('data', d => { stdout += d })
    child.stderr.on('data', d => { stderr += d })
    await new Promise<void>(resolve => {
      const check = setInterval(() => { if (stdout.split('\n').length > 20) { clearInterval(check); resolve() } }, 20)
    })
    child.kill('SIGINT')
    const code = await new Promise<number | null>(resolve => child.on('exit', c => resolve(c)))
    expect(code).toBe(130)
    expect(stderr).toContain('stopping')
    expect(stderr).toMatch(/job stopped: \d+ rows read/)
    const ids = stdout.trim().split('\n').map(l => Number(/^\+I\[(\d+)\]$/.exec(l)![1]))
    expect(ids.slice(0, 5)).toEqual([1, 2, 3, 4, 5])
    // Consecutive: nothing lost or duplicated up to the stop.
    expect(ids.every((v, i) => v === i + 1)).toBe(true)
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
