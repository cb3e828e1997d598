// Topics of a test broker (test/support/kafka-server.ts): create them, fill them, and read all of
// one as a consumer would (read_committed unless told), without knowing in advance how much it holds.
import type { Kafka } from 'kafkajs'

export async function createTopics(kafka: Kafka, topics: readonly { readonly topic: string; readonly partitions: number }[]): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: topics.map(t => ({ topic: t.topic, numPartitions: t.partitions })), waitForLeaders: true })
  } finally {
    await admin.disconnect()
  }
}

/**
 * Appends `values` to `topic`, value i to partition i % partitions (so each partition keeps their order), outside any transaction.
 * Idempotent: a plain producer that retries a request which timed out on a busy broker can append its messages twice.
 */
export async function produceRoundRobin(kafka: Kafka, topic: string, partitions: number, values: readonly string[]): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  try {
    for (let i = 0; i < values.length; i += 2000) {
      await producer.send({ topic, messages: values.slice(i, i + 2000).map((value, j) => ({ partition: (i + j) % partitions, value })) })
    }
  } finally {
    await producer.disconnect()
  }
}

export interface Received {
  readonly partition: number
  readonly offset: number
  readonly key: string | null
  readonly value: string | null
  /** The message's timestamp (epoch ms). */
  readonly timestamp: number
  /** Its headers, each value as UTF-8 text (null: a header without a value). */
  readonly headers: Readonly<Record<string, string | null>>
  /** Its headers' bytes (null: a header without a value). */
  readonly headerBytes: Readonly<Record<string, Buffer | null>>
}

let reads = 0

/**
 * Everything a consumer gets from `topic`, in each partition's order: first appends an end mark to
 * each partition outside any transaction, then reads until it has seen every one (a partition is
 * delivered in order, and a read_committed consumer stops at an open transaction, so what is open
 * makes the read hang and fail after `timeoutMs` rather than pass without it).
 */
export async function readTopic(kafka: Kafka, topic: string, partitions: number,
  opts: { readUncommitted?: boolean; timeoutMs?: number } = {}): Promise<Received[]>
{
  // Each read has its own end mark (earlier reads' marks are skipped like any other message of theirs).
  const end = `\u0000end-${process.pid}-${++reads}`
  const producer = kafka.producer()
  await producer.connect()
  await producer.send({ topic, messages: Array.from({ length: partitions }, (_, p) => ({ partition: p, key: end, value: end })) })
  await producer.disconnect()
  const consumer = kafka.consumer({ groupId: `reader-${topic}-${end.slice(1)}`, readUncommitted: opts.readUncommitted === true, maxWaitTimeInMs: 200 })
  await consumer.connect()
  const got: Received[] = []
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    let ends = 0
    await new Promise<void>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`gave up reading '${topic}': ${got.length} messages, ${ends} of ${partitions} end marks`)),
        opts.timeoutMs ?? 120_000)
      consumer.run({
        eachMessage: async ({ partition, message }) => {
          if (ends === partitions) return
          const key = message.key?.toString() ?? null
          if (key?.startsWith('\u0000end-')) {
            if (key === end && ++ends === partitions) {
              clearTimeout(timer)
              done()
            }
            return
          }
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([h, v]) => [h, v === undefined || v === null ? null : String(v)]))
          const headerBytes = Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([h, v]) => [h, v === undefined || v === null ? null : Buffer.from(v as Buffer)]),
          )
          got.push({ partition, offset: Number(message.offset), key, value: message.value?.toString() ?? null, timestamp: Number(message.timestamp), headers,
            headerBytes })
        },
      }).catch(fail)
    })
  } finally {
    await consumer.disconnect()
  }
  return got
}
