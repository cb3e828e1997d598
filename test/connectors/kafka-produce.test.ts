// Weir's own produce path (connectors/kafka/produce/) against a real broker: what it writes reads
// back the same through kafkajs' consumer and through Weir's fetcher (keys, values, tombstones,
// headers, timestamps, partitions); an idempotent producer's sequence numbers run on across sends,
// batches and partitions (checked in the log's batch headers); a transaction's messages and its
// consumer-group offset become visible to read_committed readers on commit, never on abort.
import type { Kafka } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { createCluster, fetch } from '../../connectors/kafka/fetch/fetch-protocol.js'
import { PartitionFetcher } from '../../connectors/kafka/fetch/fetcher.js'
import { RecordProducer, type ProducerOptions } from '../../connectors/kafka/produce/producer.js'
import { headerPairs, type OutRecord } from '../../connectors/kafka/produce/record-batch.js'
import type { KafkaConnection } from '../../connectors/kafka/sink/options.js'
import { TransactionalProducer } from '../../connectors/kafka/sink/transactions.js'
import { createTopics } from '../support/kafka-topics.js'
import { kafkaSuite } from './kafka-source-helpers.js'

const suite = kafkaSuite('kafka-produce')

interface Read {
  partition: number
  offset: number
  key: string | null
  value: string | null
  timestamp: number
  headers: Record<string, string | string[] | null>
}

const headerText = (h: Record<string, Buffer | Buffer[] | string | (Buffer | string)[] | null | undefined>): Read['headers'] =>
  Object.fromEntries(
    Object.entries(h).map(([k, v]) => [k, v === null || v === undefined ? null : Array.isArray(v) ? v.map(x => x.toString()) : v.toString()]),
  )

function options(topic: string, more: Partial<ProducerOptions> = {}): ProducerOptions {
  return { topic, idempotent: false, acks: 1, compression: 'none', transactionTimeoutMs: 60_000, requestTimeoutMs: 30_000, ...more }
}

async function endOffsets(kafka: Kafka, topic: string): Promise<Map<number, number>> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    return new Map((await admin.fetchTopicOffsets(topic)).map(p => [p.partition, Number(p.high)]))
  } finally {
    await admin.disconnect()
  }
}

/** Every message of `topic` as kafkajs' consumer gives it. */
async function consume(kafka: Kafka, topic: string, readCommitted = true): Promise<Read[]> {
  const ends = await endOffsets(kafka, topic)
  const out: Read[] = []
  const consumer = kafka.consumer({ groupId: `read-${topic}-${Math.random()}`, readUncommitted: !readCommitted, maxWaitTimeInMs: 100 })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const reached = new Map<number, number>()
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if ([...ends].every(([p, end]) => (reached.get(p) ?? 0) >= end)) resolve()
    }
    check()
    consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          out.push({
            partition: batch.partition,
            offset: Number(m.offset),
            key: m.key === null ? null : m.key.toString(),
            value: m.value === null ? null : m.value.toString(),
            timestamp: Number(m.timestamp),
            headers: headerText(m.headers ?? {}),
          })
        }
        // Control batches and aborted messages move the position without messages.
        reached.set(batch.partition, Math.max(reached.get(batch.partition) ?? 0, Number(batch.lastOffset()) + 1))
        check()
      },
    }).catch(reject)
    setTimeout(() => reject(new Error(`timed out reading ${topic}`)), 60_000).unref()
  })
  await consumer.disconnect()
  return out.sort((a, b) => a.partition - b.partition || a.offset - b.offset)
}

/** Every message of `topic` as Weir's fetcher reads it. */
async function fetchAll(kafka: Kafka, topic: string, readCommitted = true): Promise<Read[]> {
  const ends = await endOffsets(kafka, topic)
  const out: Read[] = []
  let done = 0
  let failure: unknown
  const fetcher: PartitionFetcher = new PartitionFetcher(
    kafka,
    { maxWaitMs: 100, minBytes: 1, maxBytes: 1 << 20, readCommitted, requestTimeoutMs: 30_000, partitionMaxBytes: 1 << 20, bufferBytes: 8 << 20 },
    ({ split, cursor, bytes, through }) => {
      while (cursor.next()) {
        out.push({
          partition: split,
          offset: cursor.offset,
          key: cursor.keyStart < 0 ? null : cursor.buf.toString('utf8', cursor.keyStart, cursor.keyEnd),
          value: cursor.valueStart < 0 ? null : cursor.buf.toString('utf8', cursor.valueStart, cursor.valueEnd),
          timestamp: cursor.timestamp,
          headers: headerText(cursor.headers()),
        })
      }
      fetcher.consumed(bytes)
      if (through >= ends.get(split)!) done++
    },
    e => (failure = e),
    'test',
  )
  for (const [p, end] of ends) {
    if (end === 0) done++
    else fetcher.add(p, { topic, partition: p }, 0, end)
  }
  fetcher.start()
  const deadline = Date.now() + 60_000
  while (done < ends.size && failure === undefined && Date.now() < deadline) await new Promise(r => setTimeout(r, 50))
  await fetcher.close()
  if (failure !== undefined) throw failure
  return out.sort((a, b) => a.partition - b.partition || a.offset - b.offset)
}

/** The header of each batch in partition `partition` of `topic`: producer id, epoch, base sequence, records, attributes. */
async function batchHeaders(kafka: Kafka, topic: string, partition: number) {
  const cluster = createCluster(kafka)
  await cluster.connect()
  await cluster.addMultipleTargetTopics([topic])
  await cluster.refreshMetadata()
  const leader = Object.keys(cluster.findLeaderForPartitions(topic, [partition]))[0]!
  const broker = await cluster.findBroker({ nodeId: leader })
  const out: { producerId: bigint; epoch: number; sequence: number; count: number; attributes: number; baseOffset: number }[] = []
  let offset = 0
  const end = (await endOffsets(kafka, topic)).get(partition)!
  while (offset < end) {
    const response = await fetch(broker, [{ topic, partition, offset, maxBytes: 8 << 20 }], {
      maxWaitMs: 100,
      minBytes: 1,
      maxBytes: 8 << 20,
      readCommitted: false,
      requestTimeoutMs: 30_000,
    })
    const { data, start, end: stop } = response.partitions[0]!
    for (let p = start; p + 61 <= stop;) {
      const length = data.readInt32BE(p + 8)
      if (p + 12 + length > stop) break
      const baseOffset = Number(data.readBigInt64BE(p))
      out.push({
        baseOffset,
        attributes: data.readInt16BE(p + 21),
        producerId: data.readBigInt64BE(p + 43),
        epoch: data.readInt16BE(p + 51),
        sequence: data.readInt32BE(p + 53),
        count: data.readInt32BE(p + 57),
      })
      offset = baseOffset + data.readInt32BE(p + 23) + 1
      p += 12 + length
    }
  }
  await cluster.disconnect()
  return out
}

describe('messages written by the produce path', () => {
  for (const compression of ['none', 'gzip'] as const) {
    it(`read back the same through kafkajs' consumer and Weir's fetcher (${compression})`, async () => {
      const topic = `shapes-${compression}`
      await createTopics(suite.kafka, [{ topic, partitions: 3 }])
      const producer = await RecordProducer.connect(suite.kafka, options(topic, { compression }))
      const t0 = 1_750_000_000_000
      const records: OutRecord[] = []
      for (let i = 0; i < 3000; i++) {
        // Every message is told apart by its value, or (a tombstone) by its key.
        const value = i % 13 === 0 && i % 11 !== 0 ? null : JSON.stringify({ i, pad: 'p'.repeat(i % 300) })
        const key = i % 11 === 0 ? null : value === null ? `gone-${i}` : `k${i % 97}-ü`
        const headers = i % 4 === 0 ? [['trace', `t${i}`], ['empty', null], ['trace', 'again']] as const : undefined
        // An explicit partition, or none: then by key (Kafka's default partitioner), round robin without a key.
        records.push([i % 5 === 0 ? i % 3 : null, key, value, i % 2 === 0 ? t0 + i : null, headers])
      }
      const before = Date.now()
      await producer.send(records.slice(0, 1000))
      await producer.send(records.slice(1000))
      const after = Date.now()
      await producer.close()
      const viaKafkajs = await consume(suite.kafka, topic)
      const viaWeir = await fetchAll(suite.kafka, topic)
      expect(viaWeir).toEqual(viaKafkajs)
      expect(viaKafkajs).toHaveLength(records.length)
      // Each message as sent, each partition in the order sent.
      const byValue = new Map(viaKafkajs.map(r => [`${r.key}|${r.value}`, r]))
      expect(byValue.size).toBe(records.length)
      const partitionsUsed = new Set<number>()
      const lastOffset = new Map<number, number>()
      for (const [partition, key, value, timestamp, headers] of records) {
        const pairs = headerPairs(headers)
        const want = pairs === undefined ? {} : { trace: [pairs[0]![1], 'again'], empty: null }
        const got = byValue.get(`${key}|${value}`)
        expect(got, `${key} ${value}`).toBeDefined()
        if (partition !== null) expect(got!.partition).toBe(partition)
        if (timestamp !== null && timestamp !== undefined) expect(got!.timestamp).toBe(timestamp)
        else {
          expect(got!.timestamp).toBeGreaterThanOrEqual(before - 1)
          expect(got!.timestamp).toBeLessThanOrEqual(after + 1)
        }
        expect(got!.headers).toEqual(want)
        partitionsUsed.add(got!.partition)
        expect(got!.offset).toBeGreaterThan(lastOffset.get(got!.partition) ?? -1)
        lastOffset.set(got!.partition, got!.offset)
      }
      expect(partitionsUsed.size).toBe(3)
    }, 180_000)
  }

  it("an idempotent producer's sequence numbers run on across sends, batches and partitions", async () => {
    const topic = 'sequences'
    await createTopics(suite.kafka, [{ topic, partitions: 2 }])
    const producer = await RecordProducer.connect(suite.kafka, options(topic, { idempotent: true, acks: -1 }))
    // ~2 MB per partition in one send: several batches each (a batch stays under 1 MB), then small sends.
    const big = 'b'.repeat(1000)
    const sends: OutRecord[][] = [
      Array.from({ length: 4000 }, (_, i) => [i % 2, null, `${i}:${big}`] as const),
      Array.from({ length: 10 }, (_, i) => [i % 2, `k${i}`, `small ${i}`] as const),
      Array.from({ length: 7 }, (_, i) => [1, null, `last ${i}`] as const),
    ]
    await Promise.all(sends.map(s => producer.send(s)))
    await producer.close()
    const expected = new Map([[0, 2000 + 5], [1, 2000 + 5 + 7]])
    for (const partition of [0, 1]) {
      const headers = await batchHeaders(suite.kafka, topic, partition)
      expect(headers.length).toBeGreaterThanOrEqual(4)
      let next = 0
      for (const h of headers) {
        expect(h.producerId).toBeGreaterThanOrEqual(0n)
        expect(h.producerId).toBe(headers[0]!.producerId)
        expect(h.attributes & 0x10).toBe(0)
        expect(h.sequence).toBe(next)
        // Each batch's records are where the broker put them: no gaps, no duplicates.
        expect(h.baseOffset).toBe(next)
        next += h.count
      }
      expect(next).toBe(expected.get(partition))
    }
    const values = (await fetchAll(suite.kafka, topic, false)).map(r => r.value)
    expect(values).toHaveLength(4000 + 17)
    expect(new Set(values).size).toBe(4000 + 17)
  }, 180_000)
})

describe('transactions', () => {
  it('commit makes messages and the group offset visible to read_committed readers; abort shows neither', async () => {
    const topic = 'tx'
    await createTopics(suite.kafka, [{ topic, partitions: 3 }])
    const group = 'tx-marker'
    const producer = await RecordProducer.connect(suite.kafka, options(topic, { transactionalId: 'tx-test', idempotent: true, acks: -1 }))
    const batch = (tag: string): OutRecord[] => Array.from({ length: 300 }, (_, i) => [i % 3, `${tag}${i}`, `${tag}-value-${i}`] as const)
    producer.beginTransaction()
    await producer.send(batch('a'))
    await producer.sendOffsets(group, 0, 1)
    await producer.commitTransaction()
    producer.beginTransaction()
    await producer.send(batch('b'))
    await producer.send(batch('b2'))
    await producer.sendOffsets(group, 0, 2)
    await producer.abortTransaction()
    producer.beginTransaction()
    await producer.send(batch('c'))
    await producer.sendOffsets(group, 0, 3)
    await producer.commitTransaction()
    await producer.close()

    const keys = (rs: Read[]): string[] => rs.map(r => r.key!).sort()
    const committed = [...batch('a'), ...batch('c')].map(r => r[1]!).sort()
    const all = [...batch('a'), ...batch('b'), ...batch('b2'), ...batch('c')].map(r => r[1]!).sort()
    expect(keys(await consume(suite.kafka, topic, true))).toEqual(committed)
    expect(keys(await fetchAll(suite.kafka, topic, true))).toEqual(committed)
    expect(keys(await fetchAll(suite.kafka, topic, false))).toEqual(all)
    for (let p = 0; p < 3; p++) {
      for (const h of await batchHeaders(suite.kafka, topic, p)) {
        if ((h.attributes & 0x20) === 0) expect(h.attributes & 0x10).toBe(0x10)
      }
    }
    // A new producer of the same id (which completes what the last left) reads the committed offset.
    const again = await RecordProducer.connect(suite.kafka, options(topic, { transactionalId: 'tx-test', idempotent: true, acks: -1 }))
    await again.close()
    const admin = suite.kafka.admin()
    await admin.connect()
    const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] })
    await admin.disconnect()
    expect(offsets!.partitions.find(p => p.partition === 0)!.offset).toBe('3')
  }, 180_000)
})

describe("the exactly-once sink's producer", () => {
  it("writes its transaction's batches with the codec of 'properties.compression.type', read back whole", async () => {
    const topic = 'sink-gzip'
    await createTopics(suite.kafka, [{ topic, partitions: 2 }])
    const config: KafkaConnection = { topic, brokers: [suite.broker.bootstrap], clientId: 'test', transactionTimeoutMs: 60_000, requestTimeoutMs: 30_000,
      compression: 'gzip', guarantee: 'exactly-once', transactionalIdPrefix: 'gz' }
    const producer = new TransactionalProducer(suite.kafka, config, 'job', 'op')
    await producer.connect()
    const messages = Array.from({ length: 500 }, (_, i) => [i % 2, `k${i}`, i % 10 === 0 ? null : `{"n":${i}}`] as [number, string, string | null])
    await producer.produce(messages, 1)
    // The group offset of a committed transaction becomes readable once the broker has written the
    // commit markers, a moment after the commit returns (the sink reads it only after InitProducerId,
    // which waits for them).
    await expect.poll(() => producer.marker(), { timeout: 15_000, interval: 100 }).toBe(1)
    await producer.close()
    for (const p of [0, 1]) {
      const data = (await batchHeaders(suite.kafka, topic, p)).filter(h => (h.attributes & 0x20) === 0)
      expect(data.length).toBeGreaterThan(0)
      for (const h of data) expect(h.attributes & 0x17).toBe(0x11) // gzip, transactional
    }
    const read = await consume(suite.kafka, topic)
    expect(read.map(r => [r.partition, r.key, r.value]).sort()).toEqual(messages.map(m => [...m]).sort())
  }, 180_000)
})
