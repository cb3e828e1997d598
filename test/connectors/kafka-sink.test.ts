// The 'kafka' and 'upsert-kafka' sinks against a real broker: what a read_committed consumer of the
// output topic sees equals the DuckDB oracle, with exactly-once delivery across crashes at a
// checkpoint's worst points (the fault hook) and at random moments; at-least-once and none
// deliver without transactions; and the option and plan errors.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from 'kafkajs'
import { T, type Field } from '../../common/types.js'
import { CommitWithData, type ConnectorOptions } from '../../connectors/api.js'
import { kafkaSink } from '../../connectors/kafka/sink/index.js'
import { Session } from '../../engine/session.js'
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-server.js'
import { createTopics, readTopic as readAll, type Received } from '../support/kafka-topics.js'
import { canonWeirRow, expectSameMultiset, materialize, OracleData } from '../oracle/oracle.js'
import type { Row } from '../../core/batch.js'
import { errorOf, sinkCtx, type SinkJob } from './helpers.js'

const WEIR = resolve('bin/weir.js')
const WEIR_WITH_FAULTS = resolve('dist/test/support/weir-with-faults.js')

let broker: KafkaBroker
let kafka: Kafka
let data: OracleData
const dirs: string[] = []

beforeAll(async () => {
  broker = await startKafkaBroker()
  kafka = broker.client()
  data = await OracleData.create({ seed: 16, rows: 6000 })
}, 450_000)

afterAll(async () => {
  await data?.close()
  await broker?.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}, 150_000)

function createTopic(topic: string, partitions: number): Promise<void> {
  return createTopics(kafka, [{ topic, partitions }])
}

function readTopic(topic: string, partitions: number, readUncommitted = false): Promise<Received[]> {
  return readAll(kafka, topic, partitions, { readUncommitted })
}

/**
 * Writes `rows` through an exactly-once sink, seals them in checkpoint 1 and closes it; then a sink
 * restored from what that checkpoint stores, as a restore reads it back (the commit as JSON, the
 * messages as bytes), commits them.
 */
async function sealAndRestore(options: ConnectorOptions, schema: readonly Field[], job: SinkJob, rows: Row[]): Promise<void> {
  const w = await kafkaSink.create(sinkCtx(options, schema, undefined, job))
  await w.write({ rows, kinds: null })
  const sealed = await w.prepareCommit!(1) as CommitWithData
  await w.close()
  const restoredCommit = JSON.parse(JSON.stringify(sealed.commit)) as unknown
  const restored = await kafkaSink.create(sinkCtx(options, schema, undefined, { ...job, restoredCommit, restoredData: Uint8Array.from(sealed.data) }))
  await restored.close()
}

/** The error a new sink of `job` fails with when it writes `rows`. */
async function writeError(options: ConnectorOptions, schema: readonly Field[], job: SinkJob, rows: Row[]): Promise<Error> {
  const w = await kafkaSink.create(sinkCtx(options, schema, undefined, job))
  const e = await errorOf(async () => w.write({ rows, kinds: null }))
  await w.close()
  return e
}

/** Runs `weir run job.sql` in `dir`; `crashAt` ('<point>:<n>') kills it at a checkpoint's point, `killAfterMs` at a moment. */
function runWeir(dir: string, crashAt?: string, killAfterMs?: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const argv = crashAt === undefined ? [WEIR, 'run', 'job.sql'] : [WEIR_WITH_FAULTS, '--crash-at', crashAt, 'run', 'job.sql']
    const child = spawn(process.execPath, argv, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString()
    })
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs)
    child.on('error', fail)
    child.on('exit', code => {
      clearTimeout(timer)
      done({ code, stderr })
    })
  })
}

function jobDir(sql: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-kafka-sink-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'job.sql'), sql)
  return dir
}

function kafkaOptions(topic: string, extra = ''): string {
  return `'topic' = '${topic}', 'properties.bootstrap.servers' = '${broker.bootstrap}'${extra}`
}

const WINDOW_SQL = (topic: string, sets: string, extra = '') => `
  SET 'pipeline.name' = 'win-${topic}';
  ${sets}
  ${data.ddl}
  CREATE TABLE out (k STRING, ws TIMESTAMP(3), c BIGINT, s INT)
    WITH ('connector' = 'kafka', ${kafkaOptions(topic, extra)}, 'format' = 'json');
  INSERT INTO out SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
    GROUP BY k, window_start, window_end;`

const WINDOW_SCHEMA: Field[] = [{ name: 'k', type: T.string() }, { name: 'ws', type: T.timestamp(3) }, { name: 'c', type: T.bigint() }, {
  name: 's',
  type: T.int(),
}]

/** The window query's rows as DuckDB computes them, canonical (test/oracle). */
async function windowOracle(): Promise<string[]> {
  const rows = await data.duck(
    `SELECT k, epoch_ms(tms - tms % 2000) AS ws, COUNT(*), SUM(v) FROM (SELECT *, epoch_ms(ts) AS tms FROM t) GROUP BY k, tms - tms % 2000`,
  )
  expect(rows.length).toBeGreaterThan(10)
  return rows.sort()
}

/** A message's JSON value as a canonical row of WINDOW_SCHEMA. */
function windowRow(value: string): string {
  const o = JSON.parse(value) as { k: string | null; ws: string; c: number; s: number | null }
  return canonWeirRow(WINDOW_SCHEMA, [o.k, Date.parse(o.ws.replace(' ', 'T') + 'Z'), o.c, o.s])
}

/**
 * Runs the job killed at each crash point in turn (a crash leaves no error on stderr), then killed at
 * `random.runs` seeded moments (inside a transaction too: what it had produced is aborted); each loop
 * stops once a run ends by itself, as later points would not be reached either. Returns the runs killed.
 */
async function crashRuns(dir: string, points: readonly string[], random: { readonly seed: number; readonly runs: number }): Promise<number> {
  let crashed = 0
  for (const at of points) {
    const r = await runWeir(dir, at)
    if (r.code === 0) break
    expect(r.stderr).not.toMatch(/error/i)
    crashed++
  }
  let seed = random.seed
  for (let i = 0; i < random.runs; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const r = await runWeir(dir, undefined, 1500 + (seed % 2500))
    if (r.code === 0) break
    crashed++
  }
  return crashed
}

const CHECKPOINTS = (ms: number) => `SET 'execution.checkpointing.interval' = '${ms} ms'; SET 'execution.batch-size' = '64';`

describe("'kafka' sink", () => {
  it("writes a window aggregate exactly once: a read_committed consumer gets the oracle's rows", async () => {
    await createTopic('windows', 3)
    const dir = jobDir(WINDOW_SQL('windows', CHECKPOINTS(100)))
    const run = await runWeir(dir)
    expect(run.stderr).not.toMatch(/error|warning/i)
    expect(run.code).toBe(0)
    const got = await readTopic('windows', 3)
    expect(got.every(m => m.key === null)).toBe(true)
    // Without a key, the default partitioner spreads messages over every partition.
    expect(new Set(got.map(m => m.partition))).toEqual(new Set([0, 1, 2]))
    expect(got.map(m => windowRow(m.value!)).sort()).toEqual(await windowOracle())
  }, 300_000)

  it("keeps exactly-once across crashes at a checkpoint's worst points and at random moments", async () => {
    await createTopic('windows-crash', 2)
    const dir = jobDir(WINDOW_SQL('windows-crash', CHECKPOINTS(50)))
    const crashes = ['before-commit:1', 'before-commit:2', 'before-manifest:2', 'upload:3', 'before-commit:4', 'before-commit:2']
    const crashed = await crashRuns(dir, crashes, { seed: 5, runs: 4 })
    expect(crashed, 'the job must have been killed more than once').toBeGreaterThan(1)
    for (let i = 0; i < 5; i++) {
      const r = await runWeir(dir)
      if (r.code === 0) break
      expect(r.stderr).not.toMatch(/error/i)
    }
    const got = await readTopic('windows-crash', 2)
    expect(got.map(m => windowRow(m.value!)).sort()).toEqual(await windowOracle())
  }, 900_000)

  it('keys messages by key.fields, partitions by key, and leaves key columns out with EXCEPT_KEY', async () => {
    await createTopic('keyed', 4)
    const dir = jobDir(WINDOW_SQL('keyed', CHECKPOINTS(200), `, 'key.fields' = 'k', 'key.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY'`))
    expect((await runWeir(dir)).code).toBe(0)
    const got = await readTopic('keyed', 4)
    const partitionOf = new Map<string | null, Set<number>>()
    for (const m of got) {
      if (!partitionOf.has(m.key)) partitionOf.set(m.key, new Set())
      partitionOf.get(m.key)!.add(m.partition)
    }
    for (const parts of partitionOf.values()) expect(parts.size).toBe(1)
    expect(got.every(m => !('k' in JSON.parse(m.value!)))).toBe(true)
    const rows = got.map(m => windowRow(JSON.stringify({ ...JSON.parse(m.value!), k: JSON.parse(m.key!).k })))
    expect(rows.sort()).toEqual(await windowOracle())
  }, 300_000)

  it("shows nothing of a checkpoint's rows before its commit, and a restore produces them once", async () => {
    await createTopic('staged', 1)
    const schema: Field[] = [{ name: 'id', type: T.int() }, { name: 's', type: T.string() }]
    const options = { topic: 'staged', 'properties.bootstrap.servers': broker.bootstrap, format: 'csv' }
    const job = { jobName: 'staged-job', operatorId: '3-sink', exactlyOnce: true }
    const w = await kafkaSink.create(sinkCtx(options, schema, undefined, job))
    await w.write({ rows: [[1, 'a'], [2, 'b,c']], kinds: null })
    const sealed = await w.prepareCommit!(7) as CommitWithData
    // The messages are the commit's data (an object of the checkpoint's own), not JSON in its manifest.
    expect(sealed).toBeInstanceOf(CommitWithData)
    expect(sealed.commit).toEqual({ checkpoint: 7, sealed: [{ checkpoint: 7, messages: 2 }] })
    await w.write({ rows: [[3, 'never']], kinds: null })
    expect(await readTopic('staged', 1)).toEqual([]) // sealed, not committed
    await w.close() // a crash between checkpoint 7's completion and its commit

    // Meanwhile a producer of the sink's transactional id left a transaction open (a crash mid-commit).
    const ghost = kafka.producer({ transactionalId: 'weir-staged-job-3-sink', idempotent: true, maxInFlightRequests: 1 })
    await ghost.connect()
    const tx = await ghost.transaction()
    await tx.send({ topic: 'staged', messages: [{ value: 'ghost' }] })

    // Restored from checkpoint 7: its rows become visible, once, and the open transaction is aborted.
    const restoredJob = { ...job, restoredCommit: sealed.commit, restoredData: sealed.data }
    const restored = await kafkaSink.create(sinkCtx(options, schema, undefined, restoredJob))
    await restored.close()
    const again = await kafkaSink.create(sinkCtx(options, schema, undefined, restoredJob))
    await again.close()
    expect((await readTopic('staged', 1)).map(m => m.value)).toEqual(['1,a', '2,"b,c"'])
    expect((await readTopic('staged', 1, true)).map(m => m.value)).toContain('ghost')
    await ghost.disconnect().catch(() => undefined)
    // The engine may not fall back to an earlier checkpoint: its replay would produce them again.
    const after = await kafkaSink.committedAfter!({ table: 'out', options, jobName: 'staged-job', operatorId: '3-sink', restoredCommit: undefined }, 5)
    expect(after?.checkpoints).toEqual([7])
    expect(after?.description).toContain(`the messages of every checkpoint up to 7 in Kafka topic 'staged'`)
    expect(after?.remedy).toContain('write to a new topic')
    expect(await kafkaSink.committedAfter!({ table: 'out', options, jobName: 'staged-job', operatorId: '3-sink', restoredCommit: sealed.commit }, 7))
      .toBeUndefined()
  }, 300_000)

  it('restores the form earlier versions stored (the messages as JSON in the manifest) and refuses a commit without its messages', async () => {
    await createTopic('staged-json', 1)
    const schema: Field[] = [{ name: 's', type: T.string() }]
    const options = { topic: 'staged-json', 'properties.bootstrap.servers': broker.bootstrap, format: 'raw' }
    const job = { jobName: 'staged-json-job', operatorId: '2-sink', exactlyOnce: true }
    // Checkpoint 4 sealed output of checkpoints 3 and 4 (3's commit had not happened), with partitions or (older still) without.
    const restoredCommit = { checkpoint: 4,
      pending: [{ checkpoint: 3, messages: [[0, null, 'x'], [null, null, 'y']] }, { checkpoint: 4, messages: [[0, null, 'z']] }] }
    const w = await kafkaSink.create(sinkCtx(options, schema, undefined, { ...job, restoredCommit }))
    await w.close()
    expect((await readTopic('staged-json', 1)).map(m => m.value)).toEqual(['x', 'y', 'z'])
    // The current form counts the messages its data holds: without the data, nothing would be produced, so it is refused.
    const e = await errorOf(() =>
      kafkaSink.create(sinkCtx(options, schema, undefined, { ...job, restoredCommit: { checkpoint: 5, sealed: [{ checkpoint: 5, messages: 2 }] } }))
    )
    expect(e.message).toContain(`checkpoint 5 holds 0 sealed messages for the Kafka sink of table 'out', but its manifest counts 2`)
  }, 300_000)

  it.each(['at-least-once', 'none'])("with '%s' produces rows as they come, without waiting for a commit", async guarantee => {
    const topic = `plain-${guarantee}`
    await createTopic(topic, 1)
    const schema: Field[] = [{ name: 's', type: T.string() }]
    const options = { topic, 'properties.bootstrap.servers': broker.bootstrap, format: 'raw', 'sink.delivery-guarantee': guarantee }
    const w = await kafkaSink.create(sinkCtx(options, schema, undefined, { exactlyOnce: true }))
    await w.write({ rows: [['x'], [null], ['y']], kinds: null })
    if (guarantee === 'at-least-once') await w.prepareCommit!(1) // a checkpoint waits for the acknowledgements
    else await w.finish()
    expect((await readTopic(topic, 1)).map(m => m.value)).toEqual(['x', null, 'y'])
    await w.close()
  }, 300_000)

  it('without checkpoints delivers at least once, and says so when exactly-once was asked for', async () => {
    await createTopic('no-checkpoints', 2)
    const dir = jobDir(WINDOW_SQL('no-checkpoints', '', `, 'sink.delivery-guarantee' = 'exactly-once'`))
    const run = await runWeir(dir)
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`'sink.delivery-guarantee' = 'exactly-once', but the job takes no checkpoints`)
    expect((await readTopic('no-checkpoints', 2)).map(m => windowRow(m.value!)).sort()).toEqual(await windowOracle())
  }, 300_000)

  it('fails clearly on a topic that does not exist', async () => {
    const schema: Field[] = [{ name: 's', type: T.string() }]
    const e = await errorOf(() => kafkaSink.create(sinkCtx({ topic: 'nope', 'properties.bootstrap.servers': broker.bootstrap, format: 'raw' }, schema)))
    expect(e.message).toContain(`Kafka topic 'nope' of table 'out' does not exist`)
  }, 300_000)
})

describe("'upsert-kafka' sink", () => {
  const UPSERT_SQL = (topic: string, sets: string, extra = '') => `
    SET 'pipeline.name' = 'upsert-${topic}';
    ${sets}
    ${data.ddl}
    CREATE TABLE totals (k STRING, v INT, c BIGINT, s BIGINT, PRIMARY KEY (k, v) NOT ENFORCED)
      WITH ('connector' = 'upsert-kafka', ${kafkaOptions(topic, extra)}, 'key.format' = 'json', 'value.format' = 'json');
    INSERT INTO totals SELECT k, v, COUNT(*), COUNT(s) FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v;`

  /** Folds an upsert topic: the last value per key, a tombstone removing it; each live row (key and value fields) in `schema`'s columns. */
  function foldTopic(got: readonly Received[], schema: readonly Field[]): string[] {
    const live = new Map<string, string>()
    for (const m of got) {
      if (m.value === null) live.delete(m.key!)
      else live.set(m.key!, m.value)
    }
    return [...live.entries()].map(([key, value]) => {
      const o = { ...JSON.parse(value), ...JSON.parse(key) } as Record<string, unknown>
      return canonWeirRow(schema, schema.map(f => o[f.name]))
    }).sort()
  }
  const fold = (got: readonly Received[]): string[] => foldTopic(got, UPSERT_SCHEMA)

  /** The sizes of t's (k, v) groups, ascending, and the median one. */
  async function groupSizes(): Promise<{ sizes: number[]; median: number }> {
    const sizes = (await data.duck(`SELECT COUNT(*) FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v ORDER BY 1`)).map(Number)
    return { sizes, median: sizes[Math.floor(sizes.length / 2)]! }
  }
  const UPSERT_SCHEMA: Field[] = [{ name: 'k', type: T.string() }, { name: 'v', type: T.int() }, { name: 'c', type: T.bigint() }, {
    name: 's',
    type: T.bigint(),
  }]

  async function upsertOracle(): Promise<string[]> {
    const rows = await data.duck(`SELECT k, v, COUNT(*), COUNT(s) FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v`)
    expect(rows.length).toBeGreaterThan(50)
    return rows.sort()
  }

  it('folded by key, the topic equals the GROUP BY result, across crashes', async () => {
    await createTopic('totals', 3)
    const dir = jobDir(UPSERT_SQL('totals', CHECKPOINTS(50)))
    let crashed = 0
    for (const at of ['before-commit:1', 'before-commit:3', 'before-manifest:2']) {
      const r = await runWeir(dir, at)
      if (r.code === 0) break
      crashed++
    }
    expect(crashed).toBeGreaterThan(0)
    for (let i = 0; i < 5; i++) if ((await runWeir(dir)).code === 0) break
    const got = await readTopic('totals', 3)
    expect(fold(got)).toEqual(await upsertOracle())
    // Messages of a key go to one partition, in order.
    const parts = new Map<string, Set<number>>()
    for (const m of got) parts.set(m.key!, (parts.get(m.key!) ?? new Set()).add(m.partition))
    for (const p of parts.values()) expect(p.size).toBe(1)
  }, 900_000)

  it("compacts a checkpoint's messages by key, which folds to the same table as every message ('sink.compact-by-key' = 'false')", async () => {
    await createTopics(kafka, [{ topic: 'compacted', partitions: 3 }, { topic: 'uncompacted', partitions: 3 }])
    // A long checkpoint interval and small batches: each key changes several times per checkpoint.
    const sets = `SET 'execution.checkpointing.interval' = '400 ms'; SET 'execution.batch-size' = '16'; SET 'table.exec.mini-batch.enabled' = 'false';`
    expect((await runWeir(jobDir(UPSERT_SQL('compacted', sets)))).code).toBe(0)
    expect((await runWeir(jobDir(UPSERT_SQL('uncompacted', sets, `, 'sink.compact-by-key' = 'false'`)))).code).toBe(0)
    const compacted = await readTopic('compacted', 3)
    const every = await readTopic('uncompacted', 3)
    expect(fold(compacted)).toEqual(await upsertOracle())
    expect(fold(every)).toEqual(fold(compacted))
    expect(compacted.length).toBeLessThan(every.length)
    // Without compaction a key's every change is there: as many messages for a key as the count it ends with.
    const last = new Map(every.map(m => [m.key!, JSON.parse(m.value!) as { c: number }]))
    for (const [key, { c }] of last) expect(every.filter(m => m.key === key).length, key).toBe(c)
  }, 300_000)

  it("keeps each key's last message of a checkpoint, a tombstone too, in the order of those last messages; 'false' keeps every one", async () => {
    const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.int() }]
    const { upsertKafkaConnector } = await import('../../connectors/kafka/sink/upsert.js')
    const produced = async (topic: string, extra: Record<string, string>): Promise<(string | null)[][]> => {
      await createTopic(topic, 1)
      const options = { topic, 'properties.bootstrap.servers': broker.bootstrap, 'key.format': 'raw', 'value.format': 'csv', ...extra }
      const w = await upsertKafkaConnector.sink!.create({ ...sinkCtx(options, schema, undefined, { exactlyOnce: true, jobName: topic }), changelog: 'updating',
        primaryKey: [0] })
      // +I a1, +I b5, -U a1, +U a2, +I c7, -D b5, -U a2, +U a3; then, in checkpoint 2, +I b6.
      await w.write({ rows: [['a', 1], ['b', 5], ['a', 1], ['a', 2], ['c', 7], ['b', 5], ['a', 2], ['a', 3]],
        kinds: Uint8Array.from([0, 0, 1, 2, 0, 3, 1, 2]) })
      await w.prepareCommit!(1)
      await w.write({ rows: [['b', 6]], kinds: null })
      await w.prepareCommit!(2)
      await w.commit!(2)
      expect(w.committedRows!()).toBe(9)
      await w.close()
      return (await readTopic(topic, 1)).map(m => [m.key, m.value])
    }
    expect(await produced('compact-default', {})).toEqual([['c', 'c,7'], ['b', null], ['a', 'a,3'], ['b', 'b,6']])
    expect(await produced('compact-off', { 'sink.compact-by-key': 'false' })).toEqual([['a', 'a,1'], ['b', 'b,5'], ['a', 'a,2'], ['c', 'c,7'], [
      'b',
      null,
    ], ['a', 'a,3'], ['b', 'b,6']])
  }, 300_000)

  it('rows not unique by the sink key: materialized per key, a row that moves to another key deletes the old one', async () => {
    await createTopic('moved', 3)
    // Each (k, v) group's tag says whether it has reached the median group size yet: a group that
    // crosses it moves from the key '<k>/<v> few' to '<k>/<v> many', which only its -U can delete.
    const { sizes, median: n } = await groupSizes()
    expect(sizes.filter(s => s >= n).length).toBeGreaterThan(20)
    const sql = `
      SET 'pipeline.name' = 'upsert-moved';
      ${CHECKPOINTS(50)} SET 'execution.batch-size' = '16'; SET 'parallelism.default' = '2';
      ${data.ddl}
      CREATE TABLE moved (tag STRING, c BIGINT, PRIMARY KEY (tag) NOT ENFORCED)
        WITH ('connector' = 'upsert-kafka', ${kafkaOptions('moved')}, 'key.format' = 'json', 'value.format' = 'json');
      INSERT INTO moved SELECT CONCAT(k, '/', CAST(v AS STRING), CASE WHEN COUNT(*) >= ${n} THEN ' many' ELSE ' few' END), COUNT(*)
        FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v;`
    const run = await runWeir(jobDir(sql))
    expect(run.code, run.stderr).toBe(0)
    const got = foldTopic(await readTopic('moved', 3), [{ name: 'tag', type: T.string() }, { name: 'c', type: T.bigint() }])
    const want = await data.duck(`SELECT k || '/' || CAST(v AS VARCHAR) || CASE WHEN COUNT(*) >= ${n} THEN ' many' ELSE ' few' END, COUNT(*)
      FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v`)
    expect(got).toEqual(want.sort())
  }, 300_000)

  it('a HAVING over the updates: a group that stops passing it is deleted from the topic', async () => {
    await createTopic('having', 3)
    // COUNT(*) <= the median group size: every group passes it at first; half of them stop passing it,
    // and only the -U of their last passing count (through the materializer) can delete them.
    const { sizes, median: n } = await groupSizes()
    const sql = `
      SET 'pipeline.name' = 'upsert-having';
      ${CHECKPOINTS(50)} SET 'execution.batch-size' = '16';
      ${data.ddl}
      CREATE TABLE small (k STRING, v INT, c BIGINT, PRIMARY KEY (k, v) NOT ENFORCED)
        WITH ('connector' = 'upsert-kafka', ${kafkaOptions('having')}, 'key.format' = 'json', 'value.format' = 'json');
      INSERT INTO small SELECT k, v, COUNT(*) FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v HAVING COUNT(*) <= ${n};`
    const run = await runWeir(jobDir(sql))
    expect(run.code, run.stderr).toBe(0)
    const got = foldTopic(await readTopic('having', 3), [{ name: 'k', type: T.string() }, { name: 'v', type: T.int() }, { name: 'c', type: T.bigint() }])
    const want = await data.duck(`SELECT k, v, COUNT(*) FROM t WHERE k IS NOT NULL AND v IS NOT NULL GROUP BY k, v HAVING COUNT(*) <= ${n}`)
    expect(want.length).toBeLessThan(sizes.length)
    expect(got).toEqual(want.sort())
  }, 300_000)

  it('writes a delete as a tombstone and drops update-before', async () => {
    await createTopic('tombstones', 1)
    const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.int() }]
    const options = { topic: 'tombstones', 'properties.bootstrap.servers': broker.bootstrap, 'key.format': 'raw', 'value.format': 'csv',
      'sink.delivery-guarantee': 'at-least-once' }
    const { upsertKafkaConnector } = await import('../../connectors/kafka/sink/upsert.js')
    const w = await upsertKafkaConnector.sink!.create({ ...sinkCtx(options, schema), changelog: 'updating', primaryKey: [0] })
    await w.write({ rows: [['a', 1], ['a', 1], ['a', 2], ['b', 5], ['b', 5]], kinds: Uint8Array.from([0, 1, 2, 0, 3]) })
    await w.finish()
    // Every row given is delivered, the dropped -U too: the job compares this with the rows it gave.
    expect(w.committedRows!()).toBe(5)
    await w.close()
    expect((await readTopic('tombstones', 1)).map(m => [m.key, m.value])).toEqual([['a', 'a,1'], ['a', 'a,2'], ['b', 'b,5'], ['b', null]])
  }, 300_000)
})

describe('Kafka sink options', () => {
  async function planError(ddl: string, insert = 'INSERT INTO out SELECT k, v FROM src'): Promise<Error & { help?: string }> {
    const session = new Session({ println: () => undefined })
    return errorOf(() =>
      session.executeSql(`CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
      ${ddl};
      ${insert};`)
    )
  }
  const servers = `'properties.bootstrap.servers' = '127.0.0.1:1'`

  it('sends updating results to upsert-kafka', async () => {
    const e = await planError(`CREATE TABLE out (k STRING, v BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', ${servers}, 'format' = 'json')`,
      'INSERT INTO out SELECT k, COUNT(*) FROM src GROUP BY k')
    expect(e.message).toContain(`can only take inserts`)
    expect(e.help).toContain(`'upsert-kafka'`)
  })

  it("takes 'sink.compact-by-key' on upsert-kafka only, as 'true' or 'false'", async () => {
    const upsert = (value: string) =>
      `CREATE TABLE out (k STRING, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 't', ${servers}, 'key.format' = 'json', 'value.format' = 'json', 'sink.compact-by-key' = '${value}')`
    expect((await planError(upsert('maybe'), 'INSERT INTO out SELECT k, COUNT(*) FROM src GROUP BY k')).message).toContain(`'true' or 'false'`)
    expect(
      (await planError(
        `CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = 't', ${servers}, 'format' = 'json', 'sink.compact-by-key' = 'true')`,
      ))
        .message,
    ).toContain(`unsupported option 'sink.compact-by-key'`)
  })

  it('refuses unknown options, unsupported client properties, a missing key and a bad raw column', async () => {
    expect(
      (await planError(
        `CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = 't', ${servers}, 'format' = 'json', 'sink.partitoner' = 'fixed')`,
      ))
        .message,
    ).toContain(`unsupported option 'sink.partitoner'`.replace('partitioner', 'partitoner'))
    expect(
      (await planError(
        `CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = 't', ${servers}, 'format' = 'json', 'properties.acks' = '0')`,
      ))
        .message,
    ).toContain(`Kafka client property 'acks' is not supported`)
    expect(
      (await planError(
        `CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'upsert-kafka', 'topic' = 't', ${servers}, 'key.format' = 'json', 'value.format' = 'json')`,
      ))
        .message,
    ).toContain(`needs a PRIMARY KEY`)
    expect((await planError(`CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = 't', ${servers}, 'format' = 'raw')`))
      .message).toContain(`'raw'`)
    expect(
      (await planError(`CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = 't', ${servers}, 'format' = 'json', 'key.fields' = 'k')`))
        .message,
    ).toContain(`'key.format'`)
    expect((await planError(`CREATE TABLE out (k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = 't', ${servers}, 'format' = 'avro')`))
      .message).toContain(`'avro'`)
  })
})

describe("'kafka' sink with 'value.format' = 'debezium-json'", () => {
  const CHANGES_SCHEMA: Field[] = [{ name: 'k', type: T.string() }, { name: 'v', type: T.int() }, { name: 'c', type: T.bigint() }, { name: 'sb',
    type: T.bigint() }, {
    name: 'md',
    type: T.decimal(10, 2),
  }]
  /** The changelog table: keyed by the group, so each group's events stay in order in one partition. */
  const CHANGES_TABLE = (topic: string, extra = '') => `
    CREATE TABLE changes (k STRING, v INT, c BIGINT, sb BIGINT, md DECIMAL(10, 2)) WITH ('connector' = 'kafka', ${kafkaOptions(topic)},
      'value.format' = 'debezium-json', 'key.format' = 'json', 'key.fields' = 'k;v'${extra});`

  it("writes a GROUP BY's changes as Flink does; read back by Weir's debezium-json source they equal DuckDB's GROUP BY, across crashes", async () => {
    await createTopic('changes', 3)
    const dir = jobDir(`
      SET 'pipeline.name' = 'debezium-changes';
      ${CHECKPOINTS(50)}
      ${data.ddl}
      ${CHANGES_TABLE('changes')}
      INSERT INTO changes SELECT k, v, COUNT(*), SUM(b), MAX(d) FROM t GROUP BY k, v;`)
    const crashed = await crashRuns(dir, ['before-commit:1', 'before-commit:3', 'before-manifest:2'], { seed: 11, runs: 3 })
    expect(crashed).toBeGreaterThan(0)
    for (let i = 0; i < 5; i++) if ((await runWeir(dir)).code === 0) break

    // Read back first: the consumer below appends end marks to the topic.
    const read = await new Session({ println: () => undefined }).executeSql(
      CHANGES_TABLE('changes',
        `, 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'properties.isolation.level' = 'read_committed'`)
        + 'SELECT * FROM changes;',
    )
    const last = read.at(-1)!
    if (last.kind !== 'rows') throw new Error(last.kind)
    const oracle = await data.duck('SELECT k, v, COUNT(*), SUM(b), MAX(d) FROM t GROUP BY k, v')
    expect(oracle.length).toBeGreaterThan(10)
    expectSameMultiset(materialize(last.changes).map(r => canonWeirRow(CHANGES_SCHEMA, r)), oracle)
    const got = await readTopic('changes', 3)
    // Flink's envelopes: +I/+U as {"before":null,"after":row,"op":"c"}, -U/-D as {"before":row,"after":null,"op":"d"}.
    const events = got.map(m => JSON.parse(m.value!) as { before: unknown; after: unknown; op: string })
    for (const e of events) {
      expect(Object.keys(e)).toEqual(['before', 'after', 'op'])
      if (e.op === 'c') expect(e.before === null && e.after !== null).toBe(true)
      else expect(e.op === 'd' && e.before !== null && e.after === null).toBe(true)
    }
    // Groups grow: most changes are an update's -U ("d") and +U ("c").
    expect(events.filter(e => e.op === 'd').length).toBeGreaterThan(100)
    // Each message's key is its row's group.
    got.forEach((m, i) => {
      const e = events[i]!
      const row = (e.op === 'c' ? e.after : e.before) as { k: string | null; v: number | null }
      expect(JSON.parse(m.key!)).toEqual({ k: row.k, v: row.v })
    })
  }, 900_000)
})

describe('metadata the Kafka sinks write', () => {
  it("sets each message's timestamp and headers from the table's 'timestamp' and 'headers' columns (none when NULL)", async () => {
    await createTopic('stamped', 2)
    const ddl = `CREATE TABLE stamped (id INT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', h STRING METADATA FROM 'headers',
      p INT METADATA FROM 'partition' VIRTUAL) WITH ('connector' = 'kafka', ${kafkaOptions(`stamped`)}, 'format' = 'json',
      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');`
    const before = Date.now()
    const session = new Session({ println: () => undefined })
    await session.executeSql(`${ddl} INSERT INTO stamped VALUES
      (1, TO_TIMESTAMP_LTZ(1700000000123, 3), '{"trace":"abc","empty":null}'),
      (2, TO_TIMESTAMP_LTZ(86400000, 3), CAST(NULL AS STRING)),
      (3, CAST(NULL AS TIMESTAMP_LTZ(3)), '{}');`)
    await session.awaitJobs()
    // Weir's source reads them back through the same table (first: the consumer below appends end marks).
    const read = await new Session({ println: () => undefined }).executeSql(`${ddl} SELECT id, ts, h FROM stamped;`)
    const rows = read.at(-1)!
    if (rows.kind !== 'rows') throw new Error(rows.kind)
    const back = new Map(rows.changes.map(c => [c.row[0], c.row]))
    expect(back.get(1)!.slice(1)).toEqual([1700000000123, '{"trace":"abc","empty":""}'])
    expect(back.get(2)!.slice(1)).toEqual([86400000, '{}'])
    const got = new Map((await readTopic('stamped', 2)).map(m => [(JSON.parse(m.value!) as { id: number }).id, m]))
    // The value holds the physical columns only.
    expect(JSON.parse(got.get(1)!.value!)).toEqual({ id: 1 })
    // kafkajs cannot write a header without a value: it is written empty.
    expect(got.get(1)).toMatchObject({ timestamp: 1700000000123, headers: { trace: 'abc', empty: '' } })
    expect(got.get(2)).toMatchObject({ timestamp: 86400000, headers: {} })
    expect(got.get(3)!.headers).toEqual({})
    expect(got.get(3)!.timestamp).toBeGreaterThanOrEqual(before) // no timestamp given: the producer's clock
  }, 300_000)

  it('keeps them in the messages an exactly-once checkpoint holds, and refuses headers that are not a JSON object of text', async () => {
    await createTopic('stamped-once', 1)
    const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'ts', type: T.timestampLtz(3) }, { name: 'h', type: T.string() }]
    const options = { topic: 'stamped-once', 'properties.bootstrap.servers': broker.bootstrap, 'value.format': 'csv' }
    const job = { jobName: 'stamped-job', operatorId: '4-sink', exactlyOnce: true, metadata: [null, 'timestamp', 'headers'] }
    await sealAndRestore(options, schema, job, [['a', 5000, '{"x":"1"}'], ['b', null, null]])
    const got = await readTopic('stamped-once', 1)
    expect(got.map(m => [m.value, m.headers])).toEqual([['a', { x: '1' }], ['b', {}]])
    expect(got[0]!.timestamp).toBe(5000)
    expect(got[1]!.timestamp).not.toBe(5000)
    const e = await writeError(options, schema, { ...job, jobName: 'stamped-bad' }, [['c', null, '{"n":1}']])
    expect(e.message).toContain(`cannot write headers "{\\"n\\":1}" (column 'h', metadata 'headers')`)
  }, 300_000)
})

describe("a MAP<STRING, BYTES> 'headers' column on the Kafka sinks", () => {
  it('writes each entry as a header of those bytes (not UTF-8 too, NULL as a header without a value); the source reads them back', async () => {
    await createTopic('stamped-bytes', 1)
    const ddl = `CREATE TABLE stamped_bytes (id INT, h MAP<STRING, BYTES> METADATA FROM 'headers')
      WITH ('connector' = 'kafka', ${kafkaOptions(`stamped-bytes`)}, 'format' = 'json',
      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');`
    const session = new Session({ println: () => undefined })
    await session.executeSql(`${ddl} INSERT INTO stamped_bytes VALUES
      (1, MAP['bin', X'FF00C3', 'trace', CAST('abc' AS BYTES)]),
      (2, MAP['none', CAST(NULL AS BYTES)]),
      (3, CAST(NULL AS MAP<STRING, BYTES>));`)
    await session.awaitJobs()
    const read = await new Session({ println: () => undefined }).executeSql(
      `${ddl} SELECT id, CARDINALITY(h), HEX(h['bin']), HEX(h['trace']), h['none'] IS NULL FROM stamped_bytes;`,
    )
    const rows = read.at(-1)!
    if (rows.kind !== 'rows') throw new Error(rows.kind)
    expect(rows.changes.map(c => c.row).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual([
      [1, 2, 'FF00C3', '616263', true],
      [2, 1, null, null, true],
      [3, 0, null, null, true],
    ])
    const got = new Map((await readTopic('stamped-bytes', 1)).map(m => [(JSON.parse(m.value!) as { id: number }).id, m]))
    expect(got.get(1)!.headerBytes).toEqual({ bin: Buffer.from([0xff, 0x00, 0xc3]), trace: Buffer.from('abc') })
    expect(got.get(2)!.headerBytes).toEqual({ none: null })
    expect(got.get(3)!.headerBytes).toEqual({})
  }, 300_000)

  it('keeps them in an exactly-once checkpoint, and refuses a header named NULL', async () => {
    await createTopic('stamped-bytes-once', 1)
    const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'h', type: T.map(T.string(), T.bytes()) }]
    const options = { topic: 'stamped-bytes-once', 'properties.bootstrap.servers': broker.bootstrap, 'value.format': 'csv' }
    const job = { jobName: 'stamped-bytes-job', operatorId: '4-sink', exactlyOnce: true, metadata: [null, 'headers'] }
    await sealAndRestore(options, schema, job, [['a', [['x', Uint8Array.from([0xfe, 0x01])]]], ['b', []]])
    const got = await readTopic('stamped-bytes-once', 1)
    expect(got.map(m => [m.value, m.headerBytes])).toEqual([['a', { x: Buffer.from([0xfe, 0x01]) }], ['b', {}]])
    const e = await writeError(options, schema, { ...job, jobName: 'stamped-bytes-bad' }, [['c', [[null, Uint8Array.from([1])]]]])
    expect(e.message).toContain(`cannot write a header named NULL (column 'h', metadata 'headers')`)
  }, 300_000)
})

describe("'key.fields-prefix' on the Kafka sinks", () => {
  it('writes the key columns without the prefix in the key (and not in the value); the source reads them back', async () => {
    await createTopic('prefixed', 2)
    const ddl = `CREATE TABLE prefixed (key_id INT, name STRING) WITH ('connector' = 'kafka', ${kafkaOptions('prefixed')}, 'format' = 'json',
      'key.format' = 'json', 'key.fields' = 'key_id', 'key.fields-prefix' = 'key_', 'value.fields-include' = 'EXCEPT_KEY',
      'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');`
    const session = new Session({ println: () => undefined })
    await session.executeSql(`${ddl} INSERT INTO prefixed VALUES (1, 'x'), (2, 'y');`)
    await session.awaitJobs()
    // The source reads them back through the same table (first: the consumer below appends end marks).
    const read = await new Session({ println: () => undefined }).executeSql(`${ddl} SELECT * FROM prefixed;`)
    const rows = read.at(-1)!
    if (rows.kind !== 'rows') throw new Error(rows.kind)
    expect(rows.changes.map(c => c.row).sort()).toEqual([[1, 'x'], [2, 'y']])
    const got = await readTopic('prefixed', 2)
    expect(got.map(m => [m.key, m.value]).sort()).toEqual([['{"id":1}', '{"name":"x"}'], ['{"id":2}', '{"name":"y"}']])
  }, 300_000)

  it("'upsert-kafka' writes its PRIMARY KEY without the prefix", async () => {
    await createTopic('prefixed-upsert', 1)
    const session = new Session({ println: () => undefined })
    await session.executeSql(
      `CREATE TABLE totals (pk_k STRING, n BIGINT, PRIMARY KEY (pk_k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', ${kafkaOptions('prefixed-upsert')},
        'key.format' = 'json', 'value.format' = 'json', 'key.fields-prefix' = 'pk_', 'value.fields-include' = 'EXCEPT_KEY');
      INSERT INTO totals SELECT k, COUNT(*) FROM (VALUES ('a'), ('a'), ('a')) AS v(k) GROUP BY k;`,
    )
    await session.awaitJobs()
    const got = await readTopic('prefixed-upsert', 1)
    expect(got.at(-1)).toMatchObject({ key: '{"k":"a"}', value: '{"n":3}' })
  }, 300_000)
})
