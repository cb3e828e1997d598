// Kafka's record batches (message format v2, the only one Kafka 4 writes) read in place from a Fetch
// response: no object per message. A cursor walks a partition's record set and exposes the current
// record's offset, timestamp and the byte ranges of its key, value and headers; the reader decodes the
// value straight from those bytes. Batches are decompressed when the cursor reaches them (gzip, the
// codec kafkajs writes without plugins; others are refused by name). Control batches (transaction
// markers) are skipped, and under read_committed so are the batches of aborted transactions, using the
// response's aborted-transaction list as Kafka's own consumer does.
import { gunzipSync } from 'node:zlib'
import { WeirError } from '../../../common/errors.js'

/** Bytes of a v2 batch's header, up to and including its record count. */
const BATCH_HEADER = 61
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd']
const TIMESTAMP_LOG_APPEND = 0x08
const TRANSACTIONAL = 0x10
const CONTROL = 0x20

/** A transaction the broker says was aborted: its producer's batches from `firstOffset` on are dropped until its abort marker. */
export interface AbortedTransaction {
  readonly producerId: bigint
  readonly firstOffset: number
}

/** Where a record set was fetched from, for errors. */
export interface RecordSource {
  readonly topic: string
  readonly partition: number
}

function int64(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * 4294967296 + buf.readUInt32BE(at + 4)
}

/**
 * The offset right after the last complete batch in buf[start, end) (control batches and aborted
 * ones included), or `from` when it holds none: where the partition's next fetch starts. A batch
 * cut by the fetch's byte limit is not counted (the next fetch reads it whole).
 */
export function recordSetEnd(buf: Buffer, start: number, end: number, from: number): number {
  let next = from
  for (let p = start; p + 12 <= end;) {
    const batchEnd = p + 12 + buf.readInt32BE(p + 8)
    if (batchEnd > end || batchEnd < p + BATCH_HEADER) break
    next = Math.max(next, int64(buf, p) + buf.readInt32BE(p + 23) + 1)
    p = batchEnd
  }
  return next
}

/**
 * Walks the records of a partition's record set, in offset order, from offset `from` on. After
 * next() returns true, the fields describe the current record; its key and value are ranges of
 * `buf` (start -1: null), valid until the next call.
 */
export class RecordCursor {
  buf: Buffer
  offset = 0
  timestamp = 0
  keyStart = -1
  keyEnd = -1
  valueStart = -1
  valueEnd = -1
  /** Where the current record's headers start in buf, and how many it has. */
  headersAt = 0
  headerCount = 0

  /** Position in `buf` of the next record; recordsEnd: end of the current batch's records in `buf`. */
  private p = 0
  private recordsEnd = 0
  private left = 0
  /** The next batch in the fetched data, and the data's end. */
  private batchAt: number
  private readonly dataEnd: number
  private readonly data: Buffer
  private baseOffset = 0
  private baseTimestamp = 0
  private logAppendTime = false
  private maxTimestamp = 0
  /** Producers whose open transaction the broker reported aborted (read_committed). */
  private readonly abortedProducers = new Set<bigint>()
  private abortedAt = 0

  constructor(
    data: Buffer,
    start: number,
    end: number,
    private readonly from: number,
    /** Sorted by firstOffset; null under read_uncommitted. */
    private readonly aborted: readonly AbortedTransaction[] | null,
    private readonly source: RecordSource,
  ) {
    this.data = data
    this.buf = data
    this.batchAt = start
    this.dataEnd = end
  }

  next(): boolean {
    for (;;) {
      if (this.left > 0) {
        this.left--
        if (this.readRecord() && this.offset >= this.from) return true
        continue
      }
      if (!this.nextBatch()) return false
    }
  }

  /** Reads the record at p into the fields; false when it is not one to hand on. */
  private readRecord(): boolean {
    const length = this.varint()
    const recordEnd = this.p + length
    if (length < 0 || recordEnd > this.recordsEnd) throw this.corrupt('a record runs past its batch')
    this.p++ // attributes (unused in v2)
    const timestampDelta = this.varlong()
    this.offset = this.baseOffset + this.varint()
    this.timestamp = this.logAppendTime ? this.maxTimestamp : this.baseTimestamp + timestampDelta
    const keyLength = this.varint()
    if (keyLength < 0) this.keyStart = this.keyEnd = -1
    else {
      this.keyStart = this.p
      this.p += keyLength
      this.keyEnd = this.p
    }
    const valueLength = this.varint()
    if (valueLength < 0) this.valueStart = this.valueEnd = -1
    else {
      this.valueStart = this.p
      this.p += valueLength
      this.valueEnd = this.p
    }
    this.headerCount = this.varint()
    this.headersAt = this.p
    if (this.p > recordEnd) throw this.corrupt('a record runs past its length')
    this.p = recordEnd
    return true
  }

  /** Moves to the next batch with records to hand on; false at the end of the data. */
  private nextBatch(): boolean {
    const d = this.data
    for (;;) {
      const at = this.batchAt
      if (at + 12 > this.dataEnd) return false
      const batchEnd = at + 12 + d.readInt32BE(at + 8)
      if (batchEnd > this.dataEnd) return false // cut by the fetch's byte limit: the next fetch has it
      if (batchEnd < at + BATCH_HEADER) throw this.corrupt('a record batch is shorter than its header')
      this.batchAt = batchEnd
      const magic = d.readInt8(at + 16)
      if (magic !== 2) {
        throw WeirError.unsupported(
          `${this.where()} holds messages in the old message format v${magic}, which Weir does not read`,
          { help: `Kafka 3 and later write format v2; copy the topic with a newer client or broker` },
        )
      }
      const attributes = d.readInt16BE(at + 21)
      const baseOffset = int64(d, at)
      const lastOffset = baseOffset + d.readInt32BE(at + 23)
      if (lastOffset < this.from) continue
      const producerId = (attributes & (TRANSACTIONAL | CONTROL)) !== 0 && this.aborted !== null ? d.readBigInt64BE(at + 43) : 0n
      if (this.aborted !== null) {
        // Transactions aborted that began at or before this batch: their producer's batches are dropped until its abort marker.
        while (this.abortedAt < this.aborted.length && this.aborted[this.abortedAt]!.firstOffset <= lastOffset) {
          this.abortedProducers.add(this.aborted[this.abortedAt++]!.producerId)
        }
      }
      if ((attributes & CONTROL) !== 0) {
        if (this.aborted !== null && this.isAbortMarker(at, batchEnd)) this.abortedProducers.delete(producerId)
        continue
      }
      if ((attributes & TRANSACTIONAL) !== 0 && this.aborted !== null && this.abortedProducers.has(producerId)) continue
      const count = d.readInt32BE(at + 57)
      if (count <= 0) continue
      this.baseOffset = baseOffset
      this.baseTimestamp = int64(d, at + 27)
      this.maxTimestamp = int64(d, at + 35)
      this.logAppendTime = (attributes & TIMESTAMP_LOG_APPEND) !== 0
      const codec = attributes & 0x07
      if (codec === 0) {
        this.buf = d
        this.p = at + BATCH_HEADER
        this.recordsEnd = batchEnd
      } else if (codec === 1) {
        this.buf = gunzipSync(d.subarray(at + BATCH_HEADER, batchEnd))
        this.p = 0
        this.recordsEnd = this.buf.length
      } else {
        throw WeirError.unsupported(`${this.where()} holds a record batch compressed with ${CODECS[codec] ?? `codec ${codec}`}, which Weir cannot read`, {
          help: `Weir reads uncompressed and gzip batches: have the producer use compression.type 'gzip' or 'none' (or set it on the topic)`,
        })
      }
      this.left = count
      return true
    }
  }

  /** Whether the control batch at `at` holds an abort marker (its record's key: version INT16, type INT16; 0 is ABORT). */
  private isAbortMarker(at: number, batchEnd: number): boolean {
    const save = { buf: this.buf, p: this.p, end: this.recordsEnd }
    this.buf = this.data
    this.p = at + BATCH_HEADER
    this.recordsEnd = batchEnd
    let abort = false
    if (this.data.readInt32BE(at + 57) > 0) {
      this.readRecord()
      abort = this.keyStart >= 0 && this.keyEnd - this.keyStart >= 4 && this.data.readInt16BE(this.keyStart + 2) === 0
    }
    this.buf = save.buf
    this.p = save.p
    this.recordsEnd = save.end
    return abort
  }

  /** A zig-zag varint of at most 32 bits at p. */
  private varint(): number {
    const b = this.buf
    let value = 0
    let shift = 0
    for (;;) {
      if (this.p >= this.recordsEnd) throw this.corrupt('a record runs past its batch')
      const byte = b[this.p++]!
      value |= (byte & 0x7f) << shift
      if (byte < 0x80) break
      shift += 7
      if (shift > 28) throw this.corrupt('a varint is longer than 5 bytes')
    }
    return (value >>> 1) ^ -(value & 1)
  }

  /** A zig-zag varint of at most 64 bits at p, as a number (exact within ±2^53). */
  private varlong(): number {
    const b = this.buf
    let value = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      if (this.p >= this.recordsEnd) throw this.corrupt('a record runs past its batch')
      const byte = b[this.p++]!
      value += (byte & 0x7f) * scale
      if (byte < 0x80) return value % 2 === 0 ? value / 2 : -(value + 1) / 2
      scale *= 128
    }
    throw this.corrupt('a varlong is longer than 10 bytes')
  }

  /** The current record's headers, as kafkajs gives them: name → value, or values when a name repeats. */
  headers(): Record<string, Buffer | Buffer[]> {
    const out: Record<string, Buffer | Buffer[]> = {}
    const saved = this.p
    this.p = this.headersAt
    const end = this.recordsEnd
    try {
      this.recordsEnd = this.buf.length
      for (let i = 0; i < this.headerCount; i++) {
        const nameLength = this.varint()
        const name = this.buf.toString('utf8', this.p, this.p + nameLength)
        this.p += nameLength
        const valueLength = this.varint()
        const value = valueLength < 0 ? null : this.buf.subarray(this.p, this.p + valueLength)
        if (valueLength > 0) this.p += valueLength
        const was = out[name]
        // A null value is kept as kafkajs keeps it (metadata 'headers' gives JSON null).
        const v = value as Buffer
        out[name] = was === undefined ? v : Array.isArray(was) ? [...was, v] : [was, v]
      }
    } finally {
      this.p = saved
      this.recordsEnd = end
    }
    return out
  }

  private where(): string {
    return `topic '${this.source.topic}', partition ${this.source.partition}`
  }

  private corrupt(what: string): WeirError {
    return WeirError.execution(`the broker's data for ${this.where()} is corrupt near offset ${this.offset}: ${what}`, {
      help: `check the broker's log; restarting the job from its last checkpoint fetches the data again`,
    })
  }
}
