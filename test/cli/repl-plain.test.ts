// `weir repl` with standard input not a terminal, end to end through bin/weir.js: statements read
// from stdin, results as plain text on stdout (no escape codes), errors with carets on stderr, the
// first error ends the script, --init runs first.
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

const bin = join(process.cwd(), 'bin/weir.js')

function repl(input: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'weir-repl-plain-'))
  const r = spawnSync(process.execPath, [bin, 'repl', ...args], { cwd, input, encoding: 'utf8', timeout: 60_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const DDL = `CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '4',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '4');
SET 'state.backend' = 'heap';
SET 'table.exec.mini-batch.enabled' = 'false';
`

describe('weir repl < script.sql', () => {
  it('runs the statements in order and prints results as plain text', () => {
    const r = repl(`${DDL}SHOW TABLES;
SELECT id % 2 AS k, COUNT(*) AS c FROM g GROUP BY id % 2;
SET 'sql-client.execution.result-mode' = 'changelog';
SELECT id % 2 AS k, COUNT(*) AS c FROM g
  GROUP BY id % 2`)
    expect(r.stderr).not.toContain('error')
    expect(r.code).toBe(0)
    // Table mode: the result with its retractions applied, once the bounded query has ended.
    expect(r.stdout).toContain(['| k | c |', '+---+---+', '| 1 | 2 |', '| 0 | 2 |', '+---+---+', '2 rows in set'].join('\n'))
    // Changelog mode: every change with its op as it comes, the last statement without its ';'.
    const ops = r.stdout.split('\n').filter(l => /^\| [+-][IUD] \|/.test(l)).map(l => l.slice(2, 4))
    expect(ops).toEqual(['+I', '+I', '-U', '+U', '-U', '+U'])
    expect(r.stdout).toContain('| table name |\n+------------+\n|          g |')
    expect(r.stdout + r.stderr).not.toMatch(/\x1b\[/)
    expect(r.stderr).toContain("table 'g' created")
  })

  it('prints SHOW FUNCTIONS, DESCRIBE and EXPLAIN as tables and text', () => {
    const r = repl(`${DDL}SHOW FUNCTIONS; DESCRIBE g; EXPLAIN SELECT id FROM g WHERE id > 2;`)
    expect(r.code).toBe(0)
    const functions = r.stdout.slice(r.stdout.indexOf('function name |'), r.stdout.indexOf('rows in set'))
    for (const f of ['UPPER', 'COUNT', 'TUMBLE', 'DATE_FORMAT']) expect(functions).toMatch(new RegExp(`\\| +${f} \\|`))
    // Operators are not functions a user calls by name, nor the internal names of FLOOR(x TO unit).
    expect(functions).not.toMatch(/\| +(AND|IS_NULL) \|/)
    expect(functions).not.toMatch(/\| +(FLOOR_TO|CEIL_TO) \|/)
    for (const f of ['FLOOR', 'CEIL']) expect(functions).toMatch(new RegExp(`\\| +${f} \\|`))
    expect(r.stdout).toMatch(/\| +name \| +type \|/)
    expect(r.stdout).toMatch(/\| +id \| +BIGINT \|/)
    expect(r.stdout).toContain('Source(table=[g], connector=[datagen], fields=[id], filter=[(id > 2)]')
  })

  it("starts an INSERT's job in the background and waits for it at the end", () => {
    const r = repl(`${DDL}CREATE TABLE out (id BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT id * 10 FROM g;`)
    expect(r.code).toBe(0)
    const name = /job '(repl-[0-9a-z]{6}-1)' started in the background/.exec(r.stderr)![1]!
    expect(r.stderr).toContain(`job '${name}' finished: 4 rows read, 4 rows written`)
    expect(r.stdout.trim().split('\n').sort()).toEqual(['+I[10]', '+I[20]', '+I[30]', '+I[40]'])
  })

  it('lists the jobs with SHOW JOBS, and refuses STOP JOB of an id it does not have', () => {
    const r = repl(`${DDL}CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');
SET 'pipeline.name' = 'tens';
INSERT INTO out SELECT id * 10 FROM g;
SHOW JOBS;
STOP JOB 'tens';`)
    expect(r.code).toBe(1)
    const id = /job 'tens' started in the background, id '([0-9a-f]{8})'/.exec(r.stderr)![1]!
    expect(r.stdout).toMatch(/\| +job id \| +job name \| +status \| +uptime \| +rows in \| +rows out \| +last checkpoint \|$/m)
    expect(r.stdout).toMatch(new RegExp(`\\| ${id} \\| +tens \\| +(RUNNING|FINISHED) \\|`))
    expect(r.stderr).toContain(
      ["error: no job with id 'tens' in this session", ' --> <stdin>:9:10', '  |', "9 | STOP JOB 'tens';", '  |          ^^^^^^'].join('\n'),
    )
    expect(r.stderr).toContain(`help: 'tens' is a job's name; STOP JOB takes its id ('${id}')`)
  })

  it('stops at the first error, shown with its caret at its line in the input, and exits 1', () => {
    const r = repl(`${DDL}SELECT id
  FROM g WHERE idd > 1;
SHOW TABLES;`)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      ["error: column 'idd' not found", ' --> <stdin>:6:16', '  |', '6 |   FROM g WHERE idd > 1;', '  |                ^^^'].join('\n'),
    )
    expect(r.stderr).toContain('stopped at the first error')
    expect(r.stdout).not.toContain('table name')
  })

  it('runs an --init file first, and refuses one with a query', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-repl-init-'))
    const init = join(dir, 'init.sql')
    writeFileSync(init, DDL)
    const r = repl('SELECT COUNT(*) AS n FROM g;', '--init', init)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/\| +n \|\n\+-+\+\n\| +4 \|/)
    const bad = join(dir, 'bad.sql')
    writeFileSync(bad, `${DDL}SELECT * FROM g;`)
    const refused = repl('', '--init', bad)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('error: an --init file sets the session up; it cannot run a SELECT')
    expect(refused.stderr).toContain(`--> ${bad}:5:1`)
  })
})
