// The Kafka source's own fetch path (connectors/kafka/fetch/) against a real broker: gzip batches
// written by kafkajs, transactions of two producers interleaved on one partition (one aborted) under
// read_committed and read_uncommitted, batches larger than the fetch's byte limits (cut by the broker),
// and the broker restarted while a job reads. Cases a broker cannot be made to write (another codec,
// a record set cut mid-batch, a corrupt batch) are checked on record sets built here.
import { gzipSync } from 'node:zlib'
import { CompressionTypes } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { RecordCursor, recordSetEnd } from '../../connectors/kafka/fetch/record-batches.js'
import { Session } from '../../engine/session.js'
import { createTopics } from '../support/kafka-topics.js'
import { kafkaSuite, kafkaTable, produce, select, until } from './kafka-source-helpers.js'

const suite = kafkaSuite('kafka-fetch')

const table = (name: string, columns: string, topic: string, options: Record<string, string> = {}): string =>
  kafkaTable(suite.broker.bootstrap, name, columns, topic, options)
const BOUNDED = { 'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset' }
const ids = (rows: readonly string[]): number[] => rows.map(r => (JSON.parse(r) as number[])[0]!).sort((a, b) => a - b)
const range = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i)

function createTopic(topic: string, partitions: number): Promise<void> {
  return createTopics(suite.kafka, [{ topic, partitions }])
}

describe('compressed batches', () => {
  it('gzip batches written by kafkajs are read whole, each message once, beside uncompressed ones', async () => {
    await createTopic('gzip', 2)
    const producer = suite.kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    for (let b = 0; b < 4; b++) {
      await producer.send({
        topic: 'gzip',
        compression: b % 2 === 0 ? CompressionTypes.GZIP : CompressionTypes.None,
        messages: range(b * 300, 300).map(id => ({ partition: id % 2, value: JSON.stringify({ id, pad: 'x'.repeat(id % 50) }) })),
      })
    }
    await producer.disconnect()
    const { rows } = await select(table('t', "id INT, part INT METADATA FROM 'partition', o BIGINT METADATA FROM 'offset'", 'gzip', BOUNDED) +
      ' SELECT id, part, o FROM t;')
    expect(ids(rows)).toEqual(range(0, 1200))
    // Each partition's offsets are its messages in the order they were sent.
    for (const r of rows) {
      const [id, part, offset] = JSON.parse(r) as number[]
      expect(part).toBe(id! % 2)
      expect(offset).toBe(Math.floor(id! / 2))
    }
  }, 120_000)
})

describe('transactions of two producers interleaved on one partition', () => {
  // Producer A commits, B aborts, A commits again, B commits: their batches interleave in the log,
  // so the aborted transaction's batches sit between committed ones of the other producer.
  async function interleaved(topic: string): Promise<void> {
    await createTopic(topic, 1)
    const a = suite.kafka.producer({ transactionalId: `${topic}-a`, maxInFlightRequests: 1, idempotent: true })
    const b = suite.kafka.producer({ transactionalId: `${topic}-b`, maxInFlightRequests: 1, idempotent: true })
    await a.connect()
    await b.connect()
    const send = async (tx: Awaited<ReturnType<typeof a.transaction>>, from: number): Promise<void> => {
      await tx.send({ topic, messages: range(from, 5).map(id => ({ partition: 0, value: JSON.stringify({ id }) })) })
    }
    const ta = await a.transaction()
    const tb = await b.transaction()
    await send(ta, 0)
    await send(tb, 100)
    await send(ta, 5)
    await send(tb, 105)
    await ta.commit()
    await send(tb, 110)
    await tb.abort()
    const tb2 = await b.transaction()
    await send(tb2, 200)
    await tb2.commit()
    await a.disconnect()
    await b.disconnect()
  }
  const read = (topic: string, isolation: string) =>
    select(table('t', 'id INT', topic, { ...BOUNDED, 'properties.isolation.level': isolation }) + ' SELECT id FROM t;')

  it('read_committed drops the aborted transaction only, and ends past the last commit marker', async () => {
    await interleaved('interleaved-rc')
    expect(ids((await read('interleaved-rc', 'read_committed')).rows)).toEqual([...range(0, 10), ...range(200, 5)])
  }, 120_000)

  it('read_uncommitted reads every transaction, aborted or not (the markers are no rows)', async () => {
    await interleaved('interleaved-ru')
    expect(ids((await read('interleaved-ru', 'read_uncommitted')).rows)).toEqual([...range(0, 10), ...range(100, 15), ...range(200, 5)])
  }, 120_000)
})

describe('a fetch limit that falls inside a batch', () => {
  it('the broker cuts the batch there; it is read whole from the next fetch, each message once', async () => {
    // Batches of 100 messages of ~1 KB (~100 KB), fetched 150 KB at a time: each response ends in
    // part of a batch; and with a limit smaller than a batch, the broker sends one whole batch.
    await createTopic('large', 1)
    const producer = suite.kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    for (let b = 0; b < 6; b++) {
      await producer.send({ topic: 'large', messages: range(b * 100, 100).map(id => ({ partition: 0, value: JSON.stringify({ id, pad: 'y'.repeat(1000) }) })) })
    }
    await producer.disconnect()
    for (const limit of ['150000', '2048']) {
      const { rows } = await select(
        table('t', 'id INT', 'large', { ...BOUNDED, 'properties.max.partition.fetch.bytes': limit, 'properties.fetch.max.bytes': limit }) +
          ' SELECT id FROM t;',
      )
      expect(ids(rows)).toEqual(range(0, 600))
    }
  }, 120_000)
})

describe('the broker restarted while a job reads', () => {
  it('the source waits, fetches again from where it was, and reads every message once', async () => {
    await produce(suite.kafka, 'restart', 2, range(0, 400).map(id => ({ partition: id % 2, value: JSON.stringify({ id }) })))
    const lines: string[] = []
    const session = new Session({ println: l => lines.push(l) })
    // Bounded at 500 messages per partition: the job waits for the rest, appended after the restart.
    await session.executeSql(`${
      table('t', 'id INT', 'restart', {
        'scan.startup.mode': 'earliest-offset',
        'scan.bounded.mode': 'specific-offsets',
        'scan.bounded.specific-offsets': 'partition:0,offset:500;partition:1,offset:500',
      })
    }
      CREATE TABLE p (id INT) WITH ('connector' = 'print');
      INSERT INTO p SELECT id FROM t;`)
    const done = session.awaitJobs()
    expect(await until(() => lines.length >= 400)).toBe(true)
    await suite.broker.stop()
    await new Promise(r => setTimeout(r, 3_000))
    await suite.broker.start()
    const producer = suite.kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
    await producer.connect()
    await producer.send({ topic: 'restart', messages: range(400, 600).map(id => ({ partition: id % 2, value: JSON.stringify({ id }) })) })
    await producer.disconnect()
    await done
    const seen = lines.map(l => Number(/-?\d+/.exec(l)![0])).sort((a, b) => a - b)
    expect(seen).toEqual(range(0, 1000))
  }, 300_000)
})

// Record sets built byte by byte (message format v2), for what a broker does not write on request.
interface TestRecord {
  readonly key?: Buffer | null
  readonly value: Buffer | null
}

function varint(n: number): Buffer {
  let z = n >= 0 ? n * 2 : -n * 2 - 1
  const out: number[] = []
  while (z >= 0x80) {
    out.push((z & 0x7f) | 0x80)
    z = Math.floor(z / 128)
  }
  out.push(z)
  return Buffer.from(out)
}

function bytesField(b: Buffer | null | undefined): Buffer {
  return b === null || b === undefined ? varint(-1) : Buffer.concat([varint(b.length), b])
}

function batch(baseOffset: number, records: readonly TestRecord[], attributes = 0, producerId = -1n): Buffer {
  const body = Buffer.concat(records.map((r, i) => {
    const rec = Buffer.concat([Buffer.from([0]), varint(i), varint(i), bytesField(r.key), bytesField(r.value), varint(0)])
    return Buffer.concat([varint(rec.length), rec])
  }))
  const payload = (attributes & 7) === 1 ? gzipSync(body) : body
  const header = Buffer.alloc(61)
  header.writeBigInt64BE(BigInt(baseOffset), 0)
  header.writeInt32BE(61 - 12 + payload.length, 8)
  header.writeInt8(2, 16)
  header.writeInt16BE(attributes, 21)
  header.writeInt32BE(records.length - 1, 23)
  header.writeBigInt64BE(1_700_000_000_000n, 27)
  header.writeBigInt64BE(1_700_000_000_000n, 35)
  header.writeBigInt64BE(producerId, 43)
  header.writeInt32BE(records.length, 57)
  return Buffer.concat([header, payload])
}

const values = (c: RecordCursor): string[] => {
  const out: string[] = []
  while (c.next()) out.push(`${c.offset}:${c.buf.toString('utf8', c.valueStart, c.valueEnd)}`)
  return out
}
const where = { topic: 't', partition: 0 }
const v = (s: string): TestRecord => ({ value: Buffer.from(s) })

describe('record sets read in place', () => {
  it('a batch cut at the end of the data is left for the next fetch, and the end is that of the last whole batch', () => {
    const data = Buffer.concat([batch(0, [v('a'), v('b')]), batch(2, [v('c'), v('d')])])
    const cut = data.subarray(0, data.length - 3)
    expect(values(new RecordCursor(cut, 0, cut.length, 0, null, where))).toEqual(['0:a', '1:b'])
    expect(recordSetEnd(cut, 0, cut.length, 0)).toBe(2)
    expect(recordSetEnd(data, 0, data.length, 0)).toBe(4)
    // Nothing whole: the fetch position stays.
    expect(recordSetEnd(cut, 0, 20, 0)).toBe(0)
  })

  it('records before the fetch offset (a batch fetched from its middle) are dropped; gzip batches decompress', () => {
    const data = Buffer.concat([batch(10, [v('a'), v('b'), v('c')], 1), batch(13, [v('d')])])
    expect(values(new RecordCursor(data, 0, data.length, 11, null, where))).toEqual(['11:b', '12:c', '13:d'])
  })

  it('control batches are no records; under read_committed an aborted producer is dropped until its abort marker', () => {
    const abortMarker: TestRecord = { key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }
    const data = Buffer.concat([
      batch(0, [v('p7-a')], 0x10, 7n),
      batch(1, [v('p8-a')], 0x10, 8n),
      batch(2, [abortMarker], 0x30, 7n),
      batch(3, [v('p7-b')], 0x10, 7n),
    ])
    expect(values(new RecordCursor(data, 0, data.length, 0, [{ producerId: 7n, firstOffset: 0 }], where))).toEqual(['1:p8-a', '3:p7-b'])
    expect(values(new RecordCursor(data, 0, data.length, 0, null, where))).toEqual(['0:p7-a', '1:p8-a', '3:p7-b'])
  })

  it('a codec other than gzip is refused by name; a record running past its batch is corrupt data', () => {
    const snappy = batch(0, [v('a')], 2)
    expect(() => values(new RecordCursor(snappy, 0, snappy.length, 0, null, where))).toThrow(/compressed with snappy, which Weir cannot read/)
    const bad = batch(0, [v('abc')])
    bad[61] = 100 // the record's length, past the batch's end
    let error: unknown
    try {
      values(new RecordCursor(bad, 0, bad.length, 0, null, where))
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(WeirError)
    expect((error as WeirError).message).toContain(`topic 't', partition 0 is corrupt`)
  })
})
