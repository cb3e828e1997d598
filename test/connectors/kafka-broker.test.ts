// The test broker (scripts/kafka-server.sh through test/support/kafka-server.ts) does what the Kafka
// connector relies on, with kafkajs as the connector uses it: topics with several partitions,
// consumer groups, transactions that read_committed consumers see only once committed (with a
// group offset committed in the same transaction), and data that survives a broker restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Consumer, EachMessagePayload, Kafka, Producer } from 'kafkajs'
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-server.js'

let broker: KafkaBroker
let kafka: Kafka
const open: { disconnect(): Promise<void> }[] = []

beforeAll(async () => {
  broker = await startKafkaBroker()
  kafka = broker.client()
}, 450_000)

afterAll(async () => {
  for (const client of open.splice(0)) await client.disconnect().catch(() => {})
  await broker?.close()
}, 150_000)

/** A connected client, disconnected after the file if a test does not do it. */
async function connected<C extends { connect(): Promise<void>; disconnect(): Promise<void> }>(client: C): Promise<C> {
  open.push(client)
  await client.connect()
  return client
}

async function createTopic(topic: string, numPartitions: number): Promise<void> {
  const admin = await connected(kafka.admin())
  expect(await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true })).toBe(true)
  await admin.disconnect()
}

interface Received {
  readonly partition: number
  readonly offset: string
  readonly key: string
  readonly value: string
}

/** Runs `consumer` on `topic` from the beginning until `done` holds for what it received, then
 *  disconnects it (its group keeps the offsets it committed); a deadline turns a hang into a failure
 *  that says what did arrive. */
async function consumeUntil(consumer: Consumer, topic: string, done: (got: Received[]) => boolean): Promise<Received[]> {
  const got: Received[] = []
  await connected(consumer)
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  let finished = false
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gave up waiting on '${topic}' after 90 s; received: ${JSON.stringify(got)}`)), 90_000)
    void consumer.run({
      eachMessage: async ({ partition, message }: EachMessagePayload) => {
        if (finished) return // what arrives while it disconnects is not part of the answer
        got.push({ partition, offset: message.offset, key: message.key?.toString() ?? '', value: message.value?.toString() ?? '' })
        if (done(got)) {
          finished = true
          clearTimeout(timer)
          resolve()
        }
      },
    }).catch(e => {
      clearTimeout(timer)
      reject(e)
    })
  })
  await consumer.disconnect()
  return got
}

/** Appends 'end-P' to each partition P, outside any transaction: a consumer that has seen every end
 *  has seen all that was written before them (a partition is delivered in order). */
async function writeEndOfEachPartition(topic: string, partitions: number): Promise<void> {
  const producer = await connected(kafka.producer())
  await producer.send({ topic, messages: Array.from({ length: partitions }, (_, p) => ({ partition: p, key: `end-${p}`, value: `end-${p}` })) })
  await producer.disconnect()
}

function sawEnds(partitions: number): (got: Received[]) => boolean {
  return got => got.filter(r => r.value.startsWith('end-')).length === partitions
}

/** A transactional producer as an exactly-once sink uses one: idempotent, one request in flight. */
function transactionalProducer(transactionalId: string): Producer {
  return kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 })
}

describe('the test Kafka broker', () => {
  it('serves a topic with several partitions to a consumer group whose members share them', async () => {
    const topic = 'clicks'
    await createTopic(topic, 3)
    const admin = await connected(kafka.admin())
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] })
    expect(topics[0]!.partitions.map(p => p.partitionId).sort()).toEqual([0, 1, 2])

    // Two members of one group; produce only once both hold their share, so that both receive.
    const members = [kafka.consumer({ groupId: 'readers' }), kafka.consumer({ groupId: 'readers' })]
    const assigned = members.map(() => [] as number[])
    members.forEach((m, i) =>
      m.on(m.events.GROUP_JOIN, e => {
        assigned[i] = e.payload.memberAssignment[topic] ?? []
      })
    )
    const received = members.map(() => [] as Received[])
    for (const [i, m] of members.entries()) {
      await connected(m)
      await m.subscribe({ topics: [topic], fromBeginning: true })
      await m.run({
        eachMessage: async ({ partition, message }) => {
          received[i]!.push({ partition, offset: message.offset, key: message.key!.toString(), value: message.value!.toString() })
        },
      })
    }
    await waitFor(() => assigned.every(a => a.length > 0) && assigned.flat().length === 3, () => `assignments: ${JSON.stringify(assigned)}`)
    expect(assigned.flat().sort()).toEqual([0, 1, 2])

    const producer = await connected(kafka.producer())
    const sent = Array.from({ length: 60 }, (_, i) => ({ key: `user-${i % 20}`, value: String(i) }))
    for (let i = 0; i < sent.length; i += 20) await producer.send({ topic, messages: sent.slice(i, i + 20) })
    await waitFor(() => received.flat().length >= sent.length, () => `received ${received.flat().length} of ${sent.length}`)

    const all = received.flat()
    expect(all.map(r => Number(r.value)).sort((a, b) => a - b)).toEqual(sent.map((_, i) => i))
    for (const [i, got] of received.entries()) {
      expect(got.length).toBeGreaterThan(0)
      for (const r of got) expect(assigned[i]).toContain(r.partition)
    }
    // A key always lands on one partition, and its messages arrive in the order they were sent.
    for (let k = 0; k < 20; k++) {
      const ofKey = all.filter(r => r.key === `user-${k}`)
      expect(new Set(ofKey.map(r => r.partition)).size).toBe(1)
      const values = ofKey.map(r => Number(r.value))
      expect(values).toEqual([...values].sort((a, b) => a - b))
    }
    expect(new Set(all.map(r => r.partition))).toEqual(new Set([0, 1, 2]))

    // The group commits what it consumed: its offsets reach each partition's end.
    for (const m of members) await m.disconnect() // commits on the way out
    const ends = await admin.fetchTopicOffsets(topic)
    const [committed] = await admin.fetchOffsets({ groupId: 'readers', topics: [topic] })
    expect(sortedOffsets(committed!.partitions)).toEqual(sortedOffsets(ends))
    expect(ends.reduce((n, p) => n + Number(p.offset), 0)).toBe(sent.length)
    await producer.disconnect()
    await admin.disconnect()
  })

  it('shows a read_committed consumer the committed transactions only, and a group offset sent in one only once it commits', async () => {
    const topic = 'results'
    await createTopic(topic, 2)
    const producer = await connected(transactionalProducer('weir-job-1'))
    const write = async (values: string[], commit: boolean, markerOffset: string): Promise<void> => {
      const tx = await producer.transaction()
      await tx.send({ topic, messages: values.map(value => ({ key: value, value })) })
      // The marker the exactly-once sink will commit with each checkpoint's output: an offset of a
      // group named after the job.
      await tx.sendOffsets({ consumerGroupId: 'weir-job-1-marker', topics: [{ topic, partitions: [{ partition: 0, offset: markerOffset }] }] })
      await (commit ? tx.commit() : tx.abort())
    }
    await write(['a', 'b'], true, '1')
    await write(['lost-1', 'lost-2', 'lost-3'], false, '2')
    await write(['c'], true, '3')
    await write(['lost-4'], false, '4')
    await producer.disconnect()
    await writeEndOfEachPartition(topic, 2)

    const committed = await consumeUntil(kafka.consumer({ groupId: 'committed-reader' }), topic, sawEnds(2))
    expect(committed.map(r => r.value).sort()).toEqual(['a', 'b', 'c', 'end-0', 'end-1'])
    // The aborted records are in the log: a read_uncommitted consumer gets them.
    const uncommitted = await consumeUntil(kafka.consumer({ groupId: 'uncommitted-reader', readUncommitted: true }), topic, sawEnds(2))
    expect(uncommitted.map(r => r.value).sort()).toEqual(['a', 'b', 'c', 'end-0', 'end-1', 'lost-1', 'lost-2', 'lost-3', 'lost-4'])

    // A producer with the same transactional id completes whatever its predecessor left open; after
    // that, the marker is the last committed transaction's.
    await (await connected(transactionalProducer('weir-job-1'))).disconnect()
    expect(await markerOffset('weir-job-1-marker', topic)).toBe('3')
  })

  it('keeps topics, committed data and group offsets across a restart, and takes transactions after it', async () => {
    const topic = 'durable'
    await createTopic(topic, 2)
    const producer = await connected(transactionalProducer('weir-job-2'))
    const tx = await producer.transaction()
    await tx.send({ topic, messages: ['x', 'y', 'z'].map(value => ({ key: value, value })) })
    await tx.sendOffsets({ consumerGroupId: 'weir-job-2-marker', topics: [{ topic, partitions: [{ partition: 0, offset: '1' }] }] })
    await tx.commit()
    await producer.disconnect()
    const first = await consumeUntil(kafka.consumer({ groupId: 'durable-reader' }), topic, got => got.length === 3)
    const admin = await connected(kafka.admin())
    const [offsetsBefore] = await admin.fetchOffsets({ groupId: 'durable-reader', topics: [topic] })
    await admin.disconnect()
    expect(offsetsBefore!.partitions.some(p => Number(p.offset) > 0)).toBe(true)

    await broker.stop()
    await broker.start()

    const adminAfter = await connected(kafka.admin())
    expect(await adminAfter.listTopics()).toContain(topic)
    const { topics } = await adminAfter.fetchTopicMetadata({ topics: [topic] })
    expect(topics[0]!.partitions).toHaveLength(2)
    const [offsetsAfter] = await adminAfter.fetchOffsets({ groupId: 'durable-reader', topics: [topic] })
    expect(sortedOffsets(offsetsAfter!.partitions)).toEqual(sortedOffsets(offsetsBefore!.partitions))
    expect(await markerOffset('weir-job-2-marker', topic)).toBe('1')

    // A new transaction after the restart; the group resumes where it was and reads only what came after.
    const producerAfter = await connected(transactionalProducer('weir-job-2'))
    const txAfter = await producerAfter.transaction()
    await txAfter.send({ topic, messages: [{ key: 'w', value: 'w' }] })
    await txAfter.commit()
    await producerAfter.disconnect()
    await writeEndOfEachPartition(topic, 2)
    const resumed = await consumeUntil(kafka.consumer({ groupId: 'durable-reader' }), topic, sawEnds(2))
    expect(resumed.map(r => r.value).sort()).toEqual(['end-0', 'end-1', 'w'])
    const fresh = await consumeUntil(kafka.consumer({ groupId: 'durable-reader-2' }), topic, sawEnds(2))
    expect(fresh.map(r => r.value).sort()).toEqual(['end-0', 'end-1', 'w', 'x', 'y', 'z'])
    // The records before the restart are those read before it: same partitions, same offsets.
    expect(fresh.filter(r => ['x', 'y', 'z'].includes(r.value)).map(at).sort()).toEqual(first.map(at).sort())
    await adminAfter.disconnect()
  })
})

function at(r: Received): string {
  return `${r.value}@${r.partition}:${r.offset}`
}

function sortedOffsets(partitions: { partition: number; offset: string }[]): { partition: number; offset: string }[] {
  return partitions.map(({ partition, offset }) => ({ partition, offset })).sort((a, b) => a.partition - b.partition)
}

async function markerOffset(groupId: string, topic: string): Promise<string | undefined> {
  const admin = await connected(kafka.admin())
  const [marker] = await admin.fetchOffsets({ groupId, topics: [topic] })
  await admin.disconnect()
  return marker?.partitions.find(p => p.partition === 0)?.offset
}

/** Polls `ready` until it holds; a deadline turns a hang into a failure that says where it stood. */
async function waitFor(ready: () => boolean, where: () => string): Promise<void> {
  const deadline = Date.now() + 90_000
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting after 90 s; ${where()}`)
    await new Promise(r => setTimeout(r, 50))
  }
}
