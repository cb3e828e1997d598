// Failures and stops as a user of `weir run` sees them: a file that does not plan runs nothing, a
// failing job is reported at once and the others stop with a savepoint, Ctrl-C emits no open window,
// SELECT output of any size and of unbounded queries, and messages that say what happened.
import { afterEach, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { jobDir, killStarted, startWeir, WEIR_BIN } from '../support/weir-process.js'

afterEach(killStarted)

/** An unbounded generator of 1, 2, 3, … */
const GEN = `CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');`

function weirSync(cwd: string, timeout: number, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [WEIR_BIN, ...args], { cwd, encoding: 'utf8', timeout, maxBuffer: 256 * 2 ** 20 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** The (count, sum) of the last +I/+U line of a running count. */
const lastCount = (stdout: string): [number, number] => {
  const m = stdout.trim().split('\n').filter(l => /^\+[IU]\[/.test(l)).at(-1)!.match(/\[(\d+), (\d+)\]/)!
  return [Number(m[1]), Number(m[2])]
}

describe('weir run: a file is planned before any job starts', () => {
  it('runs nothing when a statement after an unbounded INSERT does not plan, and exits', () => {
    const cwd = jobDir(`${GEN}
      CREATE TABLE out (id BIGINT) WITH ('connector' = 'print');
      INSERT INTO out SELECT id FROM gen;
      INSERT INTO out SELECT idd FROM gen;`)
    // Before, the first job started and ran on forever.
    const r = weirSync(cwd, 20_000, 'run', 'job.sql')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("error: column 'idd' not found")
    expect(r.stderr).toContain('nothing was run')
    expect(r.stderr).not.toContain('started')
    expect(r.stdout).toBe('')
  })

  it('says so when a file has no statements, and exits 0', () => {
    const cwd = jobDir('-- only a comment\n/* and another */\n')
    for (const command of ['run', 'explain']) {
      const r = weirSync(cwd, 20_000, command, 'job.sql')
      expect(r.code).toBe(0)
      expect(r.stderr).toBe(`warning: 'job.sql' has no SQL statements; nothing to ${command}\n`)
    }
  })
})

describe('weir run: a job that fails while another runs', () => {
  const sql = (divisor: string): string =>
    `${GEN}
    CREATE TABLE counts (c BIGINT, s BIGINT) WITH ('connector' = 'print');
    CREATE TABLE quotients (id BIGINT, q BIGINT) WITH ('connector' = 'blackhole');
    INSERT INTO counts SELECT COUNT(*), SUM(id) FROM gen;
    INSERT INTO quotients SELECT id, 1000 / ${divisor} FROM gen;`

  it('is reported at once with job, operator and row; the other job stops with a savepoint that the next run resumes from', async () => {
    const cwd = jobDir(sql('(id - 300)'))
    const a = startWeir(cwd, 'run', 'job.sql')
    // Every check names the run's output: a failure seen once under load (1 of 16 runs) left no clue.
    expect(await a.exited(), a.err()).toBe(1)
    const err = a.err()
    const failure = err.indexOf("error: job 'job-2' failed: division by zero")
    expect(failure).toBeGreaterThan(-1)
    expect(err).toContain('6 |     INSERT INTO quotients SELECT id, 1000 / (id - 300) FROM gen;')
    expect(err).toContain('note: in operator 1-source: Source(table=[gen], connector=[datagen], fields=[id, (1000 / (id - 300)) AS')
    expect(err).toContain('note: input row: id=300')
    // The other job was still running when the failure was reported: it stopped afterwards, with a savepoint.
    const stopping = err.indexOf("job 'job-2' failed: stopping job 'job-1' with a savepoint")
    const savepoint = err.search(/job 'job-1': savepoint \d+ written to /)
    expect(failure, err).toBeLessThan(stopping)
    expect(stopping, err).toBeLessThan(savepoint)
    expect(err).toMatch(/job 'job-1' stopped: \d+ rows read/)
    expect(a.out(), 'job-1 printed a count before it stopped').toMatch(/^\+[IU]\[/m)
    const [count, sum] = lastCount(a.out())
    expect(sum).toBe((count * (count + 1)) / 2)

    // Fixed, the file runs again: the first job resumes from the savepoint with its count.
    writeFileSync(join(cwd, 'job.sql'), sql('NULLIF(id - 300, 0)'))
    const b = startWeir(cwd, 'run', 'job.sql')
    await b.until(out => out.split('\n').length > 5)
    b.child.kill('SIGINT')
    expect(await b.exited(), b.err()).toBe(130)
    expect(b.err()).toMatch(/job 'job-1': resuming from savepoint \d+/)
    expect(b.out().trim().split('\n')[0], `${a.out().slice(-300)}\n----\n${b.out().slice(0, 300)}`).toBe(`-U[${count}, ${sum}]`)
  })
})

describe('weir run: Ctrl-C', () => {
  it('does not emit a processing-time window that is still open', async () => {
    const cwd = jobDir(`CREATE TABLE gen (id BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'rows-per-second' = '1000');
      CREATE TABLE out (n BIGINT) WITH ('connector' = 'print');
      INSERT INTO out SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(pt), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;`)
    // Stopped once rows have reached the window (its operator's table shows rows in), not after a
    // fixed delay: a loaded host may not have read a row by then (datagen paces in steps).
    const a = startWeir(cwd, 'run', '--stats', '100ms', 'job.sql')
    await a.until((_, err) => /\n2-window-aggregate +1\/1 +[1-9]/.test(err))
    a.child.kill('SIGINT')
    expect(await a.exited()).toBe(130)
    expect(a.err()).toMatch(/job 'job-1' stopped: [1-9]\d* rows read, 0 rows written/)
    expect(a.out()).toBe('')
  })

  it('says how many rows were committed, not only written, and the count is what the sink shows', async () => {
    const cwd = jobDir(`${GEN.replace("'400'", "'3000'")}
      SET 'execution.checkpointing.interval' = '300 ms';
      CREATE TABLE out (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
      INSERT INTO out SELECT id FROM gen;`)
    const a = startWeir(cwd, 'run', 'job.sql')
    const visible = (): string[] => {
      try {
        return readdirSync(join(cwd, 'out')).filter(f => f.startsWith('part-'))
      } catch {
        return []
      }
    }
    await new Promise<void>(resolve => {
      const t = setInterval(() => {
        if (visible().length > 0) {
          clearInterval(t)
          resolve()
        }
      }, 20)
    })
    a.child.kill('SIGINT')
    expect(await a.exited()).toBe(130)
    const m =
      /job 'job-1' stopped: \d+ rows read, (\d+) rows written(?:, (\d+) committed \(the (\d+) after the last checkpoint were discarded; they are written again when the job resumes\))?/
        .exec(a.err())
    expect(m).not.toBeNull()
    const lines = visible().flatMap(f => readFileSync(join(cwd, 'out', f), 'utf8').split('\n').filter(Boolean)).length
    expect(Number(m![2] ?? m![1])).toBe(lines)
    if (m![2] !== undefined) expect(Number(m![3])).toBe(Number(m![1]) - lines)
  })
})

describe('weir run: a finished job', () => {
  it('says which checkpoint it finished at, and does not call an explicit --from-checkpoint the latest', async () => {
    const cwd = jobDir(`SET 'execution.checkpointing.interval' = '10 s';
      CREATE TABLE t (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '50', 'rows-per-second' = '1000000');
      CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT id FROM t;`)
    expect(weirSync(cwd, 60_000, 'run', 'job.sql').stderr).toContain("job 'job-1' finished: 50 rows read, 50 rows written")
    const [chk] = readdirSync(join(cwd, '.weir/checkpoints/job-1')).filter(f => f.startsWith('chk-'))
    const id = Number(chk!.slice(4))
    const again = weirSync(cwd, 60_000, 'run', 'job.sql')
    expect(again.stderr).toContain(`job 'job-1' had already finished at its latest checkpoint (checkpoint ${id}); nothing to do`)
    const from = weirSync(cwd, 60_000, 'run', 'job.sql', '--from-checkpoint', join('.weir/checkpoints/job-1', chk!))
    expect(from.code).toBe(0)
    expect(from.stderr).not.toContain('latest')
    expect(from.stderr).toContain(`job 'job-1': checkpoint ${id} (.weir/checkpoints/job-1/${chk}) was taken when the job had finished; nothing to run from it`)
  })
})

describe('weir run: SELECT output', () => {
  it('prints a bounded SELECT of 130,000 rows as one table', () => {
    const cwd = jobDir(`CREATE TABLE t (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '130000', 'rows-per-second' = '100000000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '130000');
      SELECT * FROM t;`)
    const r = weirSync(cwd, 120_000, 'run', 'job.sql')
    expect(r.stderr).not.toContain('Maximum call stack')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('| +I | 130000 |')
    expect(r.stdout.trimEnd().endsWith('130000 rows in set')).toBe(true)
  })

  it('streams the rows of an unbounded SELECT as they arrive; Ctrl-C ends it with the row count', async () => {
    // Random ids: a sequence would end (at its 'end'), and a bounded SELECT prints one table at its end.
    const cwd = jobDir(`CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '400', 'fields.id.min' = '1', 'fields.id.max' = '9');
      SELECT id, id * 2 AS twice FROM gen;`)
    const a = startWeir(cwd, 'run', 'job.sql')
    // Before Ctrl-C: the header and rows, with widths from the column types (BIGINT: 20).
    await a.until(out => (out.match(/\| \+I \|/g) ?? []).length >= 5)
    const header = a.out().split('\n').slice(0, 3)
    expect(header).toEqual([
      `+----+${'-'.repeat(22)}+${'-'.repeat(22)}+`,
      `| op | ${' '.repeat(18)}id | ${' '.repeat(15)}twice |`,
      `+----+${'-'.repeat(22)}+${'-'.repeat(22)}+`,
    ])
    const first = a.out().split('\n')[3]!
    expect(first).toMatch(/^\| \+I \| +\d \| +\d+ \|$/)
    expect(first.length).toBe(header[1]!.length)
    a.child.kill('SIGINT')
    expect(await a.exited()).toBe(130)
    const lines = a.out().trimEnd().split('\n')
    const rows = lines.filter(l => l.startsWith('| +I |')).length
    expect(lines.at(-1)).toBe(`Received a total of ${rows} rows`)
    expect(lines.at(-2)).toBe(`+----+${'-'.repeat(22)}+${'-'.repeat(22)}+`)
  })
})
