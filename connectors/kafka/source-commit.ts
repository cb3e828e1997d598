// Committing a Kafka source's positions to the user's consumer group ('properties.group.id') after
// each completed checkpoint, as Flink does ('commit.offsets.on.checkpoint'): only so monitoring tools
// see the group's lag, and so 'group-offsets' can start a new job there. Positions live in checkpoints;
// a failed commit is counted, never fails the job, and the next checkpoint's commit covers it.
//
// kafkajs commits a group's offsets only as a member of it (consumer.commitOffsets), or through
// admin.setOffsets, which joins the group too. A transactional producer's sendOffsets commits them
// without joining (TxnOffsetCommit, as Kafka's own exactly-once pipelines do), so the group keeps
// no Weir member and a consumer of it may join at any time. Commits run in the background, one at a
// time; the positions of checkpoints completing while one runs wait, and only the latest is sent
// after it (it carries every earlier one's offsets on), so the last checkpoint's always is.
import { randomUUID } from 'node:crypto'
import type { Kafka, Producer } from 'kafkajs'
import type { SplitPosition } from '../api.js'
import { retrying } from './retry.js'
import type { PartitionPosition } from './source-offsets.js'

type CommitTopics = { topic: string; partitions: { partition: number; offset: string }[] }[]

export class OffsetCommitter {
  private producer: Producer | null = null
  private running: Promise<void> | null = null
  /** The latest positions that came while a commit was running: sent when it ends. */
  private next: CommitTopics | null = null
  private closed = false
  committed = 0
  failed = 0

  constructor(private readonly kafka: Kafka, private readonly groupId: string, private readonly table: string) {}

  /** Commits `positions` (a checkpoint's, per split) now, or once the commit in progress ends. */
  commit(positions: readonly (SplitPosition | null)[]): void {
    if (this.closed) return
    const byTopic = new Map<string, { partition: number; offset: string }[]>()
    for (const p of positions) {
      const at = p as PartitionPosition | null
      if (at === null || at === undefined) continue
      const list = byTopic.get(at.topic) ?? []
      list.push({ partition: at.partition, offset: String(at.offset) })
      byTopic.set(at.topic, list)
    }
    if (byTopic.size === 0) return
    const topics = [...byTopic].map(([topic, partitions]) => ({ topic, partitions }))
    if (this.running !== null) this.next = topics
    else this.start(topics)
  }

  private start(topics: CommitTopics): void {
    this.running = this.send(topics).then(() => void this.committed++, () => void this.failed++).finally(() => {
      this.running = null
      const next = this.next
      this.next = null
      if (next !== null) this.start(next)
    })
  }

  private async send(topics: CommitTopics): Promise<void> {
    if (this.producer === null) {
      const producer = this.kafka.producer({ transactionalId: `weir-offsets-${this.table}-${randomUUID()}`, idempotent: true, maxInFlightRequests: 1 })
      await producer.connect()
      this.producer = producer
    }
    const tx = await this.producer.transaction()
    try {
      await retrying(() => tx.sendOffsets({ consumerGroupId: this.groupId, topics }))
    } catch (e) {
      await tx.abort().catch(() => undefined)
      throw e
    }
    await tx.commit()
  }

  /** Waits for the commits in progress and waiting (the last checkpoint's offsets reach the group), then disconnects. */
  async close(): Promise<void> {
    this.closed = true
    while (this.running !== null) await this.running
    await this.producer?.disconnect().catch(() => undefined)
  }
}
