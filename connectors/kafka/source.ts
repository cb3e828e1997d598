// The Kafka source: each partition of its topics is a split, and a split's position is the next
// offset to read (stored in checkpoints; a restore resumes there).
//
// kafkajs has no manual assign(), only group subscription, so each reader runs a consumer in a
// consumer group of its own (a fresh id, deleted on close): as the group's only member it is
// assigned every partition, and it seeks each to the offset the reader resolved (startup mode or
// checkpoint) — again after any rebalance. Messages are also filtered by offset (those before a
// partition's next offset are dropped), so a fetch that raced a seek, or a rebalance that rewound
// a partition, repeats nothing. Offsets are never committed to that group: positions live in
// checkpoints. Flow control: the reader buffers what kafkajs delivers; while the buffer is full,
// eachBatch waits (heartbeating, so the group keeps its member), which holds kafkajs' fetching back
// (pausing and resuming partitions instead costs a fetch round trip each time: 2–3× slower here).
// Partitions found while running (source-discovery.ts) become new splits, and the consumer restarts
// to fetch them; idle partitions are reported (source-idleness.ts); completed checkpoints' offsets
// go to the user's group (source-commit.ts).
import { randomUUID } from 'node:crypto'
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs'
import { WeirError } from '../../common/errors.js'
import type { Row } from '../../core/batch.js'
import type { SourceChunk, SourceContext, SourceReader, SplitPosition } from '../api.js'
import { Changes, ChunkRows, RecordError, rowsOf, SKIP, type RecordDecoder } from '../filesystem/decoder.js'
import { clientConfig, kafkaClient, kafkaError, type KafkaAction } from './client.js'
import { isRetriable, RETRY_FOR_MS } from './retry.js'
import { OffsetCommitter } from './source-commit.js'
import { listSplits, PartitionDiscovery } from './source-discovery.js'
import { IdleSplits } from './source-idleness.js'
import { key, resolvePositions, type PartitionPosition, type TopicPartition } from './source-offsets.js'
import { resolveKafkaSourceOptions, type KafkaSourceConfig } from './source-options.js'
import { decodeText, decoderFor, KeyError, RowAssembler } from './source-rows.js'

/** What kafkajs delivered for one partition and the reader has not handed on yet. */
interface Fetched {
  readonly split: number
  readonly messages: KafkaMessage[]
  /** Index of the next message to hand on. */
  at: number
  /** The offset after the fetched range, control records and aborted messages included. */
  readonly through: number
}

/** Messages buffered before the reader pauses fetching. */
const BUFFER_LIMIT = 50_000

export async function createKafkaSource(ctx: SourceContext): Promise<SourceReader> {
  const config = resolveKafkaSourceOptions(ctx.options, physicalSchema(ctx))
  const brokers = clientConfig(ctx.options, ctx.table).brokers as string[]
  const what = config.topicPattern !== null
    ? `topics matching '${ctx.options['topic-pattern']}'`
    : `topic${config.topics.length > 1 ? 's' : ''} '${config.topics.join(';')}'`
  const action: KafkaAction = { table: ctx.table, doing: `read ${what}`, brokers }
  const kafka = kafkaClient(ctx.options, ctx.table)
  const admin = kafka.admin()
  try {
    await admin.connect()
    const splits = await listSplits(admin, config, ctx.table)
    const positions = await resolvePositions(admin, splits, config, ctx.restoredPositions, ctx.table)
    const groupId = `weir-source-${ctx.table}-${randomUUID()}`
    let reader: KafkaSourceReader | undefined
    const consumer = kafka.consumer({
      groupId,
      allowAutoTopicCreation: false,
      readUncommitted: !config.readCommitted,
      // kafkajs restarts a consumer after a retriable crash (a broker restarting) on a timer of its
      // own, which a disconnect racing the crash does not cancel: a closed reader's consumer would
      // rejoin its group and keep the process alive. It restarts only while the reader is open.
      retry: { retries: 5, restartOnFailure: async () => reader?.isClosed !== true },
      ...consumerSettings(ctx),
    })
    reader = new KafkaSourceReader(ctx, config, positions, consumer, admin, groupId, action, kafka)
    await reader.start()
    return reader
  } catch (e) {
    await admin.disconnect().catch(() => {})
    throw kafkaError(e, action)
  }
}

/** The schema's columns that come from the message value (the others are metadata). */
function physicalSchema(ctx: SourceContext): SourceContext['schema'] {
  return ctx.schema.filter((_, i) => (ctx.metadata?.[i] ?? null) === null)
}

function consumerSettings(ctx: SourceContext): Record<string, number> {
  const o = ctx.options
  const map: Record<string, string> = {
    'properties.session.timeout.ms': 'sessionTimeout',
    'properties.heartbeat.interval.ms': 'heartbeatInterval',
    'properties.fetch.min.bytes': 'minBytes',
    'properties.fetch.max.bytes': 'maxBytes',
    'properties.fetch.max.wait.ms': 'maxWaitTimeInMs',
    'properties.max.partition.fetch.bytes': 'maxBytesPerPartition',
  }
  // Kafka's own default wait (kafkajs waits 5 s): a bounded job closes sooner after its last fetch.
  const settings: Record<string, number> = { maxWaitTimeInMs: 500 }
  for (const [k, name] of Object.entries(map)) if (o[k] !== undefined) settings[name] = Number(o[k])
  return settings
}

class KafkaSourceReader implements SourceReader {
  readonly concurrentSplits = true
  private readonly splits: TopicPartition[]
  private readonly splitOf = new Map<string, number>()
  /** Per split: the next offset to hand on. */
  private readonly nextOffset: number[]
  private readonly stop: (number | null)[]
  private readonly ended: boolean[]
  /** Empty chunks giving each split's start position (and the end of those that have nothing to read), before any rows. */
  private readonly announce: SourceChunk[] = []
  private readonly buffer: Fetched[] = []
  private buffered = 0
  /** eachBatch calls waiting for the buffer to drain. */
  private spaceWaiters: (() => void)[] = []
  private wake: (() => void) | null = null
  private failure: unknown = null
  private closed = false
  private skipped = 0
  private rowsRead = 0
  private readonly decoder: RecordDecoder | null
  private readonly notNull: readonly number[]
  /** Builds rows with key or metadata columns; null when a row is the value's columns as they are. */
  private readonly assembler: RowAssembler | null
  private readonly idleness: IdleSplits | null
  private readonly discovery: PartitionDiscovery
  private readonly committer: OffsetCommitter | null
  /** The topics the consumer is subscribed to. */
  private readonly subscribed = new Set<string>()
  private consumerRunning = false
  /** When kafkajs last gave up on the consumer with an error of a broker restarting (null: it has joined since). */
  private outageSince: number | null = null

  constructor(
    private readonly ctx: SourceContext,
    private readonly config: KafkaSourceConfig,
    positions: readonly PartitionPosition[],
    private readonly consumer: Consumer,
    private readonly admin: Admin,
    private readonly groupId: string,
    private readonly action: KafkaAction,
    kafka: Kafka,
  ) {
    this.splits = []
    this.nextOffset = []
    this.stop = []
    this.ended = []
    this.idleness = config.idleTimeoutMs > 0 ? new IdleSplits(config.idleTimeoutMs) : null
    this.addSplits(positions)
    const physical = physicalSchema(ctx)
    this.decoder = decoderFor(config.format, config.layout.valueColumns.map(c => physical[c]!), config)
    this.notNull = ctx.schema.flatMap((f, i) => (f.type.nullable || (ctx.metadata?.[i] ?? null) !== null ? [] : [i]))
    this.assembler = RowAssembler.create(ctx, config)
    this.discovery = new PartitionDiscovery(admin, config, ctx.table, tp => this.splitOf.has(key(tp)), added => this.discovered(added))
    this.committer = config.commitOffsets ? new OffsetCommitter(kafka, config.groupId!, ctx.table) : null
    ctx.signal.addEventListener('abort', () => this.wakeUp(), { once: true })
  }

  get splitCount(): number {
    return this.splits.length
  }

  /** New splits at `positions`, each announced by an empty chunk before any rows. */
  private addSplits(positions: readonly PartitionPosition[]): void {
    const now = Date.now()
    for (const p of positions) {
      const split = this.splits.length
      this.splits.push({ topic: p.topic, partition: p.partition })
      this.splitOf.set(key(p), split)
      this.nextOffset.push(p.offset)
      this.stop.push(p.stop)
      this.ended.push(p.stop !== null && p.offset >= p.stop)
      this.idleness?.add(now)
      // Given at once, so a checkpoint taken before a split's first rows resumes it where this run
      // started (a fresh 'latest-offset' start would otherwise resolve to a later offset).
      this.announce.push({ rows: [], split, position: p, ...(this.ended[split] ? { splitEnded: true } : {}) })
    }
  }

  /** Partitions found while running: read from their earliest offset, by a consumer restarted to subscribe to them. */
  private async discovered(added: PartitionPosition[]): Promise<void> {
    if (this.closed) return
    this.addSplits(added)
    this.wakeUp()
    try {
      if (this.consumerRunning) await this.consumer.stop()
      this.consumerRunning = false
      if (!this.closed) await this.runConsumer()
    } catch (e) {
      // The consumer may be stopped: fail the job (it restarts from its checkpoint) rather than stall.
      this.fail(e)
    }
  }

  /** Every split ended: a source that may still find partitions (unbounded) has not. */
  private allEnded(): boolean {
    return this.ended.every(e => e) && (this.splits.length > 0 || this.config.bounded.mode !== 'unbounded')
  }

  async start(): Promise<void> {
    if (this.allEnded()) return
    const consumer = this.consumer
    await consumer.connect()
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.outageSince = null
      this.seekAll()
    })
    // kafkajs restarts the consumer after a retriable error and seeks again on the new join. Some
    // errors of a broker restarting it calls final (no broker answered the group coordinator lookup):
    // after those the reader restarts it, for as long as the sinks retry; any other crash fails the job.
    consumer.on(consumer.events.CRASH, e => {
      if (e.payload.restart || this.closed) return
      const now = Date.now()
      this.outageSince ??= now
      if (!isRetriable(e.payload.error) || now - this.outageSince > RETRY_FOR_MS) this.fail(e.payload.error)
      else setTimeout(() => void this.restartConsumer(), 1_000)
    })
    // A batch of only control records or aborted messages is not given to eachBatch; its end still
    // moves the partition on (a bounded read of a transactional topic must reach its stop offset).
    consumer.on(consumer.events.START_BATCH_PROCESS, e => {
      const p = e.payload as { topic: string; partition: number; batchSize: number; lastOffset: string }
      if (p.batchSize === 0) this.deliver(p.topic, p.partition, [], Number(p.lastOffset) + 1)
    })
    await this.runConsumer()
    this.discovery.start()
  }

  /** Runs the consumer again after kafkajs gave up on it (it disconnected it; a failed start crashes it again). */
  private async restartConsumer(): Promise<void> {
    if (this.closed) return
    try {
      this.consumerRunning = false
      await this.consumer.connect()
      await this.runConsumer()
    } catch (e) {
      if (isRetriable(e) && Date.now() - (this.outageSince ?? Date.now()) <= RETRY_FOR_MS) setTimeout(() => void this.restartConsumer(), 1_000)
      else this.fail(e)
    }
  }

  /** Subscribes to the topics of every split (none yet: waits for discovery) and runs the consumer. */
  private async runConsumer(): Promise<void> {
    const consumer = this.consumer
    const topics = [...new Set(this.splits.map(s => s.topic))].filter(t => !this.subscribed.has(t))
    // The group is new: where kafkajs starts before its seek applies does not matter (messages
    // before a split's next offset are dropped), as long as it is not after it.
    if (topics.length > 0) await consumer.subscribe({ topics, fromBeginning: true })
    for (const t of topics) this.subscribed.add(t)
    if (this.subscribed.size === 0) return
    this.consumerRunning = true
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }: EachBatchPayload) => {
        // The fetch's end, not its last message's: a commit marker or aborted messages after the last
        // message (a transactional topic's end) are read past too, or a bounded read would wait for
        // them forever (kafkajs fetches on from there and delivers nothing more for them).
        if (batch.messages.length > 0) this.deliver(batch.topic, batch.partition, batch.messages, Number(batch.lastOffset()) + 1)
        while (this.buffered >= BUFFER_LIMIT && !this.closed) {
          await new Promise<void>(resolve => {
            this.spaceWaiters.push(resolve)
            setTimeout(resolve, 2_000)
          })
          await heartbeat()
        }
      },
    })
    this.seekAll()
  }

  /** Seeks every partition still being read to its next offset, and pauses the ended ones. */
  private seekAll(): void {
    try {
      for (const [i, s] of this.splits.entries()) {
        if (!this.ended[i]) this.consumer.seek({ topic: s.topic, partition: s.partition, offset: String(this.nextOffset[i]) })
      }
    } catch {
      // The consumer is between a crash and its restart: the restart's join seeks again.
    }
    this.pausePartitions(this.splits.filter((_, i) => this.ended[i]))
  }

  private deliver(topic: string, partition: number, messages: KafkaMessage[], through: number): void {
    const split = this.splitOf.get(`${topic}:${partition}`)
    if (split === undefined || this.ended[split] || this.closed) return // a partition added after the start is not read
    this.buffer.push({ split, messages, at: 0, through })
    this.buffered += messages.length
    if (messages.length > 0) this.idleness?.active(split, Date.now())
    this.wakeUp()
  }

  private releaseSpace(): void {
    const waiters = this.spaceWaiters
    this.spaceWaiters = []
    for (const w of waiters) w()
  }

  private fail(e: unknown): void {
    this.failure ??= e
    this.wakeUp()
  }

  private wakeUp(): void {
    const w = this.wake
    this.wake = null
    w?.()
  }

  async next(): Promise<SourceChunk | null> {
    for (;;) {
      if (this.ctx.signal.aborted || this.closed) return null
      const announced = this.announce.shift()
      if (announced !== undefined) return announced
      if (this.allEnded()) return null
      if (this.failure !== null) throw kafkaError(this.failure, this.action)
      if (this.idleness !== null) this.reportIdle()
      if (this.announce.length > 0) continue
      const head = this.buffer[0]
      if (head === undefined) {
        await new Promise<void>(resolve => {
          this.wake = resolve
          // An idle partition is reported although nothing arrives.
          const wait = this.idleness?.waitMs(Date.now()) ?? Infinity
          if (wait !== Infinity) setTimeout(() => this.wakeUp(), wait + 1)
        })
        continue
      }
      const chunk = this.take(head)
      if (chunk !== null) return chunk
    }
  }

  /** Queues an empty chunk with `idle` for each partition that has just become idle. */
  private reportIdle(): void {
    const found = this.idleness!.poll(Date.now(), s => {
      if (this.ended[s]) return 'ended'
      return this.buffer.some(f => f.split === s && f.at < f.messages.length) ? 'busy' : 'waiting'
    })
    for (const split of found) {
      const position: PartitionPosition = { ...this.splits[split]!, offset: this.nextOffset[split]!, stop: this.stop[split]! }
      this.announce.push({ rows: [], split, position, idle: true })
    }
  }

  /** Up to batchSize rows of `f`, or null when it held nothing new for its split. */
  private take(f: Fetched): SourceChunk | null {
    const split = f.split
    const stop = this.stop[split] ?? Number.MAX_SAFE_INTEGER
    const out = new ChunkRows()
    const rows = out.rows
    const want = Math.max(1, this.ctx.batchSize)
    const messages = f.messages
    let next = this.nextOffset[split]!
    while (f.at < messages.length && rows.length < want) {
      const m = messages[f.at++]!
      const offset = Number(m.offset)
      if (offset < next) continue // already handed on (a fetch that raced a seek, a rebalance)
      if (offset >= stop) break
      next = offset + 1
      const row = this.decode(m, split, offset)
      if (row !== null) out.add(row)
    }
    const drained = f.at >= messages.length || next >= stop
    if (drained) {
      this.buffer.shift()
      this.buffered -= messages.length
      if (f.through > next && f.through <= stop && f.at >= messages.length) next = f.through
      if (this.buffered < BUFFER_LIMIT / 2) this.releaseSpace()
    }
    if (next === this.nextOffset[split] && rows.length === 0) return null
    this.nextOffset[split] = next
    this.rowsRead += rows.length
    const ended = next >= stop
    if (ended) {
      this.ended[split] = true
      this.pausePartitions([this.splits[split]!])
    }
    const position: PartitionPosition = { ...this.splits[split]!, offset: next, stop: this.stop[split]! }
    const kinds = out.chunkKinds()
    return ended ? { rows, ...kinds, split, position, splitEnded: true } : { rows, ...kinds, split, position }
  }

  /** Stops fetching ended partitions (only to save work: what they deliver is dropped anyway). */
  private pausePartitions(parts: readonly TopicPartition[]): void {
    try {
      for (const p of parts) this.consumer.pause([{ topic: p.topic, partitions: [p.partition] }])
    } catch {
      // Between a crash and its restart: the restart's join pauses them.
    }
  }

  private decode(m: KafkaMessage, split: number, offset: number): Row | Changes | null {
    const value = m.value
    // A message without a value (a tombstone) holds no row, as in Flink's formats.
    if (value === null) return null
    const text = value.toString('utf8')
    let values: Row | Changes | typeof SKIP
    try {
      values = decodeText(this.decoder, text)
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      this.badRecord(e, split, offset, text)
      return null
    }
    if (values === SKIP) return null
    let row = values
    if (this.assembler !== null) {
      try {
        row = this.assembler.build(values, m, this.splits[split]!)
      } catch (e) {
        if (!(e instanceof KeyError)) throw e
        this.badRecord(e.error, split, offset, e.key, 'key')
        return null
      }
    }
    for (const c of this.notNull) {
      if (rowsOf(row).some(r => r[c] === null)) {
        this.badRecord(new RecordError(`column '${this.ctx.schema[c]!.name}' is NOT NULL, but the record has no value for it`), split, offset, text)
        return null
      }
    }
    return row
  }

  /** Fails the job naming the message, or counts it when bad records are skipped (a bad key too: the value format's policy). */
  private badRecord(e: RecordError, split: number, offset: number, text: string, part: 'key' | 'value' = 'value'): void {
    const ignore = this.config.format === 'csv' ? this.config.csv.ignoreParseErrors : this.config.json.ignoreParseErrors
    if (ignore) {
      this.skipped++
      return
    }
    const { topic, partition } = this.splits[split]!
    const where = `topic '${topic}', partition ${partition}, offset ${offset}`
    throw WeirError.execution(`bad record at ${where} (table '${this.ctx.table}'): ${part === 'key' ? 'its key: ' : ''}${e.detail}`, {
      record: { source: `kafka topic '${topic}' partition ${partition}`, offset, record: text.length > 1000 ? text.slice(0, 1000) + '…' : text },
      help: this.decoder === null
        ? (e.help ?? `fix the message's ${part}`)
        : `${e.help === undefined ? '' : `${e.help}; or `}set '${this.decoder.ignoreOption}' = 'true' to skip bad records`,
    })
  }

  metrics(): Readonly<Record<string, number>> {
    const commits: Record<string, number> = this.committer === null
      ? {}
      : { offsetCommits: this.committer.committed, offsetCommitFailures: this.committer.failed }
    return { skippedRecords: this.skipped, rowsRead: this.rowsRead, ...commits }
  }

  checkpointCompleted(_checkpointId: number, positions: readonly (SplitPosition | null)[]): void {
    this.committer?.commit(positions)
  }

  get isClosed(): boolean {
    return this.closed
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.wakeUp()
    this.releaseSpace()
    this.buffer.length = 0
    await this.discovery.stop()
    await this.committer?.close()
    await this.consumer.disconnect().catch(() => {})
    // The group only served this reader: remove it rather than leave it for the broker to expire.
    await this.admin.deleteGroups([this.groupId]).catch(() => {})
    await this.admin.disconnect().catch(() => {})
  }
}
