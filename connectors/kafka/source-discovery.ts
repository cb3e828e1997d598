// Which partitions a Kafka source reads: those of the topics in 'topic', or of every topic whose
// name matches 'topic-pattern'; and, while an unbounded job runs, partitions added since (a topic
// grown, or a new topic matching the pattern), looked for every 'scan.topic-partition-discovery.interval'.
// A partition found while running is read from its earliest offset, as in Flink.
import type { Admin } from 'kafkajs'
import { key, listPartitions, type PartitionPosition, type TopicPartition } from './source-offsets.js'
import type { KafkaSourceConfig } from './source-options.js'

/** The topics the source reads now: 'topic' as listed, or those matching 'topic-pattern' (internal topics aside), sorted. */
export async function topicsToRead(admin: Admin, config: KafkaSourceConfig): Promise<string[]> {
  const pattern = config.topicPattern
  if (pattern === null) return [...config.topics]
  // Kafka's internal topics ('__consumer_offsets', '__transaction_state') are not listed to clients that ask for user topics.
  return (await admin.listTopics()).filter(t => !t.startsWith('__') && pattern.test(t)).sort()
}

/** The partitions of the topics the source reads now, in topic then partition order. */
export async function listSplits(admin: Admin, config: KafkaSourceConfig, table: string): Promise<TopicPartition[]> {
  const topics = await topicsToRead(admin, config)
  // No topic matches the pattern (yet): asking for the metadata of no topics would return all of them.
  return topics.length === 0 ? [] : listPartitions(admin, topics, table)
}

/**
 * Looks for new partitions every interval and hands them on with their earliest offset. A broker
 * that does not answer is asked again at the next interval (reading goes on meanwhile).
 */
export class PartitionDiscovery {
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  /** The look in progress (close() waits for it, so no client is used after its disconnect). */
  private running: Promise<void> = Promise.resolve()

  constructor(
    private readonly admin: Admin,
    private readonly config: KafkaSourceConfig,
    private readonly table: string,
    private readonly known: (tp: TopicPartition) => boolean,
    private readonly found: (added: PartitionPosition[]) => Promise<void>,
  ) {}

  start(): void {
    if (this.config.discoveryIntervalMs <= 0 || this.stopped) return
    this.timer = setTimeout(() => {
      this.running = this.look().catch(() => undefined).then(() => this.start())
    }, this.config.discoveryIntervalMs)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  private async look(): Promise<void> {
    const fresh = (await listSplits(this.admin, this.config, this.table)).filter(tp => !this.known(tp))
    if (fresh.length === 0 || this.stopped) return
    const low = new Map<string, number>()
    for (const topic of new Set(fresh.map(s => s.topic))) {
      for (const p of await this.admin.fetchTopicOffsets(topic)) low.set(key({ topic, partition: p.partition }), Number(p.low))
    }
    if (this.stopped) return
    await this.found(fresh.map(tp => ({ ...tp, offset: low.get(key(tp)) ?? 0, stop: null })))
  }
}
