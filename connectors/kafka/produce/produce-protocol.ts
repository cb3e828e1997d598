// The Produce request (version 7) sent through kafkajs' connection layer (its sockets, API version
// negotiation and request framing; kafkajs is pinned at 2.2.4, see fetch/fetch-protocol.ts), with
// the request's bytes and the response's decoding Weir's own: the record batches go out as the
// builder wrote them (record-batch.ts).
import type { KafkajsBroker } from '../fetch/fetch-protocol.js'
import type { SealedBatch } from './record-batch.js'

const PRODUCE_API_KEY = 0
const PRODUCE_VERSION = 7

export interface ProducePartitionResult {
  readonly partition: number
  readonly errorCode: number
  readonly baseOffset: number
}

export interface ProduceSettings {
  readonly transactionalId: string | null
  /** -1: all in-sync replicas; 1: the leader. */
  readonly acks: number
  /** How long the broker waits for the replicas (acks = -1). */
  readonly timeoutMs: number
  /** The client's request timeout; the broker may take timeoutMs more. */
  readonly requestTimeoutMs: number
}

/**
 * Produce Request v7: transactional_id NULLABLE_STRING, acks INT16, timeout_ms INT32, [topic STRING,
 * [partition INT32, records BYTES]] — one batch per partition, as the broker requires.
 */
export function encodeProduceRequest(topic: string, batches: readonly SealedBatch[], settings: ProduceSettings): Buffer {
  const id = settings.transactionalId === null ? null : Buffer.from(settings.transactionalId, 'utf8')
  const name = Buffer.from(topic, 'utf8')
  let size = 2 + (id?.length ?? 0) + 2 + 4 + 4 + 2 + name.length + 4
  for (const b of batches) size += 8 + b.bytes.length
  const out = Buffer.allocUnsafe(size)
  let p = 0
  if (id === null) p = out.writeInt16BE(-1, p)
  else {
    p = out.writeInt16BE(id.length, p)
    p += id.copy(out, p)
  }
  p = out.writeInt16BE(settings.acks, p)
  p = out.writeInt32BE(settings.timeoutMs, p)
  p = out.writeInt32BE(1, p)
  p = out.writeInt16BE(name.length, p)
  p += name.copy(out, p)
  p = out.writeInt32BE(batches.length, p)
  for (const b of batches) {
    p = out.writeInt32BE(b.partition, p)
    p = out.writeInt32BE(b.bytes.length, p)
    p += b.bytes.copy(out, p)
  }
  return out
}

/**
 * Produce Response v7: [topic STRING, [partition INT32, error_code INT16, base_offset INT64,
 * log_append_time INT64, log_start_offset INT64]], throttle_time_ms INT32.
 */
export function decodeProduceResponse(buf: Buffer): { partitions: ProducePartitionResult[]; clientSideThrottleTime: number } {
  let p = 0
  const partitions: ProducePartitionResult[] = []
  const topics = buf.readInt32BE(p)
  p += 4
  for (let t = 0; t < topics; t++) {
    p += 2 + buf.readInt16BE(p)
    const count = buf.readInt32BE(p)
    p += 4
    for (let i = 0; i < count; i++) {
      const partition = buf.readInt32BE(p)
      const errorCode = buf.readInt16BE(p + 4)
      const baseOffset = buf.readInt32BE(p + 6) * 4294967296 + buf.readUInt32BE(p + 10)
      partitions.push({ partition, errorCode, baseOffset })
      p += 30
    }
  }
  return { partitions, clientSideThrottleTime: buf.readInt32BE(p) }
}

/** Sends one Produce request to `broker`: one batch per partition of `topic`. */
export async function produce(broker: KafkajsBroker, topic: string, batches: readonly SealedBatch[],
  settings: ProduceSettings): Promise<ProducePartitionResult[]>
{
  const range = broker.versions?.[PRODUCE_API_KEY]
  if (range !== undefined && (range.minVersion > PRODUCE_VERSION || range.maxVersion < PRODUCE_VERSION)) {
    throw new Error(`the broker does not support Produce version ${PRODUCE_VERSION} (it supports ${range.minVersion}–${range.maxVersion})`)
  }
  const bytes = encodeProduceRequest(topic, batches, settings)
  const request = {
    apiKey: PRODUCE_API_KEY,
    apiVersion: PRODUCE_VERSION,
    apiName: 'Produce',
    // kafkajs frames the request around what encode() gives: anything with the bytes as `buf` and `buffer`.
    encode: async () => ({ buf: bytes, buffer: bytes }),
  }
  const response = {
    decode: async (raw: Buffer) => decodeProduceResponse(raw),
    parse: async (r: { partitions: ProducePartitionResult[] }) => r.partitions,
  }
  return await broker.connectionPool.send({ request, response, requestTimeout: settings.requestTimeoutMs + settings.timeoutMs }) as ProducePartitionResult[]
}
