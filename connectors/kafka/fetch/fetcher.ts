// Fetching a Kafka source's partitions without a consumer group: Weir keeps each partition's offset
// itself (checkpoints hold them), so it sends Fetch requests straight to each partition's leader and
// hands every partition's record set on as it came (record-batches.ts reads it in place).
//
// Each round sends one request per leader (concurrently) for the partitions still being read, and
// the next round starts as soon as the reader has room: the next fetch is in flight while the reader
// decodes the last one. A leader change (NOT_LEADER_OR_FOLLOWER and the like), a broker restarting or
// unreachable: the metadata is asked for again and the round retried with back-off, for up to
// RETRY_FOR_MS of failing in a row; then, or on an error that is not a passing one, the job fails.
import type { Kafka } from 'kafkajs'
import { WeirError } from '../../../common/errors.js'
import { isRetriable, RETRY_FOR_MS } from '../retry.js'
import type { TopicPartition } from '../source-offsets.js'
import { createCluster, createErrorFromCode, fetch, perLeader, type FetchPartition, type FetchSettings, type KafkajsCluster } from './fetch-protocol.js'
import { RecordCursor, recordSetEnd } from './record-batches.js'

/** A partition's record set from one fetch, read by the reader through `cursor`. */
export interface FetchedRecords {
  readonly split: number
  readonly cursor: RecordCursor
  /** The offset after the fetched batches (control batches and aborted ones included). */
  readonly through: number
  /** Bytes of the record set (flow control). */
  readonly bytes: number
}

export interface FetcherSettings extends FetchSettings {
  /** Per partition and request ('max.partition.fetch.bytes'). */
  readonly partitionMaxBytes: number
  /** Bytes fetched and not yet read by the reader beyond which fetching waits. */
  readonly bufferBytes: number
}

const OFFSET_OUT_OF_RANGE = 1

export class PartitionFetcher {
  private readonly cluster: KafkajsCluster
  private readonly splits: TopicPartition[] = []
  /** Per split: the next offset to fetch, and the offset to stop before (null: none). */
  private readonly offsets: number[] = []
  private readonly stops: (number | null)[] = []
  /** Per split: a batch larger than partitionMaxBytes was cut: ask for up to maxBytes. */
  private readonly large: boolean[] = []
  private readonly topics = new Set<string>()
  private buffered = 0
  private room: (() => void) | null = null
  private wake: (() => void) | null = null
  private closed = false
  private running: Promise<void> = Promise.resolve()
  /** When fetching started failing with passing errors (null: the last round went well). */
  private failingSince: number | null = null
  private staleMetadata = true

  constructor(
    kafka: Kafka,
    private readonly settings: FetcherSettings,
    private readonly deliver: (records: FetchedRecords) => void,
    private readonly fail: (e: unknown) => void,
    private readonly table: string,
  ) {
    this.cluster = createCluster(kafka)
  }

  /** Starts fetching `tp` (split index `split`) at `offset`, up to `stop`. */
  add(split: number, tp: TopicPartition, offset: number, stop: number | null): void {
    this.splits[split] = tp
    this.offsets[split] = offset
    this.stops[split] = stop
    this.large[split] = false
    if (!this.topics.has(tp.topic)) {
      this.topics.add(tp.topic)
      this.staleMetadata = true
    }
    this.nudge()
  }

  /** Stops fetching a split (it ended). */
  end(split: number): void {
    this.stops[split] = this.offsets[split]!
  }

  /** The reader has read `bytes` of what was delivered. */
  consumed(bytes: number): void {
    this.buffered -= bytes
    if (this.buffered < this.settings.bufferBytes) {
      const r = this.room
      this.room = null
      r?.()
    }
  }

  start(): void {
    this.running = this.loop().catch(e => {
      if (!this.closed) this.fail(e)
    })
  }

  async close(): Promise<void> {
    this.closed = true
    this.nudge()
    this.room?.()
    // A round waiting on a broker that is down would hold the close back: disconnecting ends it.
    await Promise.race([this.running, new Promise(r => setTimeout(r, 1_000).unref())])
    await this.cluster.disconnect().catch(() => undefined)
    await this.running
  }

  private nudge(): void {
    const w = this.wake
    this.wake = null
    w?.()
  }

  private wanted(): number[] {
    const out: number[] = []
    for (let s = 0; s < this.splits.length; s++) {
      if (this.splits[s] === undefined) continue
      const stop = this.stops[s]
      if (stop === null || stop === undefined || this.offsets[s]! < stop) out.push(s)
    }
    return out
  }

  private async loop(): Promise<void> {
    let round = 0
    while (!this.closed) {
      while (this.buffered >= this.settings.bufferBytes && !this.closed) await new Promise<void>(r => (this.room = r))
      const wanted = this.wanted()
      if (wanted.length === 0) {
        await new Promise<void>(r => (this.wake = r))
        continue
      }
      try {
        if (this.staleMetadata) {
          this.staleMetadata = false
          await this.cluster.connect()
          await this.cluster.addMultipleTargetTopics([...this.topics])
          await this.cluster.refreshMetadata()
        }
        // Rotated each round so that no partition is always last in a request (its share of maxBytes).
        const shift = round++ % wanted.length
        await this.fetchRound([...wanted.slice(shift), ...wanted.slice(0, shift)])
        this.failingSince = null
      } catch (e) {
        if (this.closed) return
        const now = Date.now()
        this.failingSince ??= now
        if (!passing(e) || now - this.failingSince > RETRY_FOR_MS) throw e
        this.staleMetadata = true
        await new Promise(r => setTimeout(r, Math.min(2_000, 100 * 2 ** Math.min(5, Math.floor((now - this.failingSince!) / 1_000)))))
      }
    }
  }

  /** One request per leader of `splits`; delivers what they return. */
  private fetchRound(splits: readonly number[]): Promise<void> {
    return perLeader(this.cluster, splits, s => this.splits[s]!, (leader, list) => this.fetchFrom(leader, list))
  }

  private async fetchFrom(leader: string, splits: readonly number[]): Promise<void> {
    const broker = await this.cluster.findBroker({ nodeId: leader })
    const request: FetchPartition[] = splits.map(s => ({
      ...this.splits[s]!,
      offset: this.offsets[s]!,
      maxBytes: this.large[s] ? this.settings.maxBytes : this.settings.partitionMaxBytes,
    }))
    let response
    try {
      response = await fetch(broker, request, this.settings)
    } catch (e) {
      // As kafkajs' brokers do: a closed connection is dropped, so the next request opens a new one.
      if ((e as { name?: string }).name === 'KafkaJSConnectionClosedError') await broker.disconnect().catch(() => undefined)
      throw e
    }
    if (this.closed) return
    if (response.errorCode !== 0) throw createErrorFromCode(response.errorCode)
    let failure: unknown = null
    for (const part of response.partitions) {
      const split = splits.find(s => this.splits[s]!.topic === part.topic && this.splits[s]!.partition === part.partition)
      if (split === undefined) continue
      const from = this.offsets[split]!
      if (part.errorCode === OFFSET_OUT_OF_RANGE) throw this.outOfRange(split, from, part.logStartOffset, part.highWatermark)
      if (part.errorCode !== 0) {
        failure ??= createErrorFromCode(part.errorCode)
        continue
      }
      if (part.end <= part.start) continue
      const through = recordSetEnd(part.data, part.start, part.end, from)
      if (through === from) {
        // Only part of a batch larger than the partition's limit came: ask for it whole next time.
        this.large[split] = true
        continue
      }
      this.large[split] = false
      this.offsets[split] = through
      const bytes = part.end - part.start
      this.buffered += bytes
      const cursor = new RecordCursor(part.data, part.start, part.end, from, this.settings.readCommitted ? part.aborted ?? [] : null, this.splits[split]!)
      this.deliver({ split, cursor, through, bytes })
    }
    if (failure !== null) throw failure
  }

  private outOfRange(split: number, offset: number, low: number, high: number): WeirError {
    const { topic, partition } = this.splits[split]!
    const range = low >= 0 && high >= 0 ? ` (it holds offsets ${low} to ${high})` : ''
    return WeirError.execution(
      `table '${this.table}' cannot read topic '${topic}', partition ${partition} at offset ${offset}: the broker no longer has that offset${range}`,
      {
        help: `its messages were deleted (retention) or the partition was truncated (e.g. recreated): restart the job; it resumes at the ` +
          `partition's first message and the messages in between are lost`,
      },
    )
  }
}

/** Errors of a broker restarting, a leader moving or metadata being stale: retried. */
function passing(e: unknown): boolean {
  if (e instanceof WeirError) return false
  return isRetriable(e)
}
