// The Kafka side of the exactly-once sink: one transactional producer per sink (transactional id
// `<prefix>-<job>-<operator>`), and a marker that says which checkpoint's output was produced last:
// the offset of a consumer group of the same name on the sink's topic, partition 0, committed by
// sendOffsets inside the transaction that produces the checkpoint's messages. The marker commits or
// aborts with the transaction, so it is exactly "the last checkpoint whose output is visible".
// It is read only after a producer with the transactional id has been initialised (which completes
// or aborts whatever transaction its predecessor left open), so it is never stale.
import type { Admin, Kafka } from 'kafkajs'
import { WeirError } from '../../../common/errors.js'
import { kafkajs, unreachableBroker } from '../client.js'
import { RETRY_FOR_MS, isRetriable, retrying } from '../retry.js'
import { RecordProducer } from '../produce/producer.js'
import type { Message } from './messages.js'
import type { KafkaConnection } from './options.js'

export function kafkaClient(config: KafkaConnection): Kafka {
  // Errors reach the job as exceptions with the table's name; kafkajs' own log would only repeat them.
  const { Kafka, logLevel } = kafkajs()
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

/** The sink's producer for a delivery guarantee: transactional for exactly-once (see TransactionalProducer). */
export function streamingProducer(kafka: Kafka, config: KafkaConnection, guarantee: 'at-least-once' | 'none'): Promise<RecordProducer> {
  return RecordProducer.connect(kafka, {
    topic: config.topic,
    idempotent: guarantee === 'at-least-once',
    acks: guarantee === 'at-least-once' ? -1 : 1,
    compression: config.compression,
    transactionTimeoutMs: config.transactionTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
  })
}

export class TransactionalProducer {
  private producer: RecordProducer | undefined
  private readonly admin: Admin
  readonly id: string

  constructor(private readonly kafka: Kafka, private readonly config: KafkaConnection, jobName: string, operatorId: string) {
    this.id = transactionalId(config, jobName, operatorId)
    this.admin = kafka.admin()
  }

  /** Initialises the producer (aborting or completing what an earlier one left open) and connects the admin client. */
  async connect(): Promise<void> {
    await retrying(() => this.admin.connect())
    // A freshly connected admin client knows no broker by id until it has read metadata, so its first
    // group-coordinator lookup (marker()) failed with "no brokers in the broker pool" and was retried
    // after the client's back-off (300 ms by default) at each start; reading the topic's metadata
    // first fills the pool (one request).
    await retrying(() => this.admin.fetchTopicMetadata({ topics: [this.config.topic] }))
    await this.initProducer()
  }

  private async initProducer(): Promise<void> {
    await this.producer?.close().catch(() => undefined)
    this.producer = undefined
    this.producer = await retrying(() =>
      RecordProducer.connect(this.kafka, {
        topic: this.config.topic,
        transactionalId: this.id,
        idempotent: true,
        acks: -1,
        compression: this.config.compression,
        transactionTimeoutMs: this.config.transactionTimeoutMs,
        requestTimeoutMs: this.config.requestTimeoutMs,
      })
    )
  }

  /** The last checkpoint whose output a transaction made visible (0: none). Read after connect(). */
  /**
   * The last checkpoint whose transaction committed: the group offset the transaction set. A commit's
   * offset is readable only once the broker has written its markers, a moment after the commit
   * returns; so it is read after initProducer(), whose InitProducerId waits until the last
   * transaction of this id is complete.
   */
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
    const producer = this.producer!
    producer.beginTransaction()
    try {
      await producer.send(messages)
      await producer.sendOffsets(this.id, 0, checkpoint)
    } catch (e) {
      await producer.abortTransaction().catch(() => undefined)
      throw e
    }
    await producer.commitTransaction()
  }

  async close(): Promise<void> {
    await this.producer?.close().catch(() => undefined)
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
