// Chaos against a real Kafka broker: `weir run` of a file with two jobs reading one topic of several
// partitions — a TUMBLE window aggregate into a 'kafka' sink, a GROUP BY into an 'upsert-kafka' sink,
// both exactly-once — SIGKILLed again and again (at random moments, between a checkpoint's completion
// and its transaction's commit, inside an open transaction, at the last checkpoint of the bounded
// job) and restarted; the broker stopped and started again under a running job; and a job restored
// at another parallelism. A read_committed consumer of each output topic must see exactly what the
// uninterrupted run wrote, which equals DuckDB's result over the same rows.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from 'kafkajs'
import { T, type Field } from '../../common/types.js'
import { canonWeirRow, OracleData } from '../oracle/oracle.js'
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-server.js'
import { createTopics, produceRoundRobin, readTopic, type Received } from '../support/kafka-topics.js'

/** `weir` with the test's fault hook (test/support/weir-with-faults.ts, built to dist/). */
const WEIR_WITH_FAULTS = resolve('dist/test/support/weir-with-faults.js')
const PARTITIONS = 3
/** Rows of the chaos input: enough that KILLS restarts, each progressing a few checkpoints, do not finish the job. */
const ROWS = 200_000
const KILLS = 22
const SMALL_ROWS = 20_000

let broker: KafkaBroker
let kafka: Kafka
let data: OracleData
/** A smaller input ('events-small') for the tests that run the job whole once or twice. */
let small: OracleData
const dirs: string[] = []
const running = new Set<ChildProcess>()

beforeAll(async () => {
  broker = await startKafkaBroker()
  kafka = broker.client()
  data = await OracleData.create({ seed: 16, rows: ROWS })
  small = await OracleData.create({ seed: 17, rows: SMALL_ROWS })
  await createTopics(kafka, [{ topic: 'events', partitions: PARTITIONS }, { topic: 'events-small', partitions: PARTITIONS }])
  // Dealt round robin: each partition keeps the generated order, so no row is late (see kafka-source.test.ts).
  await produceRoundRobin(kafka, 'events', PARTITIONS, readFileSync(data.path, 'utf8').split('\n').filter(l => l !== ''))
  await produceRoundRobin(kafka, 'events-small', PARTITIONS, readFileSync(small.path, 'utf8').split('\n').filter(l => l !== ''))
}, 450_000)

afterAll(async () => {
  // A run that outlived a failed test (its timeout) must not outlive the file.
  for (const child of running) child.kill('SIGKILL')
  await data?.close()
  await small?.close()
  await broker?.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}, 150_000)

/** The file's two jobs, named `<name>-windows` and `<name>-totals`, writing topics of the same names. */
function jobSql(name: string, input: string, opts: { parallelism?: number } = {}): string {
  const kafkaOptions = (topic: string): string => `'topic' = '${topic}', 'properties.bootstrap.servers' = '${broker.bootstrap}'`
  return `
    SET 'execution.checkpointing.interval' = '50 ms';
    SET 'execution.batch-size' = '64';
    SET 'parallelism.default' = '${opts.parallelism ?? 1}';
    CREATE TABLE t (k STRING, v INT, d DECIMAL(10, 2), x DOUBLE, s STRING, ts TIMESTAMP(3), b BIGINT,
      WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
      WITH ('connector' = 'kafka', ${kafkaOptions(input)}, 'format' = 'json',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
    CREATE TABLE windows (k STRING, ws TIMESTAMP(3), c BIGINT, s INT)
      WITH ('connector' = 'kafka', ${kafkaOptions(`${name}-windows`)}, 'format' = 'json');
    CREATE TABLE totals (k STRING, v INT, c BIGINT, s BIGINT, PRIMARY KEY (k, v) NOT ENFORCED)
      WITH ('connector' = 'upsert-kafka', ${kafkaOptions(`${name}-totals`)}, 'key.format' = 'json', 'value.format' = 'json');
    SET 'pipeline.name' = '${name}-windows';
    INSERT INTO windows SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
      GROUP BY k, window_start, window_end;
    SET 'pipeline.name' = '${name}-totals';
    INSERT INTO totals SELECT k, v, COUNT(*), COUNT(s) FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v;`
}

/** A directory with the job file, and the two output topics, created. */
async function setUp(name: string, input: string, opts: { parallelism?: number } = {}): Promise<string> {
  await createTopics(kafka, [{ topic: `${name}-windows`, partitions: 2 }, { topic: `${name}-totals`, partitions: 2 }])
  const dir = mkdtempSync(join(tmpdir(), `weir-chaos-kafka-${name}-`))
  dirs.push(dir)
  writeFileSync(join(dir, 'job.sql'), jobSql(name, input, opts))
  return dir
}

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * When to kill a run from outside: `afterMs` after the start, or `ms` after its `transactions`-th Kafka
 * transaction committed, whichever is first when both are given; with SIGKILL unless told.
 */
type Kill = { readonly afterMs?: number; readonly transactions?: number; readonly ms?: number; readonly signal?: NodeJS.Signals }

/** `weir run job.sql` in `dir`, with the fault hook's arguments (`--crash-at` …) and an optional kill from outside. */
function runWeir(dir: string, faults: readonly string[] = [], kill?: Kill, onStderr?: (text: string) => void): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [WEIR_WITH_FAULTS, '--tell-transactions', ...faults, 'run', 'job.sql'], { cwd: dir })
    running.add(child)
    let stdout = ''
    let stderr = ''
    let timer: NodeJS.Timeout | undefined
    const killIn = (ms: number): void => {
      timer ??= setTimeout(() => child.kill(kill?.signal ?? 'SIGKILL'), ms)
    }
    if (kill?.afterMs !== undefined) killIn(kill.afterMs)
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
      onStderr?.(stderr)
      if (kill?.transactions !== undefined && stderr.includes(`kafka transaction ${kill.transactions} committed`)) killIn(kill.ms ?? 0)
    })
    child.on('error', fail)
    child.on('exit', (code, signal) => {
      running.delete(child)
      clearTimeout(timer)
      done({ code, signal, stdout, stderr })
    })
  })
}

const WINDOW_SCHEMA: Field[] = [{ name: 'k', type: T.string() }, { name: 'ws', type: T.timestamp(3) }, { name: 'c', type: T.bigint() }, {
  name: 's',
  type: T.int(),
}]
const TOTALS_SCHEMA: Field[] = [{ name: 'k', type: T.string() }, { name: 'v', type: T.int() }, { name: 'c', type: T.bigint() }, {
  name: 's',
  type: T.bigint(),
}]

/** The window topic's messages as canonical rows, sorted (a multiset: a message written twice shows twice). */
function windowRows(messages: readonly Received[]): string[] {
  return messages.map(m => {
    const o = JSON.parse(m.value!) as { k: string | null; ws: string; c: number; s: number | null }
    return canonWeirRow(WINDOW_SCHEMA, [o.k, Date.parse(o.ws.replace(' ', 'T') + 'Z'), o.c, o.s])
  }).sort()
}

/** The upsert topic folded by key (the last value of a key, a tombstone removing it), as canonical rows, sorted. */
function foldTotals(messages: readonly Received[]): string[] {
  const live = new Map<string, string>()
  for (const m of messages) {
    if (m.value === null) live.delete(m.key!)
    else live.set(m.key!, m.value)
  }
  return [...live.entries()].map(([key, value]) => {
    const o = { ...JSON.parse(value), ...JSON.parse(key) } as { k: string; v: number; c: number; s: number | null }
    return canonWeirRow(TOTALS_SCHEMA, [o.k, o.v, o.c, o.s])
  }).sort()
}

/**
 * Keys whose COUNT(*) does not grow from one message to the next. Exactly once, each message of a key
 * (one per checkpoint at most, in order in its partition) counts more rows than the one before; a
 * transaction produced again after a later one, or twice, shows as a count that repeats or goes back.
 */
function countsNotGrowing(messages: readonly Received[]): string[] {
  const last = new Map<string, number>()
  const bad: string[] = []
  for (const m of messages) {
    const c = (JSON.parse(m.value!) as { c: number }).c
    if ((last.get(m.key!) ?? 0) >= c) bad.push(`${m.key}: ${last.get(m.key!)} then ${c} (partition ${m.partition}, offset ${m.offset})`)
    last.set(m.key!, c)
  }
  return bad
}

interface Output {
  readonly windows: string[]
  readonly totals: string[]
  readonly totalsMessages: Received[]
}

async function output(name: string): Promise<Output> {
  const totalsMessages = await readTopic(kafka, `${name}-totals`, 2)
  return { windows: windowRows(await readTopic(kafka, `${name}-windows`, 2)), totals: foldTotals(totalsMessages), totalsMessages }
}

/** Both queries as DuckDB computes them over `d`'s rows, canonical and sorted. */
async function oracle(d: OracleData): Promise<{ windows: string[]; totals: string[] }> {
  const windows = await d.duck(
    `SELECT k, epoch_ms(tms - tms % 2000) AS ws, COUNT(*), SUM(v) FROM (SELECT *, epoch_ms(ts) AS tms FROM t) GROUP BY k, tms - tms % 2000`,
  )
  const totals = await d.duck(`SELECT k, v, COUNT(*), COUNT(s) FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v`)
  return { windows: windows.sort(), totals: totals.sort() }
}

/** A seeded generator, so that a failing kill schedule can be replayed. */
function seeded(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
}

describe('chaos: SIGKILL at random and at the worst moments, Kafka in and out', () => {
  let reference: Output | undefined

  it('the uninterrupted run writes what DuckDB computes', async () => {
    const dir = await setUp('ref', 'events')
    const run = await runWeir(dir)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain(`job 'ref-windows' finished: ${ROWS} rows read`)
    expect(run.stderr).toContain(`job 'ref-totals' finished: ${ROWS} rows read`)
    // Every row a sink took was committed: none is said to be discarded.
    expect(run.stderr).not.toContain('discarded')
    const out = await output('ref')
    const expected = await oracle(data)
    expect(expected.windows.length).toBeGreaterThan(1000)
    expect(out.windows).toEqual(expected.windows)
    expect(out.totals).toEqual(expected.totals)
    expect(countsNotGrowing(out.totalsMessages)).toEqual([])
    reference = out
  }, 300_000)

  it(`after ${KILLS} kills and restarts, a read_committed consumer sees exactly the uninterrupted run's output`, async () => {
    expect(reference, 'the uninterrupted run must have passed').toBeDefined()
    const dir = await setUp('chaos', 'events')
    const rnd = seeded(99)
    const pick = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1))
    // Each kill after a few committed transactions (the output flows), so that it lands mid-stream;
    // 'start' kills during the restart itself (recovery, the consumer joining).
    const modes = ['before-commit', 'random', 'kafka-transaction', 'random', 'before-manifest', 'start', 'kafka-transaction', 'upload', 'before-commit',
      'random'] as const
    const seen: string[] = []
    const killsOf = { windows: 0, totals: 0 }
    let kills = 0
    for (let run = 0; kills < KILLS; run++) {
      expect(run, `runs so far: ${seen.join(', ')}`).toBeLessThan(KILLS * 2)
      const mode = kills === KILLS - 1 ? 'final-commit' : modes[run % modes.length]!
      const after = pick(1, 2)
      const faults = mode === 'random' || mode === 'start'
        ? []
        : mode === 'kafka-transaction'
        ? ['--crash-at', `kafka-transaction:${after + 1}`]
        : mode === 'final-commit'
        ? ['--crash-at', 'final-commit:1']
        : ['--crash-at', `${mode}:1`, '--armed-after', String(after)]
      // Every mode bounds how far a run gets, so that the 22 runs do not finish the input on a fast
      // host: a 'start' kill comes at a random moment of the start, or at the first commit if the
      // start is over by then (a delay of up to 3 s alone let one run read a third of the input).
      const kill: Kill | undefined = mode === 'random'
        ? { transactions: after, ms: pick(0, 300) }
        : mode === 'start'
        ? { afterMs: pick(200, 1500), transactions: 1, ms: 0 }
        : undefined
      const r = await runWeir(dir, faults, kill)
      if (r.signal !== 'SIGKILL') {
        throw new Error(`run ${run} (${mode}) ended with ${r.code} instead of being killed, after ${kills} kills (${seen.join(', ')}): ${r.stderr}`)
      }
      kills++
      seen.push(mode)
      // A job that had finished before this kill was not killed mid-way.
      if (!r.stderr.includes(`job 'chaos-windows' finished`)) killsOf.windows++
      if (!r.stderr.includes(`job 'chaos-totals' finished`)) killsOf.totals++
    }
    const last = await runWeir(dir)
    expect(last.code, last.stderr).toBe(0)
    expect(killsOf.windows, seen.join(', ')).toBeGreaterThanOrEqual(20)
    expect(killsOf.totals, seen.join(', ')).toBeGreaterThanOrEqual(20)

    const out = await output('chaos')
    expect(out.windows.length).toBe(reference!.windows.length)
    expect(out.windows).toEqual(reference!.windows)
    expect(out.totals).toEqual(reference!.totals)
    expect(countsNotGrowing(out.totalsMessages)).toEqual([])
    // Kills inside open transactions left messages a read_uncommitted consumer sees (and must not count).
    // In either topic: which sink's transaction a kill lands in depends on how fast the runs read (a
    // 'kafka-transaction' kill is in the process's 2nd or 3rd, of either job).
    const uncommitted = (await readTopic(kafka, 'chaos-windows', 2, { readUncommitted: true })).length +
      (await readTopic(kafka, 'chaos-totals', 2, { readUncommitted: true })).length
    expect(uncommitted).toBeGreaterThan(out.windows.length + out.totalsMessages.length)
  }, 900_000)
})

describe('the broker stopped and started again while a job runs', () => {
  it('the job waits, reconnects and ends with exactly the output of a run without the outage', async () => {
    const dir = await setUp('outage', 'events')
    let stopped: Promise<void> | undefined
    let text = ''
    const run = runWeir(dir, [], undefined, stderr => {
      text = stderr
      // Once output flows (two transactions committed), the broker goes away for a while.
      if (stopped === undefined && stderr.includes('kafka transaction 2 committed')) stopped = broker.stop()
    })
    const transactions = (): number => text.split('\n').filter(l => l.includes('kafka transaction')).length
    for (let i = 0; i < 1200 && stopped === undefined; i++) await new Promise(r => setTimeout(r, 100))
    expect(stopped, 'the job committed no transaction').toBeDefined()
    await stopped
    const before = transactions()
    expect(text).not.toContain('finished')
    // Down for a few seconds more than the clients' first retries, then back at the same address.
    await new Promise(r => setTimeout(r, 5000))
    await broker.start()
    // Both jobs end (a job that failed would say so and end the run with 1).
    let exit: Run | undefined
    void run.then(r => (exit = r))
    const finished = (): boolean => ['windows', 'totals'].every(j => text.includes(`job 'outage-${j}' finished`))
    for (let i = 0; i < 3000 && exit === undefined && !finished(); i++) await new Promise(r => setTimeout(r, 100))
    expect(text).not.toContain('failed')
    expect(finished(), text).toBe(true)
    // It committed more once the broker was back.
    expect(transactions()).toBeGreaterThan(before)
    // Once its jobs have finished, `weir run` exits: a consumer kafkajs restarted after the outage
    // does not outlive its closed reader (it kept the process alive).
    expect((await run).code, text).toBe(0)
    const out = await output('outage')
    const expected = await oracle(data)
    expect(out.windows).toEqual(expected.windows)
    expect(out.totals).toEqual(expected.totals)
    expect(countsNotGrowing(out.totalsMessages)).toEqual([])
  }, 600_000)
})

describe('source positions restored at another parallelism', () => {
  it.each([
    { from: 2, to: 1, how: 'killed after a checkpoint', kill: { transactions: 2, ms: 0 } as Kill },
    { from: 2, to: 3, how: 'stopped with a savepoint (SIGTERM)', kill: { transactions: 2, ms: 0, signal: 'SIGTERM' } as Kill },
    { from: 1, to: 2, how: 'killed after a checkpoint', kill: { transactions: 2, ms: 0 } as Kill },
  ])('parallelism $from, $how, restored at parallelism $to: nothing lost or repeated', async ({ from, to, kill }) => {
    // The first run must be stopped before its windows job has read everything; on a fast run the
    // job can finish between the kill's trigger and its effect (then the case proves nothing): such
    // an attempt is set aside and the case starts over with fresh topics, at most three times.
    let name = ''
    let dir = ''
    let first: Run | undefined
    for (let attempt = 1; attempt <= 3; attempt++) {
      name = `p${from}to${to}${attempt > 1 ? `a${attempt}` : ''}`
      dir = await setUp(name, 'events-small', { parallelism: from })
      first = await runWeir(dir, [], kill)
      if (!first.stderr.includes(`job '${name}-windows' finished`)) break
    }
    expect(first!.stderr).not.toContain(`job '${name}-windows' finished`)
    const firstRun = Object.fromEntries(['windows', 'totals'].map(job => [job, sourceSubtasks(join(dir, '.weir', 'checkpoints', `${name}-${job}`))]))
    writeFileSync(join(dir, 'job.sql'), jobSql(name, 'events-small', { parallelism: to }))
    const second = await runWeir(dir)
    expect(second.code, second.stderr).toBe(0)
    // Both jobs resumed where the first run left them, with another number of subtasks — but for one
    // that finished before the kill (the totals job can, on a fast run), which has nothing to resume.
    // (A kill can also land after a job's final checkpoint but before it says so: the second run then
    // finds it finished at that checkpoint.)
    let resumed = 0
    for (const job of ['windows', 'totals']) {
      const done = first!.stderr.includes(`job '${name}-${job}' finished`) || second.stderr.includes(`job '${name}-${job}' had already finished`)
      if (done) continue
      resumed++
      expect(second.stderr).toMatch(new RegExp(`job '${name}-${job}': resuming from (checkpoint|savepoint)`))
      const read = Number(new RegExp(`job '${name}-${job}' finished: (\\d+) rows read`).exec(second.stderr)?.[1])
      expect(read, `${job}: ${second.stderr}`).toBeGreaterThan(0)
      expect(read).toBeLessThan(SMALL_ROWS)
      // The source ran as `from` subtasks, then as `to`: positions were dealt anew, not restored as they were.
      expect(sourceSubtasks(join(dir, '.weir', 'checkpoints', `${name}-${job}`))).toEqual([to])
      expect(firstRun[job]).toEqual([from])
    }
    expect(resumed, `no job was interrupted: ${second.stderr}`).toBeGreaterThan(0)
    const out = await output(name)
    const expected = await oracle(small)
    expect(out.windows).toEqual(expected.windows)
    expect(out.totals).toEqual(expected.totals)
    expect(countsNotGrowing(out.totalsMessages)).toEqual([])
  }, 300_000)
})

/** How many subtasks each source had in the latest complete checkpoint or savepoint in a job's folder. */
function sourceSubtasks(jobFolder: string): (number | undefined)[] {
  const ids = readdirSync(jobFolder).map(f => /^(?:chk|savepoint)-(\d+)$/.exec(f)).filter(m => m !== null && existsSync(join(jobFolder, m[0], '_metadata')))
  const latest = ids.sort((a, b) => Number(b![1]) - Number(a![1]))[0]!
  const manifest = JSON.parse(readFileSync(join(jobFolder, latest[0], '_metadata'), 'utf8')) as { sources: Record<string, { subtasks?: unknown[] }> }
  return Object.values(manifest.sources).map(s => s.subtasks?.length)
}

describe('errors at the start, and bad records', () => {
  /** A directory with a job file of `sql`. */
  function fileJob(sql: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'weir-chaos-kafka-errors-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'job.sql'), sql)
    return dir
  }
  const source = (topic: string, format: string, options = '') =>
    `CREATE TABLE t (s STRING, n INT) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${broker.bootstrap}',
      'format' = '${format}', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'${options});`
  const sink = (topic: string, servers = broker.bootstrap) =>
    `CREATE TABLE out (s STRING, n INT) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${servers}', 'format' = 'json');`
  const checkpoints = `SET 'execution.checkpointing.interval' = '200 ms';`
  const generated = `CREATE TABLE g (s STRING, n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');`

  it('a sink topic that does not exist fails the job at its start, naming it (and it is not created)', async () => {
    const dir = fileJob(`${checkpoints} ${generated} ${sink('nowhere')} INSERT INTO out SELECT * FROM g;`)
    const r = await runWeir(dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`Kafka topic 'nowhere' of table 'out' does not exist at ${broker.bootstrap}`)
    expect(r.stderr).toContain('create the topic first')
    const admin = kafka.admin()
    await admin.connect()
    expect(await admin.listTopics()).not.toContain('nowhere')
    await admin.disconnect()
  }, 300_000)

  it('a sink whose broker is down fails the job, naming the address', async () => {
    const dir = fileJob(`${checkpoints} ${generated} ${sink('x', '127.0.0.1:1')} INSERT INTO out SELECT * FROM g;`)
    const r = await runWeir(dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`the Kafka broker at 127.0.0.1:1 cannot be reached`)
    expect(r.stderr).toContain(`'properties.bootstrap.servers'`)
  }, 300_000)

  it(`a malformed CSV record fails the job naming its topic, partition and offset; with 'csv.ignore-parse-errors' it is skipped and counted`, async () => {
    await createTopics(kafka, [{ topic: 'csv-in', partitions: 2 }, { topic: 'csv-out', partitions: 1 }, { topic: 'csv-out-skip', partitions: 1 }])
    // Partition 0 gets a,1 c,3 e,5; partition 1 gets b,2 then the bad record at offset 1, then d,4.
    await produceRoundRobin(kafka, 'csv-in', 2, ['a,1', 'b,2', 'c,3', 'oops,not a number', 'e,5', 'd,4'])
    const failed = await runWeir(fileJob(`${checkpoints} ${source('csv-in', 'csv')} ${sink('csv-out')} INSERT INTO out SELECT * FROM t;`))
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain(`bad record at topic 'csv-in', partition 1, offset 1 (table 't')`)
    expect(failed.stderr).toContain(`'csv.ignore-parse-errors' = 'true'`)

    const skipped = await runWeir(
      fileJob(`${checkpoints} ${source('csv-in', 'csv', `, 'csv.ignore-parse-errors' = 'true'`)} ${sink('csv-out-skip')} INSERT INTO out SELECT * FROM t;`),
    )
    expect(skipped.code, skipped.stderr).toBe(0)
    expect(skipped.stderr).toContain('1 bad records skipped')
    expect((await readTopic(kafka, 'csv-out-skip', 1)).map(m => m.value).sort()).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((s, i) => JSON.stringify({ s, n: i + 1 })),
    )
  }, 300_000)
})
