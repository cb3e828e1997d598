// The Kafka source's features beyond reading values, against a real broker: 'topic-pattern',
// message keys ('key.format', 'key.fields', 'value.fields-include', 'key.fields-prefix'), the
// 'headers' metadata, 'scan.watermark.idle-timeout', partitions and topics added while a job runs,
// and offsets committed to the consumer group after each checkpoint.
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { OffsetCommitter } from '../../connectors/kafka/source-commit.js'
import type { PartitionPosition } from '../../connectors/kafka/source-offsets.js'
import { Session } from '../../engine/session.js'
import { append, failure, kafkaSuite, kafkaTable, type Message, produce, select, until } from './kafka-source-helpers.js'

const suite = kafkaSuite('kafka-features')

const table = (name: string, columns: string, topic: string | null, options: Record<string, string> = {}): string =>
  kafkaTable(suite.broker.bootstrap, name, columns, topic, options)
const BOUNDED = { 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset' }
// Recent message times (on a whole minute): the broker deletes messages older than its retention.
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000
const ids = (n: number, partitions: number, base = 0): Message[] =>
  Array.from({ length: n }, (_, i) => ({ partition: i % partitions, value: JSON.stringify({ id: base + i }), timestamp: T0 + (base + i) * 1000 }))

/** Runs `sql` (INSERT INTO a print table) until `enough(lines)`, then cancels; the lines printed. */
async function runUntil(sql: string, enough: (lines: readonly string[]) => boolean, options: Record<string, string> = {},
  meanwhile?: (lines: readonly string[]) => Promise<void>): Promise<string[]>
{
  const cancel = new AbortController()
  const lines: string[] = []
  const session = new Session({ println: l => lines.push(l), signal: cancel.signal, options })
  await session.executeSql(sql)
  const done = session.awaitJobs()
  try {
    await meanwhile?.(lines)
    await until(() => enough(lines))
  } finally {
    cancel.abort()
    await done
  }
  return lines
}

describe(`'topic-pattern'`, () => {
  it('reads every partition of the topics whose whole name matches, and only those', async () => {
    await produce(suite.kafka, 'orders-eu', 2, ids(10, 2))
    await produce(suite.kafka, 'orders-us', 3, ids(9, 3, 100))
    await produce(suite.kafka, 'orders-eu-archive', 1, ids(4, 1, 1000)) // 'orders-(eu|us)' must match the whole name
    await produce(suite.kafka, 'returns', 1, ids(4, 1, 2000))
    const { rows: got } = await select(
      `${
        table('t', `id INT, tp STRING METADATA FROM 'topic', p INT METADATA FROM 'partition', o BIGINT METADATA FROM 'offset'`, null, {
          'topic-pattern': 'orders-(eu|us)',
          ...BOUNDED,
        })
      }
      SELECT tp, id, p, o FROM t;`,
    )
    const rows = got.map(r => JSON.stringify((JSON.parse(r) as unknown[]).slice(0, 2))).sort()
    const expected = [...ids(10, 2).map(m => ['orders-eu', m.value]), ...ids(9, 3, 100).map(m => ['orders-us', m.value])]
      .map(([tp, v]) => JSON.stringify([tp, (JSON.parse(v!) as { id: number }).id]))
    expect(rows).toEqual(expected.sort())
  }, 120_000)

  it(`is exclusive with 'topic', and must be a regular expression`, async () => {
    const both = await failure(table('t', 'id INT', 'a', { 'topic-pattern': 'a.*' }))
    expect(both.message).toBe(`options 'topic' and 'topic-pattern' cannot both be set`)
    const bad = await failure(table('t', 'id INT', null, { 'topic-pattern': 'a(' }))
    expect(bad.message).toContain(`invalid value 'a(' for option 'topic-pattern': expected a regular expression`)
  })
})

describe('message keys', () => {
  beforeAll(async () => {
    await produce(suite.kafka, 'keyed', 2, [
      { partition: 0, key: '{"id": 1}', value: '{"name": "a"}' },
      { partition: 1, key: '{"id": 2}', value: '{"name": "b", "id": 99}' },
      { partition: 0, key: null, value: '{"name": "c"}' },
    ])
  }, 120_000)

  it(`'key.fields' come from the key with 'value.fields-include' = 'EXCEPT_KEY'; a message without a key has NULL key columns`, async () => {
    const { rows } = await select(
      `${
        table('t', 'id INT, name STRING', 'keyed', { 'key.format': 'json', 'key.fields': 'id', 'value.fields-include': 'EXCEPT_KEY', ...BOUNDED })
      } SELECT * FROM t;`,
    )
    expect(rows).toEqual(['[1,"a"]', '[2,"b"]', '[null,"c"]'])
  }, 120_000)

  it(`with 'ALL' the value holds every column and its value wins, as in Flink`, async () => {
    const { rows } = await select(`${table('t', 'id INT, name STRING', 'keyed', { 'key.format': 'json', 'key.fields': 'id', ...BOUNDED })} SELECT * FROM t;`)
    expect(rows).toEqual(['[99,"b"]', '[null,"a"]', '[null,"c"]'])
  }, 120_000)

  it(`'key.fields-prefix' names the key's columns apart from the value's; a raw key is one STRING`, async () => {
    const prefixed = await select(`${
      table('t', 'k_id INT, name STRING', 'keyed', {
        'key.format': 'json',
        'key.fields': 'k_id',
        'key.fields-prefix': 'k_',
        'value.fields-include': 'EXCEPT_KEY',
        ...BOUNDED,
      })
    } SELECT * FROM t;`)
    expect(prefixed.rows).toEqual(['[1,"a"]', '[2,"b"]', '[null,"c"]'])
    const raw = await select(
      `${
        table('t', 'k STRING, name STRING', 'keyed', { 'key.format': 'raw', 'key.fields': 'k', 'value.fields-include': 'EXCEPT_KEY', ...BOUNDED })
      } SELECT * FROM t;`,
    )
    expect(raw.rows).toEqual(['["{\\"id\\": 1}","a"]', '["{\\"id\\": 2}","b"]', '[null,"c"]'])
  }, 120_000)

  it('a key the key format cannot decode fails the job naming the message', async () => {
    await produce(suite.kafka, 'bad-key', 1, [{ partition: 0, key: 'not json', value: '{"name": "a"}' }])
    const e = await failure(
      `${
        table('t', 'id INT, name STRING', 'bad-key', { 'key.format': 'json', 'key.fields': 'id', 'value.fields-include': 'EXCEPT_KEY', ...BOUNDED })
      } SELECT * FROM t;`,
    )
    expect(e.message).toContain(`bad record at topic 'bad-key', partition 0, offset 0 (table 't'): its key: invalid JSON`)
    expect(e.record?.record).toBe('not json')
  }, 120_000)

  it('what the sink writes with a key the source reads back through the same table', async () => {
    const admin = suite.kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic: 'round-trip', numPartitions: 2 }], waitForLeaders: true })
    await admin.disconnect()
    const ddl = table('t', 'id INT, name STRING', 'round-trip', {
      'key.format': 'csv',
      'key.fields': 'id',
      'value.fields-include': 'EXCEPT_KEY',
      'sink.delivery-guarantee': 'at-least-once',
      ...BOUNDED,
    })
    const writer = new Session({ println: () => undefined })
    await writer.executeSql(`${ddl} INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, CAST(NULL AS STRING));`)
    await writer.awaitJobs()
    const { rows } = await select(`${ddl} SELECT * FROM t;`)
    expect(rows).toEqual(['[1,"x"]', '[2,"y"]', '[3,null]'])
  }, 120_000)

  it('key options are checked: key.format needs key.fields, EXCEPT_KEY a key, the prefix EXCEPT_KEY', async () => {
    expect((await failure(table('t', 'id INT', 'keyed', { 'key.format': 'json' }))).message).toBe(`option 'key.format' needs 'key.fields'`)
    expect((await failure(table('t', 'id INT, n INT', 'keyed', { 'key.fields': 'id', 'key.format': 'json', 'key.fields-prefix': 'k_' }))).message)
      .toBe(`option 'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY'`)
    expect((await failure(table('t', 'id INT', 'keyed', { 'key.fields': 'nope', 'key.format': 'json' }))).message).toContain(
      `invalid value 'nope' for option 'key.fields'`,
    )
  })
})

describe(`metadata 'headers'`, () => {
  it('is a JSON object of each header to its UTF-8 value in a STRING column', async () => {
    await produce(suite.kafka, 'headed', 1, [
      { partition: 0, value: '{"id": 1}', headers: { trace: 'abc', bin: Buffer.from('é', 'utf8') } },
      { partition: 0, value: '{"id": 2}' },
      { partition: 0, value: '{"id": 3}', headers: { twice: ['1', '2'] } },
    ])
    const { rows } = await select(`${table('t', `id INT, h STRING METADATA FROM 'headers' VIRTUAL`, 'headed', BOUNDED)} SELECT * FROM t;`)
    expect(rows.map(r => JSON.parse(r) as [number, string]).map(([id, h]) => [id, JSON.parse(h)])).toEqual([
      [1, { trace: 'abc', bin: 'é' }],
      [2, {}],
      [3, { twice: '2' }],
    ])
    const typed = await failure(table('t', `id INT, h INT METADATA FROM 'headers'`, 'headed'))
    expect(typed.message).toContain(`metadata 'headers' of connector 'kafka' is MAP<STRING, BYTES>, but column 'h' is declared INT`)
    expect(typed.help).toContain('or as STRING for a JSON object')
    const mapOfText = await failure(table('t', `id INT, h MAP<STRING, STRING> METADATA FROM 'headers'`, 'headed'))
    expect(mapOfText.message).toContain(`is MAP<STRING, BYTES>, but column 'h' is declared MAP<STRING, STRING>`)
    const key = await failure(table('t', `id INT, k STRING METADATA FROM 'key'`, 'headed'))
    expect(key.message).toContain(`connector 'kafka' has no metadata 'key'`)
    expect(key.help).toContain(`'key.format' and 'key.fields'`)
  }, 120_000)
})

describe(`metadata 'headers' as MAP<STRING, BYTES>`, () => {
  it("is each header's bytes, as Flink reads them (the last value of a repeated name; bytes that are not UTF-8 too)", async () => {
    await produce(suite.kafka, 'headed-bytes', 1, [
      { partition: 0, value: '{"id": 1}', headers: { trace: 'abc', bin: Buffer.from([0xff, 0x00, 0xc3]) } },
      { partition: 0, value: '{"id": 2}' },
      { partition: 0, value: '{"id": 3}', headers: { twice: ['1', '2'] } },
    ])
    const { rows } = await select(`${table('t', `id INT, h MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL`, 'headed-bytes', BOUNDED)}
      SELECT id, CARDINALITY(h), HEX(h['trace']), HEX(h['bin']), CAST(h['twice'] AS STRING) FROM t;`)
    expect(rows.map(r => JSON.parse(r) as unknown)).toEqual([
      [1, 2, '616263', 'FF00C3', null],
      [2, 0, null, null, null],
      [3, 1, null, null, '2'],
    ])
  }, 120_000)
})

describe(`'scan.watermark.idle-timeout'`, () => {
  // Partition 0 holds ids 0..9, one second apart; partition 1 nothing. With a watermark on the
  // message time, the window [0 s, 5 s) is complete once partition 0's watermark passes 5 s — but the
  // watermark is the minimum over the partitions, and partition 1 has none.
  const windowed = (topic: string, options: Record<string, string>): string => `
    ${
    table('t', `id INT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', WATERMARK FOR ts AS ts`, topic, { 'scan.startup.mode': 'earliest-offset', ...options })
  }
    CREATE TABLE p (c BIGINT) WITH ('connector' = 'print');
    INSERT INTO p SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;`
  const onlyPartition0 = ids(10, 1)

  it('an idle partition stops holding the watermark back: the window fires', async () => {
    await produce(suite.kafka, 'idle-on', 2, onlyPartition0)
    const lines = await runUntil(windowed('idle-on', { 'scan.watermark.idle-timeout': '300 ms' }), l => l.length > 0)
    expect(lines).toEqual(['+I[5]'])
  }, 120_000)

  it('without it the window waits for the empty partition, and fires once that partition has data', async () => {
    await produce(suite.kafka, 'idle-off', 2, onlyPartition0)
    const admin = suite.kafka.admin()
    await admin.connect()
    const chk = join(suite.root, 'idle-off-chk')
    const options = { 'execution.checkpointing.interval': '100 ms', 'state.checkpoints.dir': chk }
    // The source commits its positions to the group after each checkpoint: once partition 0's
    // position is past its last message, every message of it was read.
    const readAll = async (): Promise<boolean> => {
      const [t] = await admin.fetchOffsets({ groupId: 'idle-watch', topics: ['idle-off'] })
      return t?.partitions.find(p => p.partition === 0)?.offset === '10'
    }
    let printedWhileIdle = -1
    const lines = await runUntil(windowed('idle-off', { 'properties.group.id': 'idle-watch' }), l => l.length > 0, options, async lines => {
      expect(await until(readAll)).toBe(true)
      // Some more checkpoints' time: the window had every chance to fire.
      await new Promise(r => setTimeout(r, 1000))
      printedWhileIdle = lines.length
      await append(suite.kafka, 'idle-off', [{ partition: 1, value: '{"id": 50}', timestamp: T0 + 50_000 }])
    })
    await admin.disconnect()
    expect(printedWhileIdle).toBe(0)
    // Partition 1's watermark (50 s) no longer holds partition 0's (9 s) back: [0 s, 5 s) fires.
    expect(lines).toEqual(['+I[5]'])
  }, 120_000)
})

describe('partitions and topics added while the job runs', () => {
  it('are read from their earliest offset, and their positions restored from a checkpoint', async () => {
    await produce(suite.kafka, 'grow', 1, ids(3, 1))
    const options = { 'pipeline.name': 'grow', 'execution.checkpointing.interval': '100 ms', 'state.checkpoints.dir': join(suite.root, 'grow-chk') }
    const sql = `${
      table('t', 'id INT', null, { 'topic-pattern': 'grow.*', 'scan.startup.mode': 'earliest-offset', 'scan.topic-partition-discovery.interval': '300 ms' })
    }
      CREATE TABLE p (id INT) WITH ('connector' = 'print');
      INSERT INTO p SELECT * FROM t;`
    const got = (lines: readonly string[]): number[] => lines.map(l => Number(/\[(\d+)\]/.exec(l)![1])).sort((a, b) => a - b)
    const run = async (during: (lines: readonly string[]) => Promise<void>, want: number): Promise<{ lines: string[]; log: string[] }> => {
      const cancel = new AbortController()
      const lines: string[] = [], log: string[] = []
      let since = 0 // checkpoints completed since every expected line was printed
      const session = new Session({
        println: l => lines.push(l),
        log: m => log.push(m),
        signal: cancel.signal,
        options,
        onCheckpoint: () => void (lines.length >= want && since++),
      })
      await session.executeSql(sql)
      const done = session.awaitJobs()
      try {
        await during(lines)
        // Two checkpoints after the last row: the second's positions are all past what was printed.
        expect(await until(() => lines.length >= want && since >= 2)).toBe(true)
      } finally {
        cancel.abort()
        await done
      }
      return { lines, log }
    }
    const first = await run(async lines => {
      expect(await until(() => lines.length >= 3)).toBe(true)
      const admin = suite.kafka.admin()
      await admin.connect()
      await admin.createPartitions({ topicPartitions: [{ topic: 'grow', count: 2 }] })
      await admin.disconnect()
      await append(suite.kafka, 'grow', [{ partition: 1, value: '{"id": 3}' }, { partition: 1, value: '{"id": 4}' }, { partition: 0, value: '{"id": 5}' }])
      await produce(suite.kafka, 'grow-more', 2, ids(3, 2, 6))
    }, 9)
    expect(got(first.lines)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    // Restored: every partition, the discovered ones too, resumes where the checkpoint left it.
    const second = await run(async () => {
      await append(suite.kafka, 'grow', [{ partition: 0, value: '{"id": 100}' }, { partition: 1, value: '{"id": 101}' }])
      await append(suite.kafka, 'grow-more', [{ partition: 0, value: '{"id": 102}' }, { partition: 1, value: '{"id": 103}' }])
    }, 4)
    expect(second.log.join('\n')).toContain('resuming from checkpoint')
    expect(got(second.lines)).toEqual([100, 101, 102, 103])
  }, 180_000)
})

describe('offsets committed to the consumer group', () => {
  it(`after each completed checkpoint, for monitoring; not with 'properties.commit.offsets.on.checkpoint' = 'false'`, async () => {
    await produce(suite.kafka, 'committed', 3, ids(30, 3))
    const options = { 'execution.checkpointing.interval': '50 ms', 'state.checkpoints.dir': join(suite.root, 'committed-chk') }
    const offsets = async (groupId: string): Promise<string[]> => {
      const admin = suite.kafka.admin()
      await admin.connect()
      const [t] = await admin.fetchOffsets({ groupId, topics: ['committed'] })
      await admin.disconnect()
      return (t?.partitions ?? []).sort((a, b) => a.partition - b.partition).map(p => `${p.partition}:${p.offset}`)
    }
    const read = async (groupId: string, extra: Record<string, string> = {}): Promise<void> => {
      const session = new Session({ println: () => undefined, options })
      await session.executeSql(`${table('t', 'id INT', 'committed', { 'properties.group.id': groupId, ...BOUNDED, ...extra })}
        CREATE TABLE p (id INT) WITH ('connector' = 'blackhole');
        INSERT INTO p SELECT * FROM t;`)
      await session.awaitJobs()
    }
    await read('monitored')
    // The job's final checkpoint holds every partition's end; its commit is waited for as the source closes.
    expect(await offsets('monitored')).toEqual(['0:10', '1:10', '2:10'])
    await read('unmonitored', { 'properties.commit.offsets.on.checkpoint': 'false' })
    expect(await offsets('unmonitored')).toEqual(['0:-1', '1:-1', '2:-1'])
  }, 120_000)

  it('the last checkpoint commits although it completes while an earlier commit still runs', async () => {
    // It was skipped ("the next commit carries it on"), and at the end there was no next one: the
    // group kept an earlier checkpoint's offsets (seen on a loaded machine as partition 1 at 0).
    const committer = new OffsetCommitter(suite.kafka, 'overtaken', 'overtaken')
    const at = (offset: number): PartitionPosition[] => [0, 1].map(partition => ({ topic: 'committed', partition, offset, stop: null }))
    committer.commit(at(1)) // connects a producer first: still running when the next ones come
    committer.commit(at(2))
    committer.commit(at(3))
    await committer.close()
    const admin = suite.kafka.admin()
    await admin.connect()
    const [t] = await admin.fetchOffsets({ groupId: 'overtaken', topics: ['committed'] })
    await admin.disconnect()
    expect((t?.partitions ?? []).sort((a, b) => a.partition - b.partition).map(p => `${p.partition}:${p.offset}`)).toEqual(['0:3', '1:3', '2:-1'])
    // The one in between was overtaken by the latest: two commits, not three.
    expect([committer.committed, committer.failed]).toEqual([2, 0])
  }, 120_000)
})
