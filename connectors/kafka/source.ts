// The Kafka source: each partition of its topics is a split, and a split's position is the next
// offset to read (stored in checkpoints; a restore resumes there).
//
// No consumer group: the reader fetches each partition from its leader itself, from the offset it
// resolved (startup mode or checkpoint), and reads the record batches in place (fetch/). Records
// before a partition's next offset are dropped (a fetch returns whole batches). Flow control: the
// fetcher waits while what it delivered and the reader has not read exceeds a byte limit.
// Partitions found while running (source-discovery.ts) become new splits, fetched from then on;
// idle partitions are reported (source-idleness.ts); completed checkpoints' offsets go to the
// user's group (source-commit.ts).
import type { Admin, IHeaders, Kafka, KafkaMessage } from 'kafkajs'
import { WeirError } from '../../common/errors.js'
import type { Row } from '../../core/batch.js'
import type { SourceChunk, SourceContext, SourceReader, SplitPosition } from '../api.js'
import { Changes, ChunkRows, RecordError, rowsOf, SKIP, type RecordDecoder } from '../filesystem/decoder.js'
import { clientConfig, kafkaClient, kafkaError, type KafkaAction } from './client.js'
import { PartitionFetcher, type FetchedRecords, type FetcherSettings } from './fetch/fetcher.js'
import type { RecordCursor } from './fetch/record-batches.js'
import { owns } from './partition-owner.js'
import { OffsetCommitter } from './source-commit.js'
import { listSplits, PartitionDiscovery } from './source-discovery.js'
import { IdleSplits } from './source-idleness.js'
import { key, resolvePositions, type PartitionPosition, type TopicPartition } from './source-offsets.js'
import { resolveKafkaSourceOptions, type KafkaSourceConfig } from './source-options.js'
import { decodeText, decoderFor, KeyError, RowAssembler } from './source-rows.js'
import { JsonDecoder } from '../filesystem/json-decoder.js'
import { FALLBACK, JsonFieldScanner } from '../filesystem/json-scan.js'

/** Fetched bytes the reader has not read yet beyond which fetching waits. */
const BUFFER_BYTES = 32 * 1024 * 1024

/** Buffer's UTF-8 decoding without toString's argument checks (Node's own method behind it). */
type Utf8Slicing = Buffer & { utf8Slice(start: number, end: number): string }

export async function createKafkaSource(ctx: SourceContext): Promise<SourceReader> {
  const config = resolveKafkaSourceOptions(ctx.options, physicalSchema(ctx))
  const client = clientConfig(ctx.options, ctx.table)
  const brokers = client.brokers as string[]
  const what = config.topicPattern !== null
    ? `topics matching '${ctx.options['topic-pattern']}'`
    : `topic${config.topics.length > 1 ? 's' : ''} '${config.topics.join(';')}'`
  const action: KafkaAction = { table: ctx.table, doing: `read ${what}`, brokers }
  const kafka = kafkaClient(ctx.options, ctx.table)
  const admin = kafka.admin()
  try {
    await admin.connect()
    const splits = (await listSplits(admin, config, ctx.table)).filter(tp => owns(ctx.subtask, tp))
    const positions = await resolvePositions(admin, splits, config, ctx.restoredPositions, ctx.table)
    const settings = fetchSettings(ctx, config.readCommitted, client.requestTimeout ?? 30_000)
    const reader = new KafkaSourceReader(ctx, config, positions, admin, action, kafka, settings)
    reader.start()
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

/**
 * Fetch settings from the table's consumer properties ('properties.session.timeout.ms' and
 * 'properties.heartbeat.interval.ms' are accepted and have nothing to set: the source joins no group).
 */
function fetchSettings(ctx: SourceContext, readCommitted: boolean, requestTimeoutMs: number): FetcherSettings {
  const o = ctx.options
  const num = (k: string, fallback: number): number => (o[k] === undefined ? fallback : Number(o[k]))
  return {
    // Kafka's own default wait (kafkajs waits 5 s): a bounded job closes sooner after its last fetch.
    maxWaitMs: num('properties.fetch.max.wait.ms', 500),
    minBytes: num('properties.fetch.min.bytes', 1),
    maxBytes: num('properties.fetch.max.bytes', 50 * 1024 * 1024),
    partitionMaxBytes: num('properties.max.partition.fetch.bytes', 1024 * 1024),
    readCommitted,
    requestTimeoutMs,
    bufferBytes: BUFFER_BYTES,
  }
}

class KafkaSourceReader implements SourceReader {
  readonly concurrentSplits = true
  /** Where each split started (SourceReader.startPositions). */
  readonly startPositions: PartitionPosition[] = []
  private readonly splits: TopicPartition[]
  private readonly splitOf = new Map<string, number>()
  /** Per split: the next offset to hand on. */
  private readonly nextOffset: number[]
  private readonly stop: (number | null)[]
  private readonly ended: boolean[]
  /** Empty chunks giving each split's start position (and the end of those that have nothing to read), before any rows. */
  private readonly announce: SourceChunk[] = []
  /** Fetched record sets not read to their end yet, oldest first. */
  private readonly buffer: FetchedRecords[] = []
  private wake: (() => void) | null = null
  private failure: unknown = null
  private closed = false
  private skipped = 0
  private rowsRead = 0
  private readonly decoder: RecordDecoder | null
  private readonly notNull: readonly number[]
  /** Reads a 'json' value's read columns from its bytes (null: another format); JsonDecoder takes what it cannot. */
  private readonly scanner: JsonFieldScanner | null
  /** Builds rows with key or metadata columns; null when a row is the value's columns as they are. */
  private readonly assembler: RowAssembler | null
  private readonly idleness: IdleSplits | null
  private readonly discovery: PartitionDiscovery
  private readonly committer: OffsetCommitter | null
  private readonly fetcher: PartitionFetcher

  constructor(
    private readonly ctx: SourceContext,
    private readonly config: KafkaSourceConfig,
    positions: readonly PartitionPosition[],
    private readonly admin: Admin,
    private readonly action: KafkaAction,
    kafka: Kafka,
    settings: FetcherSettings,
  ) {
    this.splits = []
    this.nextOffset = []
    this.stop = []
    this.ended = []
    this.idleness = config.idleTimeoutMs > 0 ? new IdleSplits(config.idleTimeoutMs) : null
    this.fetcher = new PartitionFetcher(kafka, settings, f => this.deliver(f), e => this.fail(e), ctx.table)
    this.addSplits(positions)
    const physical = physicalSchema(ctx)
    this.decoder = decoderFor(config.format, config.layout.valueColumns.map(c => physical[c]!), config)
    this.notNull = ctx.schema.flatMap((f, i) => (f.type.nullable || (ctx.metadata?.[i] ?? null) !== null ? [] : [i]))
    this.scanner = valueScanner(this.decoder, ctx, config)
    this.assembler = RowAssembler.create(ctx, config)
    // Partitions other subtasks own count as known: each is found by the one subtask that owns it.
    this.discovery = new PartitionDiscovery(admin, config, ctx.table, tp => !owns(ctx.subtask, tp) || this.splitOf.has(key(tp)),
      async added => this.discovered(added))
    this.committer = config.commitOffsets ? new OffsetCommitter(kafka, config.groupId!, ctx.table) : null
    ctx.signal.addEventListener('abort', () => this.wakeUp(), { once: true })
  }

  get splitCount(): number {
    return this.splits.length
  }

  /** New splits at `positions`, each announced by an empty chunk before any rows, and fetched unless they have ended. */
  private addSplits(positions: readonly PartitionPosition[]): void {
    const now = Date.now()
    for (const p of positions) {
      const split = this.splits.length
      const tp = { topic: p.topic, partition: p.partition }
      this.splits.push(tp)
      this.splitOf.set(key(p), split)
      this.startPositions.push(p)
      this.nextOffset.push(p.offset)
      this.stop.push(p.stop)
      this.ended.push(p.stop !== null && p.offset >= p.stop)
      this.idleness?.add(now)
      // Given at once, so a checkpoint taken before a split's first rows resumes it where this run
      // started (a fresh 'latest-offset' start would otherwise resolve to a later offset).
      this.announce.push({ rows: [], split, position: p, ...(this.ended[split] ? { splitEnded: true } : {}) })
      if (!this.ended[split]) this.fetcher.add(split, tp, p.offset, p.stop)
    }
  }

  /** Partitions found while running: read from their earliest offset. */
  private discovered(added: PartitionPosition[]): void {
    if (this.closed) return
    this.addSplits(added)
    this.wakeUp()
  }

  /** Every split ended: a source that may still find partitions (unbounded) has not. */
  private allEnded(): boolean {
    return this.ended.every(e => e) && (this.splits.length > 0 || this.config.bounded.mode !== 'unbounded')
  }

  start(): void {
    if (this.allEnded()) return
    this.fetcher.start()
    this.discovery.start()
  }

  private deliver(f: FetchedRecords): void {
    if (this.ended[f.split] || this.closed) {
      this.fetcher.consumed(f.bytes)
      return
    }
    this.buffer.push(f)
    this.idleness?.active(f.split, Date.now())
    this.wakeUp()
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
      return this.buffer.some(f => f.split === s) ? 'busy' : 'waiting'
    })
    for (const split of found) {
      const position: PartitionPosition = { ...this.splits[split]!, offset: this.nextOffset[split]!, stop: this.stop[split]! }
      this.announce.push({ rows: [], split, position, idle: true })
    }
  }

  /** Up to batchSize rows of `f`, or null when it held nothing new for its split. */
  private take(f: FetchedRecords): SourceChunk | null {
    const split = f.split
    const stop = this.stop[split] ?? Number.MAX_SAFE_INTEGER
    const out = new ChunkRows()
    const rows = out.rows
    const want = Math.max(1, this.ctx.batchSize)
    const cursor = f.cursor
    let next = this.nextOffset[split]!
    let drained = false
    while (rows.length < want) {
      if (!cursor.next()) {
        drained = true
        break
      }
      const offset = cursor.offset
      if (offset < next) continue // already handed on (a batch fetched again from its start)
      if (offset >= stop) {
        drained = true
        break
      }
      next = offset + 1
      const row = this.decode(cursor, split, offset)
      if (row !== null) out.add(row)
    }
    if (next >= stop) drained = true
    if (drained) {
      this.buffer.shift()
      this.fetcher.consumed(f.bytes)
      // Past control records and aborted messages after the last record handed on (a transactional topic's end).
      if (f.through > next && f.through <= stop) next = f.through
    }
    if (next === this.nextOffset[split] && rows.length === 0) return null
    this.nextOffset[split] = next
    this.rowsRead += rows.length
    const ended = next >= stop
    if (ended) {
      this.ended[split] = true
      this.fetcher.end(split)
    }
    const position: PartitionPosition = { ...this.splits[split]!, offset: next, stop: this.stop[split]! }
    const kinds = out.chunkKinds()
    return ended ? { rows, ...kinds, split, position, splitEnded: true } : { rows, ...kinds, split, position }
  }

  private decode(c: RecordCursor, split: number, offset: number): Row | Changes | null {
    // A message without a value (a tombstone) holds no row, as in Flink's formats.
    if (c.valueStart < 0) return null
    let values: Row | Changes | typeof SKIP | typeof FALLBACK = FALLBACK
    try {
      if (this.scanner !== null) values = this.scanner.decode(c.buf, c.valueStart, c.valueEnd)
      if (values === FALLBACK) values = decodeText(this.decoder, valueText(c))
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      this.badRecord(e, split, offset, valueText(c))
      return null
    }
    if (values === SKIP) return null
    let row = values
    if (this.assembler !== null) {
      try {
        row = this.assembler.build(values, messageOf(c), this.splits[split]!)
      } catch (e) {
        if (!(e instanceof KeyError)) throw e
        this.badRecord(e.error, split, offset, e.key, 'key')
        return null
      }
    }
    for (const col of this.notNull) {
      if (rowsOf(row).some(r => r[col] === null)) {
        this.badRecord(new RecordError(`column '${this.ctx.schema[col]!.name}' is NOT NULL, but the record has no value for it`), split, offset, valueText(c))
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

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.wakeUp()
    this.buffer.length = 0
    await this.discovery.stop()
    await this.fetcher.close()
    await this.committer?.close()
    await this.admin.disconnect().catch(() => {})
  }
}

/** The current record's value as text (it has one). */
function valueText(c: RecordCursor): string {
  return (c.buf as Utf8Slicing).utf8Slice(c.valueStart, c.valueEnd)
}

/**
 * The scanner of a 'json' value's columns, over those the job reads (and NOT NULL ones, which the
 * source checks); null for other formats.
 */
function valueScanner(decoder: RecordDecoder | null, ctx: SourceContext, config: KafkaSourceConfig): JsonFieldScanner | null {
  if (config.format !== 'json' || !(decoder instanceof JsonDecoder)) return null
  const physicalAt = ctx.schema.flatMap((_, i) => ((ctx.metadata?.[i] ?? null) === null ? [i] : []))
  const columns = config.layout.valueColumns.map(c => physicalAt[c]!)
  const read = columns.map(i => (ctx.readColumns?.[i] ?? true) || !ctx.schema[i]!.type.nullable)
  return new JsonFieldScanner(decoder, columns.map(i => ctx.schema[i]!.name), read, config.json.failOnMissingField)
}

/**
 * The current record of `c` as the key and metadata readers take it (kafkajs' message shape): made
 * only for tables with key or metadata columns; the headers are decoded only when read.
 */
function messageOf(c: RecordCursor): KafkaMessage {
  const message: KafkaMessage = {
    key: c.keyStart < 0 ? null : c.buf.subarray(c.keyStart, c.keyEnd),
    value: null,
    offset: String(c.offset),
    timestamp: String(c.timestamp),
    attributes: 0,
    get headers(): IHeaders {
      return c.headers()
    },
  }
  return message
}
