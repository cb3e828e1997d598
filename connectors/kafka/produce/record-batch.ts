// Kafka record batches (message format v2) written straight into a Buffer from the sink's messages:
// no object per message (kafkajs builds several per message, and their encoding and garbage were a
// large part of the sink's CPU). A builder collects one partition's records; seal() fills in the
// batch header (producer id, epoch and base sequence for idempotent and transactional producers, the
// transactional bit, the codec: none or gzip), checksums it (CRC-32C) and hands the batch on.
import { gzipSync } from 'node:zlib'
import { crc32c } from './crc32c.js'

/** Bytes of a v2 batch's header, up to and including its record count. */
export const BATCH_HEADER = 61
const TRANSACTIONAL = 0x10

export type Compression = 'none' | 'gzip'
const CODEC: Record<Compression, number> = { none: 0, gzip: 1 }

/** A header value: a string (written as UTF-8), bytes, or null. */
export type HeaderValue = string | Uint8Array | null

/**
 * One record: the sink's Message ([partition, key, value]) with, optionally, its timestamp (ms since
 * the epoch; absent or null: the time it is produced) and headers.
 */
export type OutRecord = readonly [
  partition: number | null,
  key: string | null,
  value: string | null,
  timestamp?: number | null,
  headers?: RecordHeaders | null,
]

/**
 * A record's headers: pairs (a name may repeat, a value may be null), or an object of names to text
 * (the sink's 'headers' metadata column).
 */
export type RecordHeaders = readonly (readonly [name: string, value: HeaderValue])[] | Readonly<Record<string, string>>

/** The headers as pairs, in order. */
export function headerPairs(headers: RecordHeaders | null | undefined): readonly (readonly [string, HeaderValue])[] | undefined {
  if (headers === null || headers === undefined) return undefined
  return Array.isArray(headers) ? headers : Object.entries(headers)
}

/** Who writes the batch: producer id -1 for a producer that is neither idempotent nor transactional. */
export interface BatchProducer {
  readonly producerId: number
  readonly producerEpoch: number
  readonly transactional: boolean
}

/** A sealed batch, ready to send, and the sequence numbers it takes. */
export interface SealedBatch {
  readonly partition: number
  readonly bytes: Buffer
  readonly count: number
}

function zigzag32(n: number): number {
  return (n << 1) ^ (n >> 31)
}

/** Bytes of an unsigned varint (< 2^32). */
function uvarintSize(u: number): number {
  return u < 0x80 ? 1 : u < 0x4000 ? 2 : u < 0x200000 ? 3 : u < 0x10000000 ? 4 : 5
}

function varintSize(n: number): number {
  return uvarintSize(zigzag32(n) >>> 0)
}

/** Zig-zag of a safe integer as a non-negative number (exact within ±2^52). */
function zigzag64(n: number): number {
  return n >= 0 ? n * 2 : -n * 2 - 1
}

function varlongSize(n: number): number {
  if (n >= -0x40000000 && n < 0x40000000) return varintSize(n)
  let u = zigzag64(n)
  let size = 1
  while (u >= 128) {
    u = Math.floor(u / 128)
    size++
  }
  return size
}

function byteLength(s: string | Uint8Array): number {
  return typeof s === 'string' ? Buffer.byteLength(s, 'utf8') : s.length
}

/** Collects one partition's records into a batch, in the buffer it will be sent from. */
export class BatchBuilder {
  private buf: Buffer
  private p = BATCH_HEADER
  private count = 0
  private baseTimestamp = 0
  private maxTimestamp = 0

  /** limit: bytes a batch may reach (one record alone may exceed it). */
  constructor(readonly partition: number, private readonly limit: number) {
    this.buf = Buffer.allocUnsafe(limit)
  }

  get records(): number {
    return this.count
  }

  /** Bytes the batch has now. */
  get size(): number {
    return this.p
  }

  /** Appends a record; false (and nothing added) when the batch has records and this one would take it over its limit. */
  add(key: string | Uint8Array | null, value: string | Uint8Array | null, timestamp: number, headers?: readonly (readonly [string, HeaderValue])[]): boolean {
    const timestampDelta = this.count === 0 ? 0 : timestamp - this.baseTimestamp
    const keyLength = key === null ? -1 : byteLength(key)
    const valueLength = value === null ? -1 : byteLength(value)
    let headersSize = 0
    if (headers !== undefined) {
      for (const [name, v] of headers) {
        const n = byteLength(name)
        const l = v === null ? -1 : byteLength(v)
        headersSize += varintSize(n) + n + varintSize(l) + Math.max(l, 0)
      }
    }
    const headerCount = headers?.length ?? 0
    const bodySize = 1 + varlongSize(timestampDelta) + varintSize(this.count) + varintSize(keyLength) + Math.max(keyLength, 0)
      + varintSize(valueLength) + Math.max(valueLength, 0) + varintSize(headerCount) + headersSize
    const size = varintSize(bodySize) + bodySize
    if (this.count > 0 && this.p + size > this.limit) return false
    if (this.count === 0) this.baseTimestamp = this.maxTimestamp = timestamp
    else if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp
    this.ensure(size)
    this.varint(bodySize)
    this.buf[this.p++] = 0 // record attributes: none in v2
    this.varlong(timestampDelta)
    this.varint(this.count)
    this.bytes(key, keyLength)
    this.bytes(value, valueLength)
    this.varint(headerCount)
    if (headers !== undefined) {
      for (const [name, v] of headers) {
        this.bytes(name, byteLength(name))
        this.bytes(v, v === null ? -1 : byteLength(v))
      }
    }
    this.count++
    return true
  }

  /**
   * Finishes the batch: header, codec, checksum. baseSequence: the producer's sequence number of the
   * batch's first record in its partition (-1 without idempotence). The builder starts a new batch.
   */
  seal(producer: BatchProducer, baseSequence: number, compression: Compression): SealedBatch {
    let batch = this.buf.subarray(0, this.p)
    if (compression === 'gzip') {
      const compressed = gzipSync(batch.subarray(BATCH_HEADER))
      const whole = Buffer.allocUnsafe(BATCH_HEADER + compressed.length)
      compressed.copy(whole, BATCH_HEADER)
      batch = whole
    }
    const attributes = CODEC[compression] | (producer.transactional ? TRANSACTIONAL : 0)
    batch.writeInt32BE(0, 0) // base offset (high, low): the broker assigns offsets
    batch.writeInt32BE(0, 4)
    batch.writeInt32BE(batch.length - 12, 8) // batch length: what follows this field
    batch.writeInt32BE(-1, 12) // partition leader epoch: set by the broker
    batch.writeInt8(2, 16) // magic
    batch.writeInt16BE(attributes, 21)
    batch.writeInt32BE(this.count - 1, 23) // last offset delta
    writeInt64(batch, this.baseTimestamp, 27)
    writeInt64(batch, this.maxTimestamp, 35)
    writeInt64(batch, producer.producerId, 43)
    batch.writeInt16BE(producer.producerEpoch, 51)
    batch.writeInt32BE(baseSequence, 53)
    batch.writeInt32BE(this.count, 57)
    batch.writeUInt32BE(crc32c(batch, 21, batch.length), 17)
    const sealed: SealedBatch = { partition: this.partition, bytes: batch, count: this.count }
    // The sealed batch keeps this buffer (uncompressed) or was copied out of it (gzip).
    if (compression === 'none') this.buf = Buffer.allocUnsafe(this.limit)
    this.p = BATCH_HEADER
    this.count = 0
    return sealed
  }

  private ensure(bytes: number): void {
    if (this.p + bytes <= this.buf.length) return
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.p + bytes))
    this.buf.copy(bigger, 0, 0, this.p)
    this.buf = bigger
  }

  private bytes(s: string | Uint8Array | null, length: number): void {
    this.varint(length)
    if (s === null || length <= 0) return
    if (typeof s === 'string') this.buf.write(s, this.p, length, 'utf8')
    else this.buf.set(s, this.p)
    this.p += length
  }

  private varint(n: number): void {
    let u = zigzag32(n) >>> 0
    while (u >= 0x80) {
      this.buf[this.p++] = (u & 0x7f) | 0x80
      u >>>= 7
    }
    this.buf[this.p++] = u
  }

  private varlong(n: number): void {
    if (n >= -0x40000000 && n < 0x40000000) return this.varint(n)
    let u = zigzag64(n)
    while (u >= 0x80) {
      this.buf[this.p++] = (u % 128) | 0x80
      u = Math.floor(u / 128)
    }
    this.buf[this.p++] = u
  }
}

function writeInt64(buf: Buffer, n: number, at: number): void {
  buf.writeBigInt64BE(BigInt(n), at)
}
