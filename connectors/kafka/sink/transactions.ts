// The Kafka side of the exactly-once sink: one transactional producer per sink (transactional id
// `<prefix>-<job>-<operator>`), and a marker that says which checkpoint's output was produced last:
// the offset of a consumer group of the same name on the sink's topic, partition 0, committed by
// sendOffsets inside the transaction that produces the checkpoint's messages. The marker commits or
// aborts with the transaction, so it is exactly "the last checkpoint whose output is visible".
// It is read only after a producer with the transactional id has been initialised (which completes
// or aborts whatever transaction its predecessor left open), so it is never stale.
import { Kafka, logLevel, type Admin, type Message as KafkaMessage, type Producer } from 'kafkajs'
import { WeirError } from '../../../common/errors.js'
import { unreachableBroker } from '../client.js'
import { RETRY_FOR_MS, isRetriable, retrying } from '../retry.js'
import type { Message } from './messages.js'
import type { KafkaConnection } from './options.js'

/**
 * At most this many messages per produce request: kafkajs groups a request's messages per partition
 * in time quadratic in their count (1,000 rather than 5,000 saved ~6% of the sink's CPU per message).
 */
const SEND_CHUNK = 1000
/**
 * And at most this many characters of keys and values (≤ 768 KB of UTF-8): the broker refuses a
 * partition's batch over 1 MB (message.max.bytes), and with large messages, or all of them going
 * to one partition, a count limit alone would exceed it.
 */
const SEND_CHARS = 256 * 1024

export function kafkaClient(config: KafkaConnection): Kafka {
  // Errors reach the job as exceptions with the table's name; kafkajs' own log would only repeat them.
  return new Kafka({ clientId: config.clientId, brokers: [...config.brokers], logLevel: logLevel.NOTHING, requestTimeout: config.requestTimeoutMs })
}

/** A Kafka failure of table `table`'s sink, saying what it was doing. */
export function kafkaSinkError(e: unknown, table: string, config: KafkaConnection, doing: string): WeirError {
  if (e instanceof WeirError) return e
  const unreachable = unreachableBroker(e, config.brokers)
  if (unreachable !== undefined) {
    return WeirError.connector(`Kafka sink of table '${table}' failed ${doing}: ${unreachable.message}`, { help: unreachable.help, cause: e })
  }
  return WeirError.connector(`Kafka sink of table '${table}' failed ${doing} (topic '${config.topic}' at ${config.brokers.join(',')}): ${(e as Error).message}`,
    {
      help: `check that the broker is reachable and the topic exists; the job can be restarted from its last checkpoint`,
      cause: e,
    })
}

/** `<prefix>-<job>-<operator>`: the sink's transactional id and the name of its marker group. */
export function transactionalId(config: KafkaConnection, jobName: string, operatorId: string): string {
  return `${config.transactionalIdPrefix}-${jobName}-${operatorId}`
}

function toKafka(m: Message): KafkaMessage {
  const message: KafkaMessage = m[0] === null ? { key: m[1], value: m[2] } : { partition: m[0], key: m[1], value: m[2] }
  // The table's 'timestamp' and 'headers' metadata; without them kafkajs stamps the producer's time.
  if (m[3] !== undefined && m[3] !== null) message.timestamp = String(m[3])
  if (m[4] !== undefined && m[4] !== null) message.headers = m[4] as NonNullable<KafkaMessage['headers']>
  return message
}

/** Sends messages in produce requests of at most SEND_CHUNK messages and SEND_CHARS characters, with the given send function. */
export async function sendAll(messages: readonly Message[], send: (batch: KafkaMessage[]) => Promise<unknown>): Promise<void> {
  let batch: KafkaMessage[] = []
  let chars = 0
  for (const m of messages) {
    const size = (m[1]?.length ?? 0) + (m[2]?.length ?? 0)
    if (batch.length > 0 && (batch.length >= SEND_CHUNK || chars + size > SEND_CHARS)) {
      await send(batch)
      batch = []
      chars = 0
    }
    batch.push(toKafka(m))
    chars += size
  }
  if (batch.length > 0) await send(batch)
}

export class TransactionalProducer {
  private producer: Producer | undefined
  private readonly admin: Admin
  readonly id: string

  constructor(private readonly kafka: Kafka, private readonly config: KafkaConnection, jobName: string, operatorId: string) {
    this.id = transactionalId(config, jobName, operatorId)
    this.admin = kafka.admin()
  }

  /** Initialises the producer (aborting or completing what an earlier one left open) and connects the admin client. */
  async connect(): Promise<void> {
    await retrying(() => this.admin.connect())
    await this.initProducer()
  }

  private async initProducer(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined)
    const producer = this.kafka.producer({ transactionalId: this.id, idempotent: true, maxInFlightRequests: 1,
      transactionTimeout: this.config.transactionTimeoutMs })
    this.producer = producer
    await retrying(() => producer.connect())
  }

  /** The last checkpoint whose output a transaction made visible (0: none). Read after connect(). */
  async marker(): Promise<number> {
    const [topic] = await retrying(() => this.admin.fetchOffsets({ groupId: this.id, topics: [this.config.topic] }))
    const offset = Number(topic?.partitions.find(p => p.partition === 0)?.offset ?? '-1')
    return offset > 0 ? offset : 0
  }

  /**
   * Produces `messages` and sets the marker to `checkpoint`, in one transaction. On a retriable
   * failure, starts over with a new producer of the same id (the open transaction is aborted) unless
   * the marker shows that the transaction committed after all.
   */
  async produce(messages: readonly Message[], checkpoint: number): Promise<void> {
    const deadline = Date.now() + RETRY_FOR_MS
    for (;;) {
      try {
        await this.transaction(messages, checkpoint)
        return
      } catch (e) {
        if (!isRetriable(e) || Date.now() > deadline) throw e
        await new Promise(r => setTimeout(r, 500))
        await this.initProducer()
        if (await this.marker() === checkpoint) return
      }
    }
  }

  private async transaction(messages: readonly Message[], checkpoint: number): Promise<void> {
    const tx = await this.producer!.transaction()
    try {
      await sendAll(messages, batch => tx.send({ topic: this.config.topic, messages: batch }))
      await tx.sendOffsets({ consumerGroupId: this.id, topics: [{ topic: this.config.topic, partitions: [{ partition: 0, offset: String(checkpoint) }] }] })
    } catch (e) {
      await tx.abort().catch(() => undefined)
      throw e
    }
    await tx.commit()
  }

  async close(): Promise<void> {
    await this.producer?.disconnect().catch(() => undefined)
    await this.admin.disconnect().catch(() => undefined)
  }
}

/** The number of partitions of the sink's topic; a connector error when it does not exist. */
export async function partitionCount(kafka: Kafka, config: KafkaConnection, table: string): Promise<number> {
  const admin = kafka.admin()
  try {
    // Not retried beyond the client's own retries: a broker that is down when the job starts fails
    // it in seconds, as the Kafka source does, rather than after RETRY_FOR_MS.
    await admin.connect()
    const topics = await retrying(() => admin.listTopics())
    if (!topics.includes(config.topic)) {
      throw WeirError.connector(`Kafka topic '${config.topic}' of table '${table}' does not exist at ${config.brokers.join(',')}`, {
        help: `create the topic first (e.g. kafka-topics.sh --create --topic ${config.topic}); Weir does not create topics`,
      })
    }
    const { topics: meta } = await retrying(() => admin.fetchTopicMetadata({ topics: [config.topic] }))
    return meta[0]!.partitions.length
  } catch (e) {
    throw kafkaSinkError(e, table, config, 'reading the topic')
  } finally {
    await admin.disconnect().catch(() => undefined)
  }
}
