// Weir's own Kafka producer for the sinks: messages are written into record batches per partition
// (record-batch.ts) and sent in Produce requests to each partition's leader (produce-protocol.ts),
// over kafkajs' cluster (connections, metadata). The idempotent and transactional bookkeeping is
// kafkajs' own transaction manager (node_modules/kafkajs/src/producer/eosManager: InitProducerId,
// sequence numbers, AddPartitionsToTxn, AddOffsetsToTxn + TxnOffsetCommit, EndTxn), driven here as
// kafkajs' producer drives it.
//
// A batch takes its sequence numbers when it is sealed and keeps its bytes until the leader accepted
// it: a retry (leader moved, broker restarting) sends the same batch again, which an idempotent
// producer's broker recognises (DUPLICATE_SEQUENCE_NUMBER when it had written it already). Sends go
// out in the order they were made (one request per leader at a time), so sequences never overtake.
import { createRequire } from 'node:module'
import type { Kafka } from 'kafkajs'
import { createCluster, createErrorFromCode, perLeader, type KafkajsCluster } from '../fetch/fetch-protocol.js'
import { isRetriable, RETRY_FOR_MS } from '../retry.js'
import { keyPartition } from '../sink/murmur2.js'
import { produce, type ProduceSettings } from './produce-protocol.js'
import { BatchBuilder, headerPairs, type BatchProducer, type Compression, type OutRecord, type SealedBatch } from './record-batch.js'

const require = createRequire(import.meta.url)

/** kafkajs' transaction manager (node_modules/kafkajs/src/producer/eosManager/index.js). */
interface EosManager {
  initProducerId(): Promise<void>
  getProducerId(): number
  getProducerEpoch(): number
  getSequence(topic: string, partition: number): number
  updateSequence(topic: string, partition: number, increment: number): void
  beginTransaction(): void
  addPartitionsToTransaction(topicData: { topic: string; partitions: { partition: number }[] }[]): Promise<void>
  sendOffsets(args: { consumerGroupId: string; topics: { topic: string; partitions: { partition: number; offset: string }[] }[] }): Promise<void>
  commit(): Promise<void>
  abort(): Promise<void>
}
type EosManagerArgs = {
  logger: unknown
  cluster: KafkajsCluster
  transactionTimeout: number
  transactional: boolean
  transactionalId: string | undefined
}
/** Loaded on first use, as all of kafkajs (client.ts). */
const createEosManager = (args: EosManagerArgs): EosManager =>
  (require('kafkajs/src/producer/eosManager/index.js') as (args: EosManagerArgs) => EosManager)(args)

/**
 * Records of a partition's batch at most this many bytes: the broker refuses a batch over
 * message.max.bytes (1 MB by default).
 */
const BATCH_BYTES = 900 * 1024
/** Batches of one request to a leader at most this many bytes together (the rest go in the next request). */
const REQUEST_BYTES = 8 * 1024 * 1024
const DUPLICATE_SEQUENCE_NUMBER = 46
/** How long the broker waits for the in-sync replicas of acks=all (kafkajs' default). */
const PRODUCE_TIMEOUT_MS = 30_000

export interface ProducerOptions {
  readonly topic: string
  /** Set: a transactional producer of this id (idempotent too). */
  readonly transactionalId?: string
  /** Sequence numbers so that a retried batch is written once (implied by transactionalId). */
  readonly idempotent: boolean
  /** -1: all in-sync replicas acknowledge; 1: the leader. */
  readonly acks: -1 | 1
  readonly compression: Compression
  readonly transactionTimeoutMs: number
  readonly requestTimeoutMs: number
}

export class RecordProducer {
  private readonly cluster: KafkajsCluster
  private readonly eos: EosManager | undefined
  private readonly settings: ProduceSettings
  private partitions = 0
  private roundRobin = 0
  /** Per partition: the batch being filled. */
  private readonly builders: BatchBuilder[] = []
  /** The last send's network part: the next one starts after it. */
  private tail: Promise<unknown> = Promise.resolve()

  private constructor(kafka: Kafka, private readonly options: ProducerOptions) {
    this.cluster = createCluster(kafka)
    const transactional = options.transactionalId !== undefined
    this.eos = transactional || options.idempotent
      ? createEosManager({
        logger: kafka.logger().namespace('Producer'),
        cluster: this.cluster,
        transactionTimeout: options.transactionTimeoutMs,
        transactional,
        transactionalId: options.transactionalId,
      })
      : undefined
    this.settings = { transactionalId: options.transactionalId ?? null, acks: options.acks, timeoutMs: PRODUCE_TIMEOUT_MS,
      requestTimeoutMs: options.requestTimeoutMs }
  }

  /**
   * Connects and reads the topic's partitions; an idempotent or transactional producer gets its
   * producer id and epoch (for a transactional id: completing or aborting what a predecessor left open).
   */
  static async connect(kafka: Kafka, options: ProducerOptions): Promise<RecordProducer> {
    const producer = new RecordProducer(kafka, options)
    try {
      await producer.refresh()
      await producer.eos?.initProducerId()
    } catch (e) {
      await producer.close()
      throw e
    }
    return producer
  }

  private async refresh(): Promise<void> {
    await this.cluster.connect()
    await this.cluster.addMultipleTargetTopics([this.options.topic])
    await this.cluster.refreshMetadata()
    const count = (this.cluster as unknown as { findTopicPartitionMetadata(topic: string): unknown[] }).findTopicPartitionMetadata(this.options.topic)
      .length
    if (count === 0) throw createErrorFromCode(3) // UNKNOWN_TOPIC_OR_PARTITION
    this.partitions = count
  }

  beginTransaction(): void {
    this.eos!.beginTransaction()
  }

  /** Marks `offset` of consumer group `groupId` on `partition` of the topic as part of the transaction. */
  async sendOffsets(groupId: string, partition: number, offset: number): Promise<void> {
    await this.eos!.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: this.options.topic, partitions: [{ partition, offset: String(offset) }] }] })
  }

  async commitTransaction(): Promise<void> {
    await this.eos!.commit()
  }

  async abortTransaction(): Promise<void> {
    await this.eos!.abort()
  }

  /**
   * Produces `records` (in a transaction: the open one) and resolves once the leaders acknowledged
   * them as `acks` says. A record without a partition goes where Kafka's default partitioner puts
   * its key (round robin without one).
   */
  send(records: readonly OutRecord[]): Promise<void> {
    const batches = this.encode(records)
    const sent = this.tail.then(() => this.transmit(batches))
    this.tail = sent.catch(() => undefined)
    return sent
  }

  /** The records as sealed batches per partition, in order; their sequence numbers are taken now. */
  private encode(records: readonly OutRecord[]): Map<number, SealedBatch[]> {
    const out = new Map<number, SealedBatch[]>()
    const now = Date.now()
    for (const r of records) {
      let partition = r[0]
      if (partition === null) partition = r[1] === null ? this.roundRobin++ % this.partitions : keyPartition(r[1], this.partitions)
      const builder = this.builders[partition] ??= new BatchBuilder(partition, BATCH_BYTES)
      if (!builder.add(r[1], r[2], r[3] ?? now, headerPairs(r[4]))) {
        // The batch is full: this record starts the next one.
        this.seal(builder, out)
        builder.add(r[1], r[2], r[3] ?? now, headerPairs(r[4]))
      }
    }
    for (const builder of this.builders) if (builder !== undefined && builder.records > 0) this.seal(builder, out)
    return out
  }

  private seal(builder: BatchBuilder, out: Map<number, SealedBatch[]>): void {
    const topic = this.options.topic
    const eos = this.eos
    const producer: BatchProducer = eos === undefined
      ? { producerId: -1, producerEpoch: -1, transactional: false }
      : { producerId: eos.getProducerId(), producerEpoch: eos.getProducerEpoch(), transactional: this.options.transactionalId !== undefined }
    const count = builder.records
    const sequence = eos === undefined ? -1 : eos.getSequence(topic, builder.partition)
    eos?.updateSequence(topic, builder.partition, count)
    const batch = builder.seal(producer, sequence, this.options.compression)
    let list = out.get(builder.partition)
    if (list === undefined) out.set(builder.partition, list = [])
    list.push(batch)
  }

  /** Sends the batches, the next of each partition once its leader accepted the last; retries passing failures. */
  private async transmit(batches: Map<number, SealedBatch[]>): Promise<void> {
    if (batches.size === 0) return
    const queues = [...batches.values()]
    let failingSince: number | null = null
    let wait = 100
    for (;;) {
      const heads = queues.filter(q => q.length > 0)
      if (heads.length === 0) return
      try {
        if (this.options.transactionalId !== undefined) {
          // Only partitions not in the transaction yet are sent. Retried: right after the last
          // transaction ended, the coordinator answers CONCURRENT_TRANSACTIONS until its markers are written.
          await this.eos!.addPartitionsToTransaction([{ topic: this.options.topic, partitions: [...batches.keys()].map(partition => ({ partition })) }])
        }
        await this.round(heads)
        failingSince = null
        wait = 100
      } catch (e) {
        const now = Date.now()
        failingSince ??= now
        if (!isRetriable(e) || now - failingSince > RETRY_FOR_MS) throw e
        await new Promise(r => setTimeout(r, wait))
        wait = Math.min(wait * 2, 2000)
        await this.refresh().catch(() => undefined)
      }
    }
  }

  /** One request per leader with the first batch of each queue; the accepted ones leave their queue. */
  private round(queues: SealedBatch[][]): Promise<void> {
    return perLeader(this.cluster, queues, q => ({ topic: this.options.topic, partition: q[0]!.partition }), (leader, list) => this.sendTo(leader, list))
  }

  private async sendTo(leader: string, queues: SealedBatch[][]): Promise<void> {
    const broker = await this.cluster.findBroker({ nodeId: leader })
    const batches: SealedBatch[] = []
    let bytes = 0
    for (const q of queues) {
      if (batches.length > 0 && bytes + q[0]!.bytes.length > REQUEST_BYTES) break
      batches.push(q[0]!)
      bytes += q[0]!.bytes.length
    }
    let results
    try {
      results = await produce(broker, this.options.topic, batches, this.settings)
    } catch (e) {
      // As kafkajs' brokers do: a closed connection is dropped, so the next request opens a new one.
      if ((e as { name?: string }).name === 'KafkaJSConnectionClosedError') await broker.disconnect().catch(() => undefined)
      throw e
    }
    let failure: unknown = null
    for (const result of results) {
      const q = queues.find(q => q[0]?.partition === result.partition)
      if (q === undefined) continue
      // A duplicate: an earlier attempt of this batch was written, though its answer was lost.
      if (result.errorCode === 0 || result.errorCode === DUPLICATE_SEQUENCE_NUMBER) q.shift()
      else failure ??= createErrorFromCode(result.errorCode)
    }
    if (failure !== null) throw failure
  }

  async close(): Promise<void> {
    await this.tail
    await this.cluster.disconnect().catch(() => undefined)
  }
}
