// The exactly-once Kafka sink's produce path against a real broker: keyed messages go to the
// partition Kafka's default partitioner picks (Weir computes it itself), and a checkpoint's output
// larger than the broker's batch limit (message.max.bytes, 1 MB) is split into requests it accepts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Partitioners, type Kafka, type PartitionMetadata } from 'kafkajs'
import { T, type Field } from '../../common/types.js'
import { kafkaSink } from '../../connectors/kafka/sink/index.js'
import type { Message } from '../../connectors/kafka/sink/messages.js'
import { keyPartition } from '../../connectors/kafka/sink/murmur2.js'
import { createTopics } from '../support/kafka-topics.js'
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-server.js'
import { sinkCtx } from './helpers.js'

/** kafkajs' own DefaultPartitioner (Kafka's murmur2 on 64-bit Longs): the reference. */
function referencePartition(key: string, partitions: number): number {
  const partitionMetadata = Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 1 }) as PartitionMetadata)
  return Partitioners.DefaultPartitioner()({ topic: 't', partitionMetadata, message: { key, value: null } })
}

/** Keys of every length 0–40 (so every tail length of murmur2's 4-byte blocks), ASCII and not. */
function keys(count: number): string[] {
  let seed = 16
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  return Array.from({ length: count }, (_, i) => {
    let s = ''
    for (let j = 0; j < i % 41; j++) {
      const c = 0x80 + Math.floor(random() * 0x1ff00)
      // (No lone surrogates: they would not survive the trip through the broker as UTF-8.)
      s += random() < 0.8 ? String.fromCharCode(32 + Math.floor(random() * 95)) : String.fromCodePoint(c >= 0xd800 && c < 0xe000 ? c + 0x800 : c)
    }
    return s
  })
}

describe('keyPartition', () => {
  it("is Kafka's default partitioner's choice for ASCII and multi-byte keys", () => {
    for (const key of keys(3000)) {
      for (const partitions of [1, 3, 4, 7]) expect(keyPartition(key, partitions)).toBe(referencePartition(key, partitions))
    }
  })
})

describe('exactly-once Kafka sink (broker)', () => {
  let broker: KafkaBroker
  let kafka: Kafka
  beforeAll(async () => {
    broker = await startKafkaBroker()
    kafka = broker.client()
  }, 450_000)
  afterAll(async () => {
    await broker?.close()
  }, 150_000)

  const createTopic = (topic: string, partitions: number): Promise<void> => createTopics(kafka, [{ topic, partitions }])

  /** The first `count` messages a read_committed consumer gets from `topic`: partition, key and value. */
  async function readCommitted(topic: string, count: number): Promise<{ partition: number; key: string | null; value: string | null }[]> {
    const consumer = kafka.consumer({ groupId: `reader-${topic}`, readUncommitted: false, maxWaitTimeInMs: 100 })
    await consumer.connect()
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    const got: { partition: number; key: string | null; value: string | null }[] = []
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`read ${got.length} of ${count} messages of '${topic}'`)), 60_000)
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          got.push({ partition, key: message.key?.toString() ?? null, value: message.value?.toString() ?? null })
          if (got.length === count) {
            clearTimeout(timer)
            done()
          }
        },
      }).catch(fail)
    })
    await consumer.disconnect()
    return got
  }

  async function writeOneCheckpoint(options: Record<string, string>, schema: Field[], rows: unknown[][]): Promise<void> {
    const w = await kafkaSink.create(sinkCtx(options, schema, undefined, { jobName: `job-${options['topic']}`, operatorId: '2-sink', exactlyOnce: true }))
    await w.write({ rows, kinds: null })
    await w.prepareCommit!(1)
    await w.commit!(1)
    await w.close()
  }

  it("puts each key on the partition Kafka's default partitioner picks", async () => {
    await createTopic('by-key', 5)
    const schema: Field[] = [{ name: 'k', type: T.string(false) }, { name: 'v', type: T.int() }]
    const ks = keys(400).map((k, i) => `${i}:${k}`)
    await writeOneCheckpoint({ topic: 'by-key', 'properties.bootstrap.servers': broker.bootstrap, 'key.fields': 'k', 'key.format': 'raw',
      'value.format': 'json' }, schema, ks.map((k, i) => [k, i]))
    const got = await readCommitted('by-key', ks.length)
    expect(got.map(m => m.key).sort()).toEqual([...ks].sort())
    for (const m of got) expect(m.partition).toBe(referencePartition(m.key!, 5))
  }, 300_000)

  it('splits a checkpoint of large messages for one partition into requests the broker accepts', async () => {
    await createTopic('large', 2)
    const schema: Field[] = [{ name: 's', type: T.string() }]
    // 400 messages of 8 KB, all for partition 0: 3.2 MB, over the broker's 1 MB per partition batch.
    const rows = Array.from({ length: 400 }, (_, i) => [`${String(i).padStart(4, '0')}${'x'.repeat(8 * 1024)}`])
    await writeOneCheckpoint({ topic: 'large', 'properties.bootstrap.servers': broker.bootstrap, format: 'raw', 'sink.partitioner': 'fixed' }, schema, rows)
    const got = await readCommitted('large', rows.length)
    expect(got.every(m => m.partition === 0)).toBe(true)
    expect(got.map(m => m.value)).toEqual(rows.map(r => r[0]))
  }, 300_000)
})
