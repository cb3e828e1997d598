// The Fetch request (version 11) sent through kafkajs' connection layer (its sockets, TLS, API
// version negotiation and metadata; kafkajs is pinned at 2.2.4, whose internals this relies on),
// with a response decoder of Weir's own: the partitions' headers are read, and each record set is
// left in the response's bytes as a range for record-batches.ts, instead of kafkajs' object per
// message (its decoding, those objects and their garbage were a third of the source's CPU).
import { createRequire } from 'node:module'
import type { Kafka } from 'kafkajs'
import type { AbortedTransaction } from './record-batches.js'

const require = createRequire(import.meta.url)

interface KafkajsRequest {
  readonly apiKey: number
  readonly apiVersion: number
  readonly apiName: string
  encode(): Promise<unknown>
}

/** kafkajs' encoder of Fetch v11 requests (node_modules/kafkajs/src/protocol/requests/fetch/v11/request.js). */
type FetchV11Args = {
  replicaId: number
  maxWaitTime: number
  minBytes: number
  maxBytes: number
  isolationLevel: number
  topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[]
}
// kafkajs' modules are loaded on first use (Node caches them), as all of kafkajs (client.ts).
const encodeFetchV11 = (args: FetchV11Args): KafkajsRequest =>
  (require('kafkajs/src/protocol/requests/fetch/v11/request.js') as (args: FetchV11Args) => KafkajsRequest)(args)
/** kafkajs' protocol errors by Kafka error code (KafkaJSProtocolError: type, retriable). */
export const createErrorFromCode = (code: number): Error =>
  (require('kafkajs/src/protocol/error.js') as { createErrorFromCode(code: number): Error }).createErrorFromCode(code)

const FETCH_API_KEY = 1
const FETCH_VERSION = 11

/** A broker of kafkajs' cluster (node_modules/kafkajs/src/broker). */
export interface KafkajsBroker {
  readonly nodeId: number
  readonly versions: Record<number, { minVersion: number; maxVersion: number }> | null
  readonly connectionPool: { send(request: unknown): Promise<unknown> }
  disconnect(): Promise<void>
}

/** kafkajs' cluster (node_modules/kafkajs/src/cluster): brokers by node id and topic metadata. */
export interface KafkajsCluster {
  connect(): Promise<void>
  disconnect(): Promise<void>
  refreshMetadata(): Promise<void>
  addMultipleTargetTopics(topics: string[]): Promise<void>
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>
  findBroker(args: { nodeId: string }): Promise<KafkajsBroker>
}

/** A cluster of kafkajs' own, made with the client's settings (brokers, TLS, timeouts, retries), as its consumers make theirs. */
export function createCluster(kafka: Kafka): KafkajsCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find(s => s.description === 'private:Kafka:createCluster')
  if (symbol === undefined) throw new Error('kafkajs has changed: its client has no cluster factory (Weir needs kafkajs 2.2.4)')
  const create = (kafka as unknown as Record<symbol, (args: object) => KafkajsCluster>)[symbol]!
  return create({ metadataMaxAge: 300_000, allowAutoTopicCreation: false, maxInFlightRequests: null })
}

/**
 * Groups `items` by the leader of their topic-partition (per the cluster's metadata) and runs `each`
 * for every leader at once; throws the first failure once all have ended. A partition missing from
 * the metadata throws UNKNOWN_TOPIC_OR_PARTITION (retriable: the metadata may not have it yet).
 */
export async function perLeader<T>(
  cluster: KafkajsCluster,
  items: readonly T[],
  partitionOf: (item: T) => { readonly topic: string; readonly partition: number },
  each: (leader: string, items: T[]) => Promise<void>,
): Promise<void> {
  const byLeader = new Map<string, T[]>()
  for (const item of items) {
    const { topic, partition } = partitionOf(item)
    const leader = Object.keys(cluster.findLeaderForPartitions(topic, [partition]))[0]
    if (leader === undefined) throw createErrorFromCode(3) // UNKNOWN_TOPIC_OR_PARTITION: not in the metadata (yet)
    let list = byLeader.get(leader)
    if (list === undefined) byLeader.set(leader, list = [])
    list.push(item)
  }
  let failure: unknown = null
  await Promise.all([...byLeader].map(async ([leader, list]) => {
    try {
      await each(leader, list)
    } catch (e) {
      failure ??= e
    }
  }))
  if (failure !== null) throw failure
}

export interface FetchPartition {
  readonly topic: string
  readonly partition: number
  readonly offset: number
  readonly maxBytes: number
}

/** One partition of a Fetch response. records: a range of `data` (start = end when it has none). */
export interface FetchedPartitionData {
  readonly topic: string
  readonly partition: number
  readonly errorCode: number
  readonly highWatermark: number
  readonly logStartOffset: number
  /** Sorted by first offset; null when the broker sent none. */
  readonly aborted: AbortedTransaction[] | null
  readonly data: Buffer
  readonly start: number
  readonly end: number
}

export interface FetchResponse {
  readonly errorCode: number
  readonly partitions: FetchedPartitionData[]
}

export interface FetchSettings {
  readonly maxWaitMs: number
  readonly minBytes: number
  readonly maxBytes: number
  readonly readCommitted: boolean
  /** The client's request timeout; a fetch may take maxWaitMs more. */
  readonly requestTimeoutMs: number
}

/** Sends one Fetch request to `broker` for `partitions`. */
export async function fetch(broker: KafkajsBroker, partitions: readonly FetchPartition[], settings: FetchSettings): Promise<FetchResponse> {
  const range = broker.versions?.[FETCH_API_KEY]
  if (range !== undefined && (range.minVersion > FETCH_VERSION || range.maxVersion < FETCH_VERSION)) {
    throw new Error(`the broker does not support Fetch version ${FETCH_VERSION} (it supports ${range.minVersion}–${range.maxVersion})`)
  }
  const byTopic = new Map<string, { partition: number; fetchOffset: string; maxBytes: number }[]>()
  for (const p of partitions) {
    let list = byTopic.get(p.topic)
    if (list === undefined) byTopic.set(p.topic, list = [])
    list.push({ partition: p.partition, fetchOffset: String(p.offset), maxBytes: p.maxBytes })
  }
  const request = encodeFetchV11({
    replicaId: -1,
    maxWaitTime: settings.maxWaitMs,
    minBytes: settings.minBytes,
    maxBytes: settings.maxBytes,
    isolationLevel: settings.readCommitted ? 1 : 0,
    topics: [...byTopic].map(([topic, parts]) => ({ topic, partitions: parts })),
  })
  const response = {
    decode: async (raw: Buffer) => decodeFetchResponse(raw),
    parse: async (r: FetchResponse) => r,
  }
  return await broker.connectionPool.send({ request, response, requestTimeout: settings.requestTimeoutMs + settings.maxWaitMs }) as FetchResponse
}

/**
 * Fetch Response v11: throttle_time_ms INT32, error_code INT16, session_id INT32, [topic STRING,
 * [partition INT32, error_code INT16, high_watermark INT64, last_stable_offset INT64,
 * log_start_offset INT64, [producer_id INT64, first_offset INT64], preferred_read_replica INT32,
 * records BYTES]].
 */
export function decodeFetchResponse(buf: Buffer): FetchResponse & { clientSideThrottleTime: number } {
  let p = 0
  const int64 = (): number => {
    const v = buf.readInt32BE(p) * 4294967296 + buf.readUInt32BE(p + 4)
    p += 8
    return v
  }
  const throttle = buf.readInt32BE(p)
  const errorCode = buf.readInt16BE(p + 4)
  p += 10
  const partitions: FetchedPartitionData[] = []
  const topics = buf.readInt32BE(p)
  p += 4
  for (let t = 0; t < topics; t++) {
    const nameLength = buf.readInt16BE(p)
    const topic = buf.toString('utf8', p + 2, p + 2 + nameLength)
    p += 2 + nameLength
    const count = buf.readInt32BE(p)
    p += 4
    for (let i = 0; i < count; i++) {
      const partition = buf.readInt32BE(p)
      const code = buf.readInt16BE(p + 4)
      p += 6
      const highWatermark = int64()
      int64() // last stable offset: the broker already stops there under read_committed
      const logStartOffset = int64()
      const abortedCount = buf.readInt32BE(p)
      p += 4
      let aborted: AbortedTransaction[] | null = null
      if (abortedCount > 0) {
        aborted = []
        for (let a = 0; a < abortedCount; a++) {
          const producerId = buf.readBigInt64BE(p)
          p += 8
          aborted.push({ producerId, firstOffset: int64() })
        }
        aborted.sort((x, y) => x.firstOffset - y.firstOffset)
      }
      p += 4 // preferred read replica
      const size = buf.readInt32BE(p)
      p += 4
      const start = p
      if (size > 0) p += size
      partitions.push({ topic, partition, errorCode: code, highWatermark, logStartOffset, aborted, data: buf, start, end: Math.min(p, buf.length) })
    }
  }
  return { clientSideThrottleTime: throttle, errorCode, partitions }
}
