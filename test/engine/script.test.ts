// A script is planned whole before any job starts; jobs are named by INSERT; a failing job is reported
// at once with its operator and row and stops the others per 'weir.on-job-failure'; a cancel emits
// no window that is still open.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Session, type StatementResult } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { faultsOf, holdSourceAfter, type SourceHold } from '../support/source-holds.js'

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'weir-script-'))
}

/** An unbounded generator of 1, 2, 3, … at `rate` rows per second. */
const GEN = (rate = 500): string =>
  `CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '${rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');`

/** A hook that aborts `stop` once the source has read `rows` rows (and holds it there until then): a cancel midway, on any host. */
function stopAfter(rows: number, stop: AbortController): SourceHold {
  const hold = holdSourceAfter(rows, stop.signal)
  void hold.reached.then(() => stop.abort())
  return hold
}

const until = async (cond: () => boolean): Promise<void> => {
  while (!cond()) await new Promise(r => setTimeout(r, 10))
}

/**
 * Runs `sql` (ending in a SELECT) and aborts `stop` once its job's sources have read `rows` rows: a
 * cancel midway, on any host. (A SELECT's job has no fault hook, so it is watched rather than held.)
 */
async function cancelledAfter(rows: number, s: Session, stop: AbortController, sql: string): Promise<StatementResult[]> {
  const results = s.executeSql(sql)
  await Promise.race([results, until(() => (s.listJobs('select')[0]?.sample?.rowsIn ?? 0) >= rows)])
  stop.abort()
  return results
}

describe('a script is planned before any job starts', () => {
  it('starts no job when a later statement does not plan', async () => {
    const out = tmp()
    const s = new Session({ println: () => undefined })
    const sql = `CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
      CREATE TABLE o (a INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO o SELECT a FROM t;
      INSERT INTO o SELECT b FROM t;`
    await expect(s.executeSql(sql)).rejects.toThrow("column 'b' not found")
    expect(await s.awaitJobs()).toEqual([])
    expect(readdirSync(out)).toEqual([])
  })

  it('plans each job with the options in force at its place, not the ones SET after it', async () => {
    const s = new Session({ println: () => undefined })
    const script = await s.prepare(`SET 'execution.batch-size' = '7';
      CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
      CREATE TABLE o (a INT) WITH ('connector' = 'blackhole');
      INSERT INTO o SELECT a FROM t;
      SET 'execution.batch-size' = '9';`)
    const insert = script.steps.find(st => st.kind === 'insert')
    expect(insert?.kind === 'insert' && insert.graph.config.batchSize).toBe(7)
  })

  it('a checkpoint interval without a checkpoint folder is a plan error: nothing starts', async () => {
    const s = new Session({ println: () => undefined })
    const e = await s.prepare(`CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1');
      CREATE TABLE o (a INT) WITH ('connector' = 'blackhole');
      SET 'execution.checkpointing.interval' = '1 s';
      INSERT INTO o SELECT a FROM t;`).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toContain("'state.checkpoints.dir' is not")
  })

  it('more subtasks than key groups is a plan error: the job before it does not start', async () => {
    const out = tmp()
    const s = new Session({ println: () => undefined })
    const e = await s.executeSql(`${GEN()}
      CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO o SELECT id FROM gen;
      SET 'pipeline.max-parallelism' = '4';
      SET 'parallelism.default' = '8';
      CREATE TABLE counts (id BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO counts SELECT id, COUNT(*) FROM gen GROUP BY id;`).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).kind).toBe('plan')
    expect((e as WeirError).message).toBe("'parallelism.default' = 8 exceeds 'pipeline.max-parallelism' = 4")
    expect(await s.awaitJobs()).toEqual([])
    expect(readdirSync(out)).toEqual([])
  })
})

describe('job names', () => {
  const ddl = `CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
    CREATE TABLE o (a INT) WITH ('connector' = 'blackhole');`
  const names = async (sql: string): Promise<string[]> => {
    const s = new Session({ println: () => undefined, jobNamePrefix: 'f' })
    const results = await s.executeSql(ddl + sql)
    await s.awaitJobs()
    return results.flatMap(r => (r.kind === 'job' || r.kind === 'rows' ? [r.name] : []))
  }

  it('numbers INSERT jobs among INSERTs only: a SELECT or EXPLAIN before them does not rename them', async () => {
    expect(await names(`INSERT INTO o SELECT a FROM t; INSERT INTO o SELECT a + 1 FROM t;`)).toEqual(['f-1', 'f-2'])
    expect(await names(`SELECT a FROM t; EXPLAIN SELECT a FROM t; INSERT INTO o SELECT a FROM t; SELECT a FROM t; INSERT INTO o SELECT a + 1 FROM t;`))
      .toEqual(['f-select-1', 'f-1', 'f-select-2', 'f-2'])
  })

  it("keeps counting INSERTs named by 'pipeline.name', as before", async () => {
    expect(await names(`SET 'pipeline.name' = 'p'; INSERT INTO o SELECT a FROM t; RESET 'pipeline.name'; INSERT INTO o SELECT a FROM t;`)).toEqual(['p', 'f-2'])
  })
})

describe('a failing job', () => {
  const twoJobs = (policy?: string): string =>
    `${GEN()}
    CREATE TABLE counts (c BIGINT, s BIGINT) WITH ('connector' = 'print');
    CREATE TABLE quotients (id BIGINT, q BIGINT) WITH ('connector' = 'blackhole');
    ${policy ? `SET 'weir.on-job-failure' = '${policy}';` : ''}
    INSERT INTO counts SELECT COUNT(*), SUM(id) FROM gen;
    INSERT INTO quotients SELECT id, 1000 / (id - 300) FROM gen;`

  /** Runs twoJobs: returns the failure as reported, whether job 1 was still running then, and job 1's end. */
  async function runTwo(sql: string, options: Record<string, string> = {}, log: string[] = []) {
    const printed: string[] = []
    let firstEnded = false
    let failure: { job: string; error: unknown; firstEnded: boolean; printed: number } | undefined
    const stop = new AbortController()
    const s = new Session({
      println: l => printed.push(l),
      options,
      signal: stop.signal,
      log: l => log.push(l),
      onJobFailed: (job, error) => {
        failure = { job, error, firstEnded, printed: printed.length }
      },
    })
    const results = await s.executeSql(sql)
    const first = results.find((r): r is Extract<StatementResult, { kind: 'job' }> => r.kind === 'job')!
    const ended = first.done.then(m => {
      firstEnded = true
      return m
    }, e => {
      firstEnded = true
      throw e
    })
    await until(() => failure !== undefined)
    return { failure: failure!, printed, first: ended, stop, session: s }
  }

  it('is reported at once with the job, the operator and the row, and the other job stops with a savepoint that a later run resumes from', async () => {
    const dir = tmp()
    const options = { 'state.checkpoints.dir': join(dir, 'checkpoints') }
    const { failure, first, session } = await runTwo(twoJobs(), options)
    // Reported while the other job was still running.
    expect(failure.firstEnded).toBe(false)
    expect(failure.job).toBe('weir-job-2')
    const e = failure.error as WeirError
    expect(e).toBeInstanceOf(WeirError)
    expect(e.message).toBe('division by zero')
    expect(e.notes[0]).toMatch(/^in operator 1-source: Source\(table=\[gen\], connector=\[datagen\], fields=\[id, \(1000 \/ \(id - 300\)\) AS /)
    expect(e.notes[1]).toBe('input row: id=300')
    expect(e.span?.start.line).toBe(twoJobs().split('\n').findIndex(l => l.includes('1000 / (id - 300)')) + 1)
    const m = await first
    expect(m.cancelled).toBe(true)
    expect(m.savepoint).toMatch(/savepoint-\d+$/)
    await expect(session.awaitJobs()).rejects.toThrow('division by zero')

    // The next run of the first job alone resumes from that savepoint.
    const log: string[] = []
    const again = new Session({ println: () => undefined, options, log: l => log.push(l), signal: AbortSignal.timeout(300) })
    await again.executeSql(
      `${GEN()} CREATE TABLE counts (c BIGINT, s BIGINT) WITH ('connector' = 'print'); INSERT INTO counts SELECT COUNT(*), SUM(id) FROM gen;`,
    )
    await again.awaitJobs()
    expect(log.some(l => l.startsWith(`job 'weir-job-1': resuming from savepoint`) && l.includes(m.savepoint!))).toBe(true)
  })

  it("with 'weir.on-job-failure' = 'continue' lets the other job run on", async () => {
    const { failure, printed, first, stop } = await runTwo(twoJobs('continue'))
    expect(failure.firstEnded).toBe(false)
    // Still printing its running count after the failure.
    await until(() => printed.length > failure.printed + 3)
    stop.abort()
    const m: JobMetrics = await first
    expect(m.cancelled).toBe(true)
    expect(m.savepoint).toBeUndefined()
  })

  it("with 'weir.on-job-failure' = 'stop' stops the other job without a savepoint", async () => {
    const dir = tmp()
    const log: string[] = []
    const { first } = await runTwo(twoJobs('stop'), { 'state.checkpoints.dir': join(dir, 'checkpoints') }, log)
    const m = await first
    expect(m.cancelled).toBe(true)
    expect(m.savepoint).toBeUndefined()
    expect(log).toContain(`job 'weir-job-2' failed: stopping job 'weir-job-1' ('weir.on-job-failure' = 'stop')`)
  })

  it('names the operator and the row of a failing calc after an aggregate, and of a bad CAST at run time', async () => {
    const s = new Session({ println: () => undefined })
    const e = await s.executeSql(
      `CREATE TABLE t (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '12', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '12');
      SELECT k, 100 / (n - 4) AS q FROM (SELECT id % 3 AS k, COUNT(*) AS n FROM t GROUP BY id % 3);`,
    ).catch((x: unknown) => x) as WeirError
    expect(e.message).toBe('division by zero')
    // The calc reads the aggregate's output, whose key column has no name of its own (as in EXPLAIN).
    expect(e.notes[0]).toMatch(/^in operator \d+-calc: Calc\(select=\[\$f0 AS k, \(100 \/ \(n - 4\)\) AS q\]/)
    expect(e.notes[1]).toMatch(/^input row: \$f0=[012], n=4$/)

    const cast = await new Session().executeSql(`CREATE TABLE w (s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '5', 'fields.s.length' = '3');
      SELECT CAST(s AS INT) FROM w;`).catch((x: unknown) => x) as WeirError
    expect(cast.message).toMatch(/^cannot cast '.{3}' to INT$/)
    expect(cast.notes[1]).toMatch(/^input row: s='.{3}'$/)
  })

  it("shows of a source's input row the columns the job read, not the others as NULL", async () => {
    const dir = tmp()
    writeFileSync(join(dir, 'in.json'), '{"a": 1, "b": "x", "c": 2}\n{"a": 2, "b": "y", "c": 0}\n')
    const e = await new Session().executeSql(`CREATE TABLE t (a INT, b STRING, c INT) WITH ('connector' = 'filesystem', 'path' = '${dir}',
      'format' = 'json');
      SELECT b, 10 / c FROM t;`).catch((x: unknown) => x) as WeirError
    expect(e.message).toBe('division by zero')
    expect(e.notes[1]).toBe("input row: b='y', c=0")
  })
})

describe('stopping a job emits no window that is still open', () => {
  const procWindow = (size: string): string =>
    `${GEN(1000).replace('(id BIGINT)', '(id BIGINT, pt AS PROCTIME())')}
    SELECT COUNT(*) AS n, MIN(id) AS lo, MAX(id) AS hi FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(pt), INTERVAL ${size})) GROUP BY window_start, window_end;`

  it('a cancel (the session signal) does not fire an open processing-time window', async () => {
    const stop = new AbortController()
    const s = new Session({ signal: stop.signal })
    const [r] = (await cancelledAfter(100, s, stop, procWindow(`'1' HOUR`))).slice(-1) as [Extract<StatementResult, { kind: 'rows' }>]
    expect(r.metrics.cancelled).toBe(true)
    expect(r.metrics.sourceRecordsRead).toBeGreaterThan(0)
    expect(r.changes).toEqual([])
  })

  it('a cancel emits no final watermark: an open event-time window stays unfired', async () => {
    const stop = new AbortController()
    const s = new Session({ signal: stop.signal })
    const [r] = (await cancelledAfter(100, s, stop, `CREATE TABLE ev (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 1000, 3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
      SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end;`)).slice(-1) as [
      Extract<StatementResult, { kind: 'rows' }>,
    ]
    expect(r.metrics.sourceRecordsRead).toBeGreaterThan(0)
    expect(r.changes).toEqual([])
  })

  it('a stop with a savepoint keeps the open processing-time window, and the restored job fires it when its time comes', async () => {
    const options = { 'state.checkpoints.dir': join(tmp(), 'checkpoints') }
    const insert = procWindow(`'2' SECOND`).replace('SELECT', `CREATE TABLE w (n BIGINT, lo BIGINT, hi BIGINT) WITH ('connector' = 'print');
      INSERT INTO w SELECT`)
    const windows: number[][] = []
    const println = (l: string): void => {
      windows.push(/^\+I\[(\d+), (\d+), (\d+)\]$/.exec(l)!.slice(1).map(Number))
    }
    const stopA = new AbortController()
    const a = new Session({ println, options, stopWithSavepoint: stopA.signal, faults: stopAfter(100, stopA) })
    await a.executeSql(insert)
    const [ma] = await a.awaitJobs()
    expect(ma!.savepoint).toBeDefined()
    expect(ma!.sourceRecordsRead).toBeGreaterThan(0)
    const firedInA = windows.length

    const stopB = new AbortController()
    const b = new Session({ println, options, signal: stopB.signal })
    await b.executeSql(insert)
    // The window open at the savepoint, then one of B's own.
    await until(() => windows.length >= firedInA + 2)
    stopB.abort()
    await b.awaitJobs()
    // Every id from 1 on is in exactly one window, in order: the savepoint's window was neither lost nor cut.
    let next = 1
    for (const [n, lo, hi] of windows) {
      expect(lo).toBe(next)
      expect(n).toBe(hi! - lo! + 1)
      next = hi! + 1
    }
  })
})

describe('sink counts', () => {
  it('counts rows committed apart from rows written: a cancel between checkpoints commits only what a checkpoint sealed', async () => {
    const out = tmp()
    const stop = new AbortController()
    const visibleLines = (): number =>
      readdirSync(out).filter(f => f.startsWith('part-')).flatMap(f => readFileSync(join(out, f), 'utf8').split('\n').filter(Boolean)).length
    // The source is held after 200 rows until a checkpoint has committed rows, then cancelled after 400
    // (batches of 10): rows written after that checkpoint, and a cancel between checkpoints.
    const committed = new AbortController()
    const s = new Session({
      println: () => undefined,
      signal: stop.signal,
      faults: faultsOf(holdSourceAfter(200, committed.signal), stopAfter(400, stop)),
      onCheckpoint: () => {
        if (visibleLines() > 0) committed.abort()
      },
      options: { 'state.checkpoints.dir': join(tmp(), 'cp'), 'execution.checkpointing.interval': '200 ms', 'execution.batch-size': '10' },
    })
    await s.executeSql(`${GEN(2000)} CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO o SELECT id FROM gen;`)
    const [m] = await s.awaitJobs()
    const lines = visibleLines()
    expect(lines).toBeGreaterThan(0)
    expect(m!.sinkCommittedRows['o']).toBe(lines)
    expect(m!.sinkRows['o']).toBeGreaterThanOrEqual(lines)
  })
})
