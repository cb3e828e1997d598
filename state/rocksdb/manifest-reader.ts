// Reads a RocksDB MANIFEST — a log of version edits — to find the table files of the current
// version: the live SST files a checkpoint must hold. Decodes only what that needs; checks CRCs.

/**
 * What a MANIFEST says is live.
 *
 * @example
 * const { tableFiles } = readManifest(await readFile(join(dbDir, 'MANIFEST-000005')))
 * tableFiles.map(tableFileName) // ['000012.sst', '000015.sst']
 */
export interface ManifestFiles {
  /** Numbers of the live table files, ascending, over every column family that is not dropped. */
  readonly tableFiles: readonly number[]
  /** Bytes up to the end of the last whole record: a copy cut there is a valid MANIFEST. */
  readonly validLength: number
}

/** The file name RocksDB gives table file `n` (at least six digits). */
export function tableFileName(n: number): string {
  return `${String(n).padStart(6, '0')}.sst`
}

/** The number of a table file name, or null for any other file. */
export function tableFileNumber(name: string): number | null {
  const m = /^(\d+)\.sst$/.exec(name)
  return m === null ? null : Number(m[1])
}

// ------------------------------------------------------------------ log records (db/log_format.h)

const BLOCK = 32768
const HEADER = 7
const RECYCLABLE_HEADER = 11
const enum RecordType {
  Zero = 0,
  Full = 1,
  First = 2,
  Middle = 3,
  Last = 4,
  RecyclableFull = 5,
  RecyclableFirst = 6,
  RecyclableMiddle = 7,
  RecyclableLast = 8,
  SetCompression = 9,
  TimestampSize = 10,
  RecyclableTimestampSize = 11,
}

/** A MANIFEST that does not read as RocksDB writes it: callers fall back to listing the folder. */
export class ManifestFormatError extends Error {
  override readonly name = 'ManifestFormatError'
}

/**
 * Applies every version edit in `bytes` and returns the live table files. A torn last record (a
 * MANIFEST copied while RocksDB appended to it) ends the log; anything else unexpected throws
 * ManifestFormatError.
 */
export function readManifest(bytes: Uint8Array): ManifestFiles {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = new Version()
  let parts: Buffer[] | null = null
  let validLength = 0
  let pos = 0
  while (pos < buf.length) {
    const blockLeft = BLOCK - (pos % BLOCK)
    // Fewer bytes than a header left in a block: a zero trailer.
    if (blockLeft < HEADER) {
      pos += blockLeft
      continue
    }
    if (pos + HEADER > buf.length) break
    const length = buf[pos + 4]! | (buf[pos + 5]! << 8)
    const type = buf[pos + 6]! as RecordType
    if (type === RecordType.Zero && length === 0) {
      pos += blockLeft
      continue
    } // preallocated space
    const recyclable = (type >= RecordType.RecyclableFull && type <= RecordType.RecyclableLast) || type === RecordType.RecyclableTimestampSize
    const header = recyclable ? RECYCLABLE_HEADER : HEADER
    if (pos + header + length > buf.length) break
    if (header + length > blockLeft) throw new ManifestFormatError(`record at ${pos} crosses a block boundary`)
    const expected = unmask(buf.readUInt32LE(pos))
    // The CRC covers the type byte, the log number of a recyclable record, and the payload.
    if (crc32c(buf, pos + 6, pos + header + length) !== expected) {
      // A torn write can only be the last record; anywhere else the file is damaged.
      if (pos + header + length === buf.length) break
      throw new ManifestFormatError(`bad CRC in the record at ${pos}`)
    }
    const data = buf.subarray(pos + header, pos + header + length)
    pos += header + length
    switch (type) {
      case RecordType.Full:
      case RecordType.RecyclableFull:
        parts = null
        version.apply(data)
        validLength = pos
        break
      case RecordType.First:
      case RecordType.RecyclableFirst:
        parts = [data]
        break
      case RecordType.Middle:
      case RecordType.RecyclableMiddle:
        if (parts === null) throw new ManifestFormatError(`middle fragment without a first one at ${pos}`)
        parts.push(data)
        break
      case RecordType.Last:
      case RecordType.RecyclableLast:
        if (parts === null) throw new ManifestFormatError(`last fragment without a first one at ${pos}`)
        parts.push(data)
        version.apply(Buffer.concat(parts))
        parts = null
        validLength = pos
        break
      case RecordType.SetCompression:
      case RecordType.TimestampSize:
      case RecordType.RecyclableTimestampSize:
        // Metadata records: nothing about files.
        if (parts === null) validLength = pos
        break
      default:
        throw new ManifestFormatError(`unknown record type ${type as number} at ${pos}`)
    }
  }
  return { tableFiles: version.liveFiles(), validLength }
}

// ------------------------------------------------------------------ version edits (db/version_edit.h)

const enum Tag {
  Comparator = 1,
  LogNumber = 2,
  NextFileNumber = 3,
  LastSequence = 4,
  CompactCursor = 5,
  DeletedFile = 6,
  NewFile = 7,
  PrevLogNumber = 9,
  MinLogNumberToKeep = 10,
  NewFile2 = 100,
  NewFile3 = 102,
  NewFile4 = 103,
  ColumnFamily = 200,
  ColumnFamilyAdd = 201,
  ColumnFamilyDrop = 202,
  MaxColumnFamily = 203,
  InAtomicGroup = 300,
  BlobFileAddition = 400,
  BlobFileGarbage = 401,
  /** Tags with this bit set are forward compatible: a length-prefixed payload anyone may skip. */
  SafeIgnore = 1 << 13,
}
/** Ends the custom fields of a NewFile4 entry. */
const CUSTOM_TERMINATE = 1

/** Files per column family, as the edits so far leave them. */
class Version {
  private readonly families = new Map<number, Set<number>>([[0, new Set()]])

  apply(edit: Buffer): void {
    const r = new Reader(edit)
    let cf = 0
    const added: number[] = []
    const deleted: number[] = []
    let drop = false
    while (!r.done()) {
      const tag = r.varint()
      switch (tag) {
        case Tag.Comparator:
        case Tag.ColumnFamilyAdd:
        case Tag.BlobFileAddition:
        case Tag.BlobFileGarbage:
          r.slice()
          break
        case Tag.LogNumber:
        case Tag.NextFileNumber:
        case Tag.LastSequence:
        case Tag.PrevLogNumber:
        case Tag.MinLogNumberToKeep:
          r.varint()
          break
        case Tag.CompactCursor:
          r.varint()
          r.slice()
          break
        case Tag.DeletedFile:
          r.varint()
          deleted.push(r.varint())
          break
        case Tag.NewFile:
          r.varint()
          added.push(r.varint())
          r.varint()
          r.slice()
          r.slice()
          break
        case Tag.NewFile2:
          r.varint()
          added.push(r.varint())
          r.varint()
          r.slice()
          r.slice()
          r.varint()
          r.varint()
          break
        case Tag.NewFile3:
          r.varint()
          added.push(r.varint())
          r.varint()
          r.varint()
          r.slice()
          r.slice()
          r.varint()
          r.varint()
          break
        case Tag.NewFile4: {
          r.varint()
          added.push(r.varint())
          r.varint()
          r.slice()
          r.slice()
          r.varint()
          r.varint()
          for (;;) {
            const custom = r.varint()
            if (custom === CUSTOM_TERMINATE) break
            r.slice()
          }
          break
        }
        case Tag.ColumnFamily:
          cf = r.varint()
          break
        case Tag.ColumnFamilyDrop:
          drop = true
          break
        case Tag.MaxColumnFamily:
        case Tag.InAtomicGroup:
          r.varint()
          break
        default:
          if ((tag & Tag.SafeIgnore) === 0) throw new ManifestFormatError(`unknown version edit tag ${tag}`)
          r.slice()
      }
    }
    if (drop) {
      this.families.delete(cf)
      return
    }
    let files = this.families.get(cf)
    if (files === undefined) this.families.set(cf, files = new Set())
    for (const n of deleted) files.delete(n)
    for (const n of added) files.add(n)
  }

  liveFiles(): number[] {
    const all: number[] = []
    for (const files of this.families.values()) all.push(...files)
    return all.sort((a, b) => a - b)
  }
}

class Reader {
  private pos = 0
  constructor(private readonly buf: Buffer) {}

  done(): boolean {
    return this.pos >= this.buf.length
  }

  /** A varint32 or varint64 (exact up to 2^53, which file numbers never reach). */
  varint(): number {
    let result = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new ManifestFormatError('truncated varint in a version edit')
      const b = this.buf[this.pos++]!
      result += (b & 0x7f) * scale
      if ((b & 0x80) === 0) return result
      scale *= 128
    }
    throw new ManifestFormatError('varint longer than 10 bytes in a version edit')
  }

  /** Skips a length-prefixed slice. */
  slice(): void {
    const n = this.varint()
    if (this.pos + n > this.buf.length) throw new ManifestFormatError('truncated field in a version edit')
    this.pos += n
  }
}

// ------------------------------------------------------------------ CRC32C (Castagnoli), masked as RocksDB stores it

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let c = i
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1
    t[i] = c >>> 0
  }
  return t
})()

function crc32c(buf: Buffer, start: number, end: number): number {
  let c = 0xffffffff
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function unmask(masked: number): number {
  const rot = (masked - 0xa282ead8) >>> 0
  return ((rot >>> 17) | (rot << 15)) >>> 0
}
