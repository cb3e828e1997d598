// The Kafka sink's writers, one per delivery guarantee.
//
// exactly-once: rows written between two checkpoints are kept (as encoded messages; upsert-kafka's
// as rows compacted by key, compacting-buffer.ts) until barrier n reaches the sink; prepareCommit(n)
// seals them into checkpoint n (as bytes beside its manifest, see sealed-messages.ts), and commit(n),
// once n is complete, produces them in ONE Kafka transaction that also moves the sink's marker to n (see
// transactions.ts). Nothing is produced before its checkpoint completes, so no transaction stays open
// across a crash (kafkajs cannot resume one); on restore, the sealed output of the restored checkpoint
// is produced again only when the marker is below it. A read_committed consumer sees every row once.
//
// at-least-once: messages are produced as they come, and a checkpoint waits until the broker
// acknowledged all of them (acks=all). none: produced as they come (acks=1), nobody waits.
import type { Kafka } from 'kafkajs'
import { WeirError } from '../../../common/errors.js'
import type { Batch } from '../../../core/batch.js'
import { CommitWithData, type SinkContext, type SinkWriter } from '../../api.js'
import { CompactingBuffer } from './compacting-buffer.js'
import { MessageEncoder, type Message } from './messages.js'
import { decodeSealedMessages, encodeSealedMessages } from './sealed-messages.js'
import type { DeliveryGuarantee, KafkaSinkConfig } from './options.js'
import { retrying } from '../retry.js'
import type { RecordProducer } from '../produce/producer.js'
import { kafkaSinkError, streamingProducer, TransactionalProducer } from './transactions.js'

/**
 * What prepareCommit(n) stores in checkpoint n's manifest: n, and how many messages were sealed for
 * n and for earlier checkpoints whose commit has not happened yet; the messages themselves, in that
 * order, are the commit's data (sealed-messages.ts).
 *
 * @example { checkpoint: 4, sealed: [{ checkpoint: 4, messages: 812 }] }
 */
export interface KafkaSinkCommit {
  readonly checkpoint: number
  readonly sealed: readonly { readonly checkpoint: number; readonly messages: number }[]
}

/**
 * The restored checkpoint and, per checkpoint, its sealed messages: what a restore produces unless
 * the marker says it did. Also the form in which earlier versions kept the messages in the manifest,
 * as JSON, which still restores.
 */
interface RestoredOutput {
  readonly checkpoint: number
  readonly pending: readonly { readonly checkpoint: number; readonly messages: readonly Message[] }[]
}

function restoredOf(ctx: SinkContext): RestoredOutput {
  const r = ctx.restoredCommit as Partial<KafkaSinkCommit & RestoredOutput> | null
  const invalid = (): WeirError =>
    WeirError.checkpoint(`the checkpoint holds an invalid commit for the Kafka sink of table '${ctx.table}'`, {
      help:
        `a Kafka sink commits { checkpoint, sealed: [{ checkpoint, messages }] } with its messages beside it; was the checkpoint taken with another connector for '${ctx.table}'?`,
    })
  if (typeof r !== 'object' || r === null || typeof r.checkpoint !== 'number') throw invalid()
  if (Array.isArray(r.pending) && r.pending.every(p => typeof p?.checkpoint === 'number' && Array.isArray(p.messages))) return r as RestoredOutput
  if (!Array.isArray(r.sealed) || !r.sealed.every(s => typeof s?.checkpoint === 'number' && Number.isInteger(s.messages) && s.messages >= 0)) throw invalid()
  const total = r.sealed.reduce((n, s) => n + s.messages, 0)
  const messages = ctx.restoredData === undefined ? [] : decodeSealedMessages(ctx.restoredData, `checkpoint ${r.checkpoint}`)
  if (messages.length !== total) {
    throw WeirError.checkpoint(
      `checkpoint ${r.checkpoint} holds ${messages.length} sealed messages for the Kafka sink of table '${ctx.table}', but its manifest counts ${total}`,
      {
        help: 'restore from another checkpoint',
      },
    )
  }
  let at = 0
  return { checkpoint: r.checkpoint, pending: r.sealed.map(s => ({ checkpoint: s.checkpoint, messages: messages.slice(at, at += s.messages) })) }
}

export class ExactlyOnceKafkaWriter implements SinkWriter {
  /** Messages since the last seal; upsert-kafka compacting by key keeps rows instead (compacted). */
  private buffer: Message[] = []
  private readonly compacting: CompactingBuffer | null
  /** Rows given since the last seal: the job compares what was committed with rows, not messages (upsert drops -U, and compacts by key). */
  private bufferedRows = 0
  /** Sealed and not yet produced: the messages, and the same as bytes for the checkpoints (encoded once, though a late commit puts them in several). */
  private sealed: { checkpoint: number; messages: Message[]; data: Buffer; rows: number }[] = []
  private committed = 0

  private constructor(private readonly ctx: SinkContext, private readonly config: KafkaSinkConfig, private readonly encoder: MessageEncoder,
    private readonly producer: TransactionalProducer)
  {
    this.compacting = config.compactByKey ? new CompactingBuffer(encoder) : null
  }

  /**
   * Connects, then recovers: produces what the restored checkpoint sealed unless the marker says it
   * is visible already, and sets the marker to the restored checkpoint (0 on a fresh start), so that
   * this run's checkpoints, whatever their ids, are compared with what this run produced.
   */
  static async create(ctx: SinkContext, config: KafkaSinkConfig, kafka: Kafka, encoder: MessageEncoder): Promise<ExactlyOnceKafkaWriter> {
    const producer = new TransactionalProducer(kafka, config, ctx.jobName, ctx.operatorId)
    try {
      await producer.connect()
      const marker = await producer.marker()
      const restored = ctx.restoredCommit === undefined || ctx.restoredCommit === null ? undefined : restoredOf(ctx)
      const target = restored?.checkpoint ?? 0
      const due = (restored?.pending ?? []).filter(p => p.checkpoint > marker).flatMap(p => p.messages)
      if (due.length > 0 || marker !== target) await producer.produce(due, target)
    } catch (e) {
      await producer.close()
      throw kafkaSinkError(e, ctx.table, config, 'recovering its transactions')
    }
    return new ExactlyOnceKafkaWriter(ctx, config, encoder, producer)
  }

  write(batch: Batch): void {
    if (this.compacting !== null) this.compacting.add(batch)
    else this.encoder.encode(batch, this.buffer)
    this.bufferedRows += batch.rows.length
  }

  committedRows(): number {
    return this.committed
  }

  async finish(): Promise<void> {}

  async prepareCommit(checkpointId: number): Promise<KafkaSinkCommit | CommitWithData> {
    if (this.compacting !== null && this.compacting.size > 0) this.buffer = this.compacting.take()
    if (this.buffer.length > 0) {
      const messages = this.buffer
      this.sealed.push({ checkpoint: checkpointId, messages, data: encodeSealedMessages(messages), rows: this.bufferedRows })
      this.buffer = []
      this.bufferedRows = 0
    }
    const commit: KafkaSinkCommit = { checkpoint: checkpointId, sealed: this.sealed.map(s => ({ checkpoint: s.checkpoint, messages: s.messages.length })) }
    if (this.sealed.length === 0) return commit
    return new CommitWithData(commit, this.sealed.length === 1 ? this.sealed[0]!.data : Buffer.concat(this.sealed.map(s => s.data)))
  }

  async commit(checkpointId: number): Promise<void> {
    const due = this.sealed.filter(s => s.checkpoint <= checkpointId)
    if (due.length === 0) return
    try {
      await this.producer.produce(due.flatMap(s => s.messages), checkpointId)
    } catch (e) {
      throw kafkaSinkError(e, this.ctx.table, this.config, `committing checkpoint ${checkpointId}'s transaction`)
    }
    for (const s of due) this.committed += s.rows
    this.sealed = this.sealed.filter(s => s.checkpoint > checkpointId)
  }

  async close(): Promise<void> {
    await this.producer.close()
  }
}

/** At most this many produce requests in flight before write() waits (at-least-once and none). */
const MAX_IN_FLIGHT = 8

export class StreamingKafkaWriter implements SinkWriter {
  private readonly inFlight = new Set<Promise<void>>()
  private failure: unknown
  private sent = 0

  private constructor(private readonly ctx: SinkContext, private readonly config: KafkaSinkConfig, private readonly encoder: MessageEncoder,
    private readonly producer: RecordProducer, private readonly guarantee: DeliveryGuarantee)
  {}

  static async create(ctx: SinkContext, config: KafkaSinkConfig, kafka: Kafka, encoder: MessageEncoder,
    guarantee: DeliveryGuarantee): Promise<StreamingKafkaWriter>
  {
    let producer: RecordProducer
    try {
      producer = await retrying(() => streamingProducer(kafka, config, guarantee === 'at-least-once' ? 'at-least-once' : 'none'))
    } catch (e) {
      throw kafkaSinkError(e, ctx.table, config, 'connecting')
    }
    return new StreamingKafkaWriter(ctx, config, encoder, producer, guarantee)
  }

  async write(batch: Batch): Promise<void> {
    this.check()
    const messages: Message[] = []
    this.encoder.encode(batch, messages)
    // Rows, not messages, are what the job compares with the rows it gave (upsert drops -U).
    const rows = batch.rows.length
    if (messages.length === 0) {
      this.sent += rows
      return
    }
    const p = this.producer.send(messages).then(
      () => {
        this.sent += rows
      },
      (e: unknown) => {
        this.failure ??= e
      },
    ).finally(() => this.inFlight.delete(p))
    this.inFlight.add(p)
    while (this.inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.inFlight)
  }

  private check(): void {
    if (this.failure !== undefined) throw kafkaSinkError(this.failure, this.ctx.table, this.config, 'producing')
  }

  private async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight])
    this.check()
  }

  committedRows(): number {
    return this.sent
  }

  async finish(): Promise<void> {
    await this.flush()
  }

  /** at-least-once: checkpoint n completes only once everything before its barrier is acknowledged. none: nothing waits. */
  async prepareCommit(): Promise<undefined> {
    if (this.guarantee === 'at-least-once') await this.flush()
    return undefined
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight])
    await this.producer.close().catch(() => undefined)
  }
}
