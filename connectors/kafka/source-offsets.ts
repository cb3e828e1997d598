// Where each partition of a Kafka source starts and ends, asked of the broker when the reader
// opens: the startup and bounded modes turned into offsets (the next offset to read, and the
// offset to stop before), and the partitions a restored checkpoint resumes.
import type { Admin } from 'kafkajs'
import { WeirError } from '../../common/errors.js'
import type { SplitPosition } from '../api.js'
import type { BoundedMode, KafkaSourceConfig, OffsetSpec, StartupMode } from './source-options.js'

/** A partition of one of the source's topics: a split. */
export interface TopicPartition {
  readonly topic: string
  readonly partition: number
}

/**
 * A partition's position after a chunk: the next offset to read, and (bounded sources) the offset
 * it stops before, fixed when the job first started so a restore ends where the first run would.
 *
 * @example { topic: 'clicks', partition: 2, offset: 1830, stop: 5000 }
 */
export interface PartitionPosition {
  readonly topic: string
  readonly partition: number
  readonly offset: number
  readonly stop: number | null
}

interface Bounds {
  readonly low: number
  readonly high: number
}

/** The partitions of `topics`, in topic then partition order; a missing topic is an error. */
export async function listPartitions(admin: Admin, topics: readonly string[], table: string): Promise<TopicPartition[]> {
  const existing = new Set(await admin.listTopics())
  const missing = topics.filter(t => !existing.has(t))
  if (missing.length > 0) {
    throw WeirError.connector(
      `table '${table}' reads topic${missing.length > 1 ? 's' : ''} ${missing.map(t => `'${t}'`).join(', ')}, which the broker does not have`,
      {
        help: `create the topic first (Weir does not create the topics it reads), or fix the table's 'topic' option`,
      },
    )
  }
  const { topics: meta } = await admin.fetchTopicMetadata({ topics: [...topics] })
  const result: TopicPartition[] = []
  for (const topic of topics) {
    const partitions = meta.find(m => m.name === topic)!.partitions.map(p => p.partitionId).sort((a, b) => a - b)
    for (const partition of partitions) result.push({ topic, partition })
  }
  return result
}

/** Start and stop offsets per split, from the modes (a fresh start) or the checkpoint (a restore). */
export async function resolvePositions(
  admin: Admin,
  splits: readonly TopicPartition[],
  config: KafkaSourceConfig,
  restored: readonly (SplitPosition | null)[] | undefined,
  table: string,
): Promise<PartitionPosition[]> {
  const bounds = new Map<string, Bounds>()
  for (const topic of new Set(splits.map(s => s.topic))) {
    for (const p of await admin.fetchTopicOffsets(topic)) bounds.set(key({ topic, partition: p.partition }), { low: Number(p.low), high: Number(p.high) })
  }
  const byPartition = new Map<string, PartitionPosition>()
  /** The split index each partition had in the checkpoint. */
  const restoredIndex = new Map<string, number>()
  for (const [i, p] of (restored ?? []).entries()) {
    if (p === null || p === undefined) continue
    const position = asPosition(p, i, table)
    byPartition.set(key(position), position)
    restoredIndex.set(key(position), i)
  }
  const starts = restored === undefined ? await offsetsFor(admin, splits, config.startup, bounds, config, table, 'start') : null
  const stops = config.bounded.mode === 'unbounded' ? null : await offsetsFor(admin, splits, config.bounded, bounds, config, table, 'stop')
  const positions = splits.map((s, i) => {
    const was = byPartition.get(key(s))
    // Messages the broker deleted since (retention) are gone: resume at the first it still has.
    if (was !== undefined) return { ...s, offset: Math.max(was.offset, bounds.get(key(s))!.low), stop: was.stop }
    // Not in the checkpoint: the partition was added since; read it from its start, as Flink does.
    const offset = starts !== null ? starts[i]! : bounds.get(key(s))!.low
    return { ...s, offset, stop: stops === null ? null : stops[i]! }
  })
  // The checkpoint's splits keep their indexes (partitions found while running came after the
  // listed ones), so what the runtime restores per index (each split's watermark) stays theirs.
  const rank = (p: TopicPartition): number => restoredIndex.get(key(p)) ?? Number.MAX_SAFE_INTEGER
  return positions.map((p, i) => ({ p, i })).sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i).map(x => x.p)
}

export function key(tp: TopicPartition): string {
  return `${tp.topic}:${tp.partition}`
}

async function offsetsFor(
  admin: Admin,
  splits: readonly TopicPartition[],
  spec: OffsetSpec<StartupMode | BoundedMode>,
  bounds: ReadonlyMap<string, Bounds>,
  config: KafkaSourceConfig,
  table: string,
  what: 'start' | 'stop',
): Promise<number[]> {
  const b = (s: TopicPartition): Bounds => bounds.get(key(s))!
  switch (spec.mode) {
    case 'earliest-offset':
      return splits.map(s => b(s).low)
    case 'latest-offset':
      return splits.map(s => b(s).high)
    case 'timestamp': {
      // The first offset whose record's timestamp is at or after it; the end when there is none.
      const byTopic = new Map<string, Map<number, number>>()
      for (const topic of new Set(splits.map(s => s.topic))) {
        const found = await admin.fetchTopicOffsetsByTimestamp(topic, spec.timestamp!)
        byTopic.set(topic, new Map(found.map(f => [f.partition, Number(f.offset)])))
      }
      return splits.map(s => {
        const o = byTopic.get(s.topic)!.get(s.partition)
        return o === undefined || o < 0 ? b(s).high : o
      })
    }
    case 'specific-offsets':
      // Flink's: a partition not listed starts from the group's offsets (or the reset policy);
      // Weir keeps it simpler and exact: not listed means from the beginning (start) or no end (stop).
      return splits.map(s => {
        const o = spec.offsets!.get(s.partition)
        if (o === undefined) return what === 'start' ? b(s).low : Number.MAX_SAFE_INTEGER
        return Math.min(Math.max(o, b(s).low), what === 'start' ? b(s).high : Number.MAX_SAFE_INTEGER)
      })
    case 'group-offsets': {
      const groupId = config.groupId!
      const committed = new Map<string, number>()
      for (const topic of new Set(splits.map(s => s.topic))) {
        const [t] = await admin.fetchOffsets({ groupId, topics: [topic] })
        for (const p of t?.partitions ?? []) committed.set(key({ topic, partition: p.partition }), Number(p.offset))
      }
      return splits.map(s => {
        const o = committed.get(key(s)) ?? -1
        // A committed offset the broker no longer has (deleted by retention) starts at its first message.
        if (o >= 0) return Math.min(Math.max(o, b(s).low), what === 'start' ? b(s).high : Number.MAX_SAFE_INTEGER)
        if (config.offsetReset === 'earliest') return b(s).low
        if (config.offsetReset === 'latest') return b(s).high
        throw WeirError.connector(
          `table '${table}': consumer group '${groupId}' has no committed offset for partition ${s.partition} of topic '${s.topic}' (to ${what} at)`,
          { help: `set 'properties.auto.offset.reset' = 'earliest' or 'latest' to say where such partitions ${what}, or choose another mode` },
        )
      })
    }
    case 'unbounded':
      return splits.map(() => Number.MAX_SAFE_INTEGER)
  }
}

function asPosition(p: SplitPosition, split: number, table: string): PartitionPosition {
  const o = p as Partial<Record<keyof PartitionPosition, unknown>> | null
  const count = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
  if (typeof o !== 'object' || o === null || typeof o.topic !== 'string' || !count(o.partition) || !count(o.offset) || !(o.stop === null || count(o.stop))) {
    throw WeirError.checkpoint(`the checkpoint holds an invalid position for split ${split} of table '${table}': ${JSON.stringify(p)}`, {
      help: `a Kafka source's position is { topic, partition, offset, stop }; was the checkpoint taken with another connector for '${table}'?`,
    })
  }
  return o as PartitionPosition
}
