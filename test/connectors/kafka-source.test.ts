// The Kafka source against a real broker: a bounded job over a topic of several partitions whose
// result equals DuckDB's over the same rows, each startup and bounded mode, metadata columns and a
// watermark on the message timestamp, a checkpointed job cancelled and restored (no row lost or
// repeated), bad records under both policies, and the errors for a missing topic and a down broker.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { formatTimestamp } from '../../common/values.js'
import { expectSameMultiset, OracleData } from '../oracle/oracle.js'
import { visibleRows } from './helpers.js'
import { append as appendOn, failure, kafkaSuite, kafkaTable as tableOn, type Message, produce as produceOn, select } from './kafka-source-helpers.js'

const suite = kafkaSuite('kafka-source')

const produce = (topic: string, partitions: number, messages: readonly Message[]): Promise<void> => produceOn(suite.kafka, topic, partitions, messages)
const append = (topic: string, messages: readonly Message[]): Promise<void> => appendOn(suite.kafka, topic, messages)
const kafkaTable = (name: string, columns: string, topic: string, options: Record<string, string> = {}): string =>
  tableOn(suite.broker.bootstrap, name, columns, topic, options)

// Message times an hour ago, on a whole minute: recent, because the broker deletes messages older
// than its retention (7 days) a few minutes after it starts, which would empty the topics mid-file.
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000
const numbered = (n: number, partitions: number, base = 0): Message[] =>
  Array.from({ length: n }, (_, i) => ({ partition: i % partitions, value: JSON.stringify({ id: base + i }), timestamp: T0 + (base + i) * 1000 }))

describe('a bounded Kafka job vs DuckDB', () => {
  it('reads a topic of 3 partitions into a filesystem sink: windowed sums equal DuckDB', async () => {
    const data = await OracleData.create({ seed: 7, rows: 4000 })
    try {
      // The generated arrival order, dealt round robin: each partition keeps it, so its disorder
      // stays below the watermark delay and no row is late (the watermark is the partitions' minimum).
      const lines = readFileSync(data.path, 'utf8').split('\n').filter(l => l !== '')
      await produce('oracle', 3, lines.map((value, i) => ({ partition: i % 3, value })))
      const out = join(suite.root, 'oracle-out')
      const session = new Session({ println: () => undefined })
      await session.executeSql(`
        ${
        kafkaTable('t', `k STRING, v INT, d DECIMAL(10, 2), x DOUBLE, s STRING, ts TIMESTAMP(3), b BIGINT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND`,
          'oracle', {
          'scan.startup.mode': 'earliest-offset',
          'scan.bounded.mode': 'latest-offset',
        })
      }
        CREATE TABLE out (k STRING, ws TIMESTAMP(3), c BIGINT, sv INT, sd DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
        INSERT INTO out SELECT k, window_start, COUNT(*), SUM(v), SUM(d) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;`)
      const [metrics] = await session.awaitJobs()
      expect(metrics!.lateRecordsDropped).toBe(0)
      expect(metrics!.sourceRecordsRead).toBe(4000)
      const weir = visibleRows(out).map(line => {
        const r = JSON.parse(line) as { k: string | null; ws: string; c: number; sv: number | null; sd: number | null }
        const canon = (n: number | null): string => (n === null ? 'NULL' : String(n))
        return [r.k === null ? 'NULL' : JSON.stringify(r.k), formatTimestamp(Date.parse(r.ws.replace(' ', 'T') + 'Z')), canon(r.c), canon(r.sv), canon(r.sd)]
          .join(' | ')
      })
      const duck = await data.duck(
        `SELECT k, make_timestamp((epoch_ms(ts) - epoch_ms(ts) % 10000) * 1000) AS ws, COUNT(*), SUM(v), SUM(d) FROM t GROUP BY k, ws`,
      )
      expect(duck.length).toBeGreaterThan(100)
      expectSameMultiset(weir, duck)
    } finally {
      await data.close()
    }
  }, 240_000)
})

describe('a transactional topic', () => {
  // Committed, aborted and committed transactions over 2 partitions, all produced before the job
  // starts, so one fetch returns each partition's messages with the commit marker that ends them.
  beforeAll(async () => {
    const admin = suite.kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'txn', numPartitions: 2 }], waitForLeaders: true })
    await admin.disconnect()
    const producer = suite.kafka.producer({ transactionalId: 'weir-test-txn', maxInFlightRequests: 1, idempotent: true })
    await producer.connect()
    for (const [base, commit] of [[0, true], [100, false], [10, true]] as const) {
      const txn = await producer.transaction()
      await txn.send({ topic: 'txn', messages: numbered(10, 2, base).map(m => ({ partition: m.partition, value: m.value })) })
      await (commit ? txn.commit() : txn.abort())
    }
    await producer.disconnect()
  }, 120_000)
  const ids = (rows: string[]): number[] => rows.map(r => (JSON.parse(r) as number[])[0]!).sort((a, b) => a - b)
  const read = (isolation: string) =>
    select(kafkaTable('t', 'id INT', 'txn', {
      'scan.startup.mode': 'earliest-offset',
      'scan.bounded.mode': 'latest-offset',
      'properties.isolation.level': isolation,
    }) + ' SELECT id FROM t;')

  it('read_committed reads the committed transactions only, and a bounded read ends past the last commit marker', async () => {
    expect(ids((await read('read_committed')).rows)).toEqual(Array.from({ length: 20 }, (_, i) => i))
  }, 60_000)

  it('read_uncommitted also reads the aborted transaction, as Kafka consumers do', async () => {
    const got = ids((await read('read_uncommitted')).rows)
    expect(got).toEqual([...Array.from({ length: 20 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 100 + i)])
  }, 60_000)
})

describe('startup and bounded modes', () => {
  const topic = 'modes'
  // 20 messages, ids 0..19, dealt to 2 partitions: partition p holds ids p, p+2, … at offsets 0..9.
  beforeAll(async () => {
    await produce(topic, 2, numbered(20, 2))
  }, 120_000)
  const ids = (rows: string[]): number[] => rows.map(r => (JSON.parse(r) as number[])[0]!).sort((a, b) => a - b)
  const range = (from: number, to: number, step = 1): number[] => Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => from + i * step)
  const run = async (options: Record<string, string>): Promise<number[]> =>
    ids((await select(`${kafkaTable('t', 'id INT', topic, options)} SELECT * FROM t;`)).rows)

  it('earliest-offset to latest-offset reads everything, once', async () => {
    expect(await run({ 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset' })).toEqual(range(0, 20))
  }, 120_000)

  it('specific-offsets start and stop per partition', async () => {
    const got = await run({
      'scan.startup.mode': 'specific-offsets',
      'scan.startup.specific-offsets': 'partition:0,offset:3;partition:1,offset:7',
      'scan.bounded.mode': 'specific-offsets',
      'scan.bounded.specific-offsets': 'partition:0,offset:5;partition:1,offset:10',
    })
    // Partition 0 offsets 3, 4 hold ids 6, 8; partition 1 offsets 7..9 hold ids 15, 17, 19.
    expect(got).toEqual([6, 8, 15, 17, 19])
  }, 120_000)

  it('timestamp start and stop: the messages whose timestamps are in between', async () => {
    const got = await run({
      'scan.startup.mode': 'timestamp',
      'scan.startup.timestamp-millis': String(T0 + 5_000),
      'scan.bounded.mode': 'timestamp',
      'scan.bounded.timestamp-millis': String(T0 + 12_000),
    })
    expect(got).toEqual(range(5, 12))
  }, 120_000)

  it('group-offsets start and stop at a consumer group’s committed offsets, and need one (or auto.offset.reset)', async () => {
    const admin = suite.kafka.admin()
    await admin.connect()
    await admin.setOffsets({ groupId: 'starts', topic, partitions: [{ partition: 0, offset: '8' }, { partition: 1, offset: '9' }] })
    await admin.setOffsets({ groupId: 'stops', topic, partitions: [{ partition: 0, offset: '2' }, { partition: 1, offset: '1' }] })
    await admin.disconnect()
    expect(await run({ 'properties.group.id': 'starts', 'scan.bounded.mode': 'latest-offset' })).toEqual([16, 18, 19])
    expect(await run({ 'properties.group.id': 'stops', 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'group-offsets' })).toEqual([0, 1, 2])
    const e = await failure(`${kafkaTable('t', 'id INT', topic, { 'properties.group.id': 'nobody', 'scan.bounded.mode': 'latest-offset' })} SELECT * FROM t;`)
    expect(e.message).toContain(`consumer group 'nobody' has no committed offset for partition 0 of topic 'modes'`)
    expect(e.help).toContain(`'properties.auto.offset.reset'`)
    expect(await run({ 'properties.group.id': 'nobody', 'properties.auto.offset.reset': 'earliest', 'scan.bounded.mode': 'latest-offset' })).toEqual(
      range(0, 20),
    )
  }, 120_000)

  it('latest-offset start reads only what is appended after the job started', async () => {
    const later = 'modes-latest'
    await produce(later, 2, numbered(6, 2))
    // The reader resolves its start before the job's first checkpoint: append only after one.
    let checkpointed = false
    const options = { 'execution.checkpointing.interval': '50 ms', 'state.checkpoints.dir': join(suite.root, 'latest-chk') }
    const lines: string[] = []
    const session = new Session({ println: l => lines.push(l), options, onCheckpoint: () => void (checkpointed = true) })
    // Stops once each partition has 2 more messages than when the test starts.
    await session.executeSql(
      `${
        kafkaTable('t', 'id INT', later, {
          'scan.startup.mode': 'latest-offset',
          'scan.bounded.mode': 'specific-offsets',
          'scan.bounded.specific-offsets': 'partition:0,offset:5;partition:1,offset:5',
        })
      } CREATE TABLE p (id INT) WITH ('connector' = 'print');
      INSERT INTO p SELECT * FROM t;`,
    )
    const done = session.awaitJobs()
    for (let i = 0; i < 600 && !checkpointed; i++) await new Promise(r => setTimeout(r, 100))
    await append(later, numbered(4, 2, 100))
    await done
    expect(lines.map(l => Number(/\d+/.exec(l)![0])).sort((a, b) => a - b)).toEqual([100, 101, 102, 103])
  }, 120_000)

  it('an unbounded source keeps reading: a job over it runs until cancelled', async () => {
    const cancel = new AbortController()
    const seen: string[] = []
    const session = new Session({ println: line => seen.push(line), signal: cancel.signal })
    await session.executeSql(`${kafkaTable('t', 'id INT', topic, { 'scan.startup.mode': 'earliest-offset' })}
      CREATE TABLE p (id INT) WITH ('connector' = 'print');
      INSERT INTO p SELECT * FROM t;`)
    const done = session.awaitJobs()
    for (let i = 0; i < 600 && seen.length < 20; i++) await new Promise(r => setTimeout(r, 100))
    expect(seen).toHaveLength(20)
    cancel.abort()
    const [m] = await done
    expect(m!.cancelled).toBe(true)
  }, 120_000)
})

describe('metadata columns', () => {
  it('partition, offset and timestamp of each message, with a watermark on the timestamp', async () => {
    await produce('meta', 2, numbered(10, 2))
    const { rows } = await select(`${
      kafkaTable(
        't',
        `id INT, p INT METADATA FROM 'partition' VIRTUAL, o BIGINT METADATA FROM 'offset' VIRTUAL, \`timestamp\` TIMESTAMP_LTZ(3) METADATA, tp STRING METADATA FROM 'topic',
         WATERMARK FOR \`timestamp\` AS \`timestamp\``,
        'meta',
        { 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset' },
      )
    }
      SELECT id, p, o, \`timestamp\`, tp FROM t;`)
    expect(rows).toEqual(
      Array.from({ length: 10 }, (_, i) => JSON.stringify([i, i % 2, Math.floor(i / 2), T0 + i * 1000, 'meta'])).sort(),
    )
    // A window over the Kafka timestamp: 10 messages one second apart in 5 s windows.
    const windows = await select(`${
      kafkaTable('t', `id INT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', WATERMARK FOR ts AS ts`, 'meta', {
        'scan.startup.mode': 'earliest-offset',
        'scan.bounded.mode': 'latest-offset',
      })
    }
      SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;`)
    expect(windows.rows.map(r => (JSON.parse(r) as number[])[1])).toEqual([5, 5])
  }, 120_000)

  it('an unknown metadata key or a wrong type is an error pointing at the column', async () => {
    const e = await failure(kafkaTable('t', `id INT,\n  h STRING METADATA FROM 'headerz'`, 'meta'))
    expect(e.message).toContain(`connector 'kafka' has no metadata 'headerz' (column 'h')`)
    expect(e.span?.start.line).toBe(2)
    const t = await failure(kafkaTable('t', `id INT, o INT METADATA FROM 'offset'`, 'meta'))
    expect(t.message).toContain(`metadata 'offset' of connector 'kafka' is BIGINT, but column 'o' is declared INT`)
  })

  it('a connector without metadata refuses METADATA columns, pointing at the column', async () => {
    const e = await failure(
      `CREATE TABLE f (id INT,\n  o BIGINT METADATA FROM 'offset') WITH ('connector' = 'datagen');`,
    )
    expect(e.message).toBe(`METADATA columns are not supported by connector 'datagen'`)
    expect(e.span?.start.line).toBe(2)
  })
})

describe('checkpoints', () => {
  it('a job cancelled after a checkpoint and restored from it neither loses nor repeats a row', async () => {
    const n = 6000
    // Half the messages before the first run, which ends at offset 2000 of each partition: it cannot
    // finish before it is cancelled, however fast it reads; the rest come before the second run.
    await produce('restored', 3, numbered(n / 2, 3))
    const out = join(suite.root, 'restored-out')
    const checkpoints = join(suite.root, 'restored-chk')
    const sql = `${
      kafkaTable('t', 'id INT', 'restored', {
        'scan.startup.mode': 'earliest-offset',
        'scan.bounded.mode': 'specific-offsets',
        'scan.bounded.specific-offsets': 'partition:0,offset:2000;partition:1,offset:2000;partition:2,offset:2000',
      })
    }
      CREATE TABLE out (id INT) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO out SELECT * FROM t;`
    const options = { 'pipeline.name': 'kafka-restore', 'execution.checkpointing.interval': '5 ms', 'state.checkpoints.dir': checkpoints,
      'execution.batch-size': '10' }
    const cancel = new AbortController()
    const first = new Session({ println: () => undefined, signal: cancel.signal, options, onCheckpoint: () => visibleRows(out).length > 0 && cancel.abort() })
    await first.executeSql(sql)
    const [m1] = await first.awaitJobs()
    expect(m1!.cancelled).toBe(true)
    await append('restored', numbered(n / 2, 3, n / 2))
    // Cancelled at the first checkpoint that committed rows (the consumer may join after several): how
    // many depends on the host; what must hold is that the second run resumes and the output is exact.
    const log: string[] = []
    const second = new Session({ println: () => undefined, options, log: m => log.push(m) })
    await second.executeSql(sql)
    const [m2] = await second.awaitJobs()
    expect(log.join('\n')).toContain('resuming from checkpoint')
    expect(m2!.cancelled).toBe(false)
    expect(m2!.sourceRecordsRead).toBeLessThan(n) // it resumed, not started over
    const ids = visibleRows(out).map(l => (JSON.parse(l) as { id: number }).id).sort((a, b) => a - b)
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => i))
  }, 240_000)
})

describe('bad records', () => {
  const messages: Message[] = [
    { partition: 0, value: '{"id": 1}' },
    { partition: 1, value: '{"id": 2}' },
    { partition: 1, value: '{"id": oops}' },
    { partition: 0, value: null },
    { partition: 0, value: '{"id": 3}' },
  ]
  beforeAll(async () => {
    await produce('bad', 2, messages)
  }, 120_000)
  const table = (options: Record<string, string> = {}): string =>
    kafkaTable('t', 'id INT', 'bad', { 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset', ...options })

  it('fail the job naming the topic, partition and offset by default', async () => {
    const e = await failure(`${table()} SELECT * FROM t;`)
    expect(e.message).toContain(`bad record at topic 'bad', partition 1, offset 1 (table 't'): invalid JSON`)
    expect(e.record?.record).toBe('{"id": oops}')
    expect(e.help).toContain(`'json.ignore-parse-errors' = 'true'`)
  }, 120_000)

  it(`are skipped and counted with 'json.ignore-parse-errors'; a message without a value holds no row`, async () => {
    const { rows, result } = await select(`${table({ 'json.ignore-parse-errors': 'true' })} SELECT * FROM t;`)
    expect(rows).toEqual(['[1]', '[2]', '[3]'])
    if (result.kind !== 'rows') throw new Error(result.kind)
    expect(result.metrics.skippedRecords).toBe(1)
  }, 120_000)

  it('a column the query does not read is not converted, but the record must still be JSON and a read column must fit', async () => {
    await produce('projected', 1, [
      { partition: 0, value: '{"id": 1, "note": "x", "n": 5}' },
      { partition: 0, value: '{"id": 2, "note": "x", "n": "not a number"}' },
      { partition: 0, value: '{"ID": 3, "n": 7}' },
      { partition: 0, value: '{"id": 4, "n": [1, {"a": "}"}]}' },
    ])
    const t = (topic: string, options: Record<string, string> = {}): string =>
      kafkaTable('t', 'id INT, note STRING, n INT', topic, { 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset', ...options })
    // 'n' is not read: its wrong types are no error (as Flink's projected JSON format); 'ID' matches 'id' case-insensitively.
    expect((await select(`${t('projected')} SELECT id, note FROM t;`)).rows).toEqual(['[1,"x"]', '[2,"x"]', '[3,null]', '[4,null]'])
    const e = await failure(`${t('projected')} SELECT id, n FROM t;`)
    expect(e.message).toContain(`bad record at topic 'projected', partition 0, offset 1 (table 't'): column 'n': expected INT`)
    await produce('projected-bad', 1, [{ partition: 0, value: '{"id": 1, "note": "x\u0001"}' }])
    const bad = await failure(`${t('projected-bad')} SELECT id FROM t;`)
    expect(bad.message).toContain(`bad record at topic 'projected-bad', partition 0, offset 0 (table 't'): invalid JSON`)
  }, 120_000)

  it(`format 'raw' reads each value whole, and 'csv' decodes it`, async () => {
    await produce('texts', 1, [{ partition: 0, value: 'a,1' }, { partition: 0, value: '"b,c",2' }])
    const raw = await select(
      `${kafkaTable('t', 'line STRING', 'texts', { 'format': 'raw', 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset' })}
      SELECT * FROM t;`,
    )
    expect(raw.rows).toEqual(['["\\"b,c\\",2"]', '["a,1"]'])
    const csv = await select(
      `${kafkaTable('t', 's STRING, n INT', 'texts', { 'format': 'csv', 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset' })}
      SELECT * FROM t;`,
    )
    expect(csv.rows).toEqual(['["a",1]', '["b,c",2]'])
  }, 120_000)
})

describe('errors', () => {
  it('a topic that does not exist is named (and not created)', async () => {
    const e = await failure(
      `${kafkaTable('t', 'id INT', 'nowhere', { 'scan.bounded.mode': 'latest-offset', 'scan.startup.mode': 'earliest-offset' })} SELECT * FROM t;`,
    )
    expect(e.message).toContain(`table 't' reads topic 'nowhere', which the broker does not have`)
    const admin = suite.kafka.admin()
    await admin.connect()
    expect(await admin.listTopics()).not.toContain('nowhere')
    await admin.disconnect()
  }, 120_000)

  it('a broker that is down is a connector error naming its address', async () => {
    const down = '127.0.0.1:1'
    const e = await failure(
      `CREATE TABLE t (id INT) WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = '${down}', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset');
       SELECT * FROM t;`,
    )
    expect(e.kind).toBe('connector')
    expect(e.message).toContain(`the Kafka broker at ${down} cannot be reached`)
    expect(e.help).toContain(`'properties.bootstrap.servers'`)
  }, 180_000)

  it('unknown and not yet supported options are errors pointing at the option', async () => {
    const options = (extra: string): string =>
      `CREATE TABLE t (id INT) WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:1', 'format' = 'json',\n ${extra});`
    const unknown = await failure(options(`'scan.startup.mod' = 'earliest-offset'`))
    expect(unknown.message).toBe(`unsupported option 'scan.startup.mod' for connector 'kafka'`)
    expect(unknown.help).toBe(`did you mean 'scan.startup.mode'?`)
    expect(unknown.span?.start.line).toBe(2)
    const pattern = await failure(options(`'topic-pattern' = 'x.*'`))
    expect(pattern.message).toBe(`options 'topic' and 'topic-pattern' cannot both be set`)
    expect(pattern.span?.start.line).toBe(2)
    const property = await failure(options(`'properties.linger.ms' = '5'`))
    expect(property.message).toContain(`Kafka client property 'linger.ms' is not supported`)
    // Without a startup mode or a group the table can still be written; reading it is refused.
    const group = await failure(
      `CREATE TABLE t (id INT) WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:1', 'format' = 'json');
       SELECT * FROM t;`,
    )
    expect(group.message).toBe(`table 't' cannot be read: 'scan.startup.mode' = 'group-offsets' needs 'properties.group.id'`)
    expect(group.span?.start.line).toBe(2)
    const ts = await failure(options(`'scan.startup.mode' = 'timestamp'`))
    expect(ts.message).toBe(`'scan.startup.mode' = 'timestamp' needs option 'scan.startup.timestamp-millis'`)
  })
})
