// Committing a Kafka source's positions to the user's consumer group ('properties.group.id') after
// each completed checkpoint, as Flink does ('commit.offsets.on.checkpoint'): only so monitoring tools
// see the group's lag, and so 'group-offsets' can start a new job there. Positions live in checkpoints;
// a failed commit is counted, never fails the job, and the next checkpoint's commit covers it.
//
// kafkajs commits a group's offsets only as a member of it (consumer.commitOffsets), or through
// admin.setOffsets, which joins the group too. A transactional producer's sendOffsets commits them
// without joining (TxnOffsetCommit, as Kafka's own exactly-once pipelines do), so the group keeps
// no Weir member and a consumer of it may join at any time. Commits run in the background, one at a
// time; a checkpoint completing while one runs is skipped (the next commit carries its offsets on).
import { randomUUID } from 'node:crypto'
import type { Kafka, Producer } from 'kafkajs'
import type { SplitPosition } from '../api.js'
import { retrying } from './retry.js'
import type { PartitionPosition } from './source-offsets.js'

export class OffsetCommitter {
  private producer: Producer | null = null
  private running: Promise<void> | null = null
  private closed = false
  committed = 0
  failed = 0

  constructor(private readonly kafka: Kafka, private readonly groupId: string, private readonly table: string) {}

  /** Starts committing `positions` (a checkpoint's, per split) unless a commit is still running. */
  commit(positions: readonly (SplitPosition | null)[]): void {
    if (this.running !== null || this.closed) return
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
    this.running = this.send(topics).then(() => void this.committed++, () => void this.failed++).finally(() => (this.running = null))
  }

  private async send(topics: { topic: string; partitions: { partition: number; offset: string }[] }[]): Promise<void> {
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

  /** Waits for the commit in progress (the last checkpoint's offsets reach the group), then disconnects. */
  async close(): Promise<void> {
    this.closed = true
    await this.running
    await this.producer?.disconnect().catch(() => undefined)
  }
}
