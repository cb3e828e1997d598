// The file a key-group snapshot of the RocksDB backend is written to: a JSON header naming the
// states, then the raw stored (key, value) byte pairs, length-prefixed, then an end mark with the count.
import { open, type FileHandle } from 'node:fs/promises'
import { WeirError } from '../../common/errors.js'

const MAGIC = Buffer.from('WEIRKG1\n', 'latin1')
/** 2: list sequence numbers may be wide (see handle.ts); files of format 1 still load. */
const FORMAT = 'weir-rocksdb-keygroups/2'
const OLD_FORMAT = 'weir-rocksdb-keygroups/1'
const CHUNK = 1 << 20

/** One state as a snapshot names it: its stored id is remapped by name on restore. */
export interface SnapshotState {
  readonly name: string
  readonly id: number
  readonly kind: 'value' | 'list' | 'map'
}

/** What a key-group file starts with. */
export interface KeyGroupFileHeader {
  readonly format: typeof FORMAT | typeof OLD_FORMAT
  readonly maxParallelism: number
  readonly range: { readonly start: number; readonly end: number }
  readonly states: readonly SnapshotState[]
}

/** The header for a file of `range`'s key groups. */
export function keyGroupFileHeader(maxParallelism: number, range: { start: number; end: number }, states: readonly SnapshotState[]): KeyGroupFileHeader {
  return { format: FORMAT, maxParallelism, range: { start: range.start, end: range.end }, states }
}

/** Appends records through a 1 MB buffer. */
export class KeyGroupFileWriter {
  private buf = Buffer.allocUnsafe(CHUNK)
  private pos = 0
  count = 0

  private constructor(private readonly fh: FileHandle) {}

  static async create(path: string, header: KeyGroupFileHeader): Promise<KeyGroupFileWriter> {
    const w = new KeyGroupFileWriter(await open(path, 'w'))
    const json = Buffer.from(JSON.stringify(header), 'utf8')
    await w.put(MAGIC)
    await w.u32(json.length)
    await w.put(json)
    return w
  }

  async add(key: Uint8Array, value: Uint8Array): Promise<void> {
    await this.u32(key.length)
    await this.put(key)
    await this.u32(value.length)
    await this.put(value)
    this.count++
  }

  async finish(): Promise<void> {
    try {
      await this.u32(0)
      await this.u32(this.count)
      await this.drain()
    } finally {
      await this.fh.close()
    }
  }

  async abort(): Promise<void> {
    await this.fh.close().catch(() => undefined)
  }

  private async u32(n: number): Promise<void> {
    if (this.pos + 4 > this.buf.length) await this.drain()
    this.buf.writeUInt32LE(n, this.pos)
    this.pos += 4
  }

  private async put(bytes: Uint8Array): Promise<void> {
    if (this.pos + bytes.length > this.buf.length) await this.drain()
    // writeFile, not write: write() may write only part of the bytes and report success.
    if (bytes.length > this.buf.length) {
      await this.fh.writeFile(bytes)
      return
    }
    this.buf.set(bytes, this.pos)
    this.pos += bytes.length
  }

  private async drain(): Promise<void> {
    if (this.pos === 0) return
    await this.fh.writeFile(this.buf.subarray(0, this.pos))
    this.pos = 0
  }
}

/** An open key-group file: its header, its records (read once), and close() for when they are not read to the end. */
export interface KeyGroupFile {
  readonly header: KeyGroupFileHeader
  records(): AsyncGenerator<{ key: Buffer; value: Buffer }>
  close(): Promise<void>
}

/** Opens a file written by KeyGroupFileWriter and reads its header; the records fail on a truncated file. */
export async function openKeyGroupFile(path: string): Promise<KeyGroupFile> {
  const r = new Reader(await open(path, 'r'))
  try {
    const magic = await r.bytes(MAGIC.length)
    if (magic === null || !magic.equals(MAGIC)) throw bad(path, 'not a key-group snapshot file')
    const len = await r.u32()
    const json = len === null ? null : await r.bytes(len)
    if (json === null) throw bad(path, 'truncated header')
    const header = JSON.parse(json.toString('utf8')) as KeyGroupFileHeader
    if (header.format !== FORMAT && header.format !== OLD_FORMAT) throw bad(path, `unknown format '${String(header.format)}'`)
    return { header, records: () => records(r, path), close: () => r.close() }
  } catch (e) {
    await r.close()
    throw e
  }
}

async function* records(r: Reader, path: string): AsyncGenerator<{ key: Buffer; value: Buffer }> {
  try {
    let count = 0
    for (;;) {
      const klen = await r.u32()
      if (klen === null) throw bad(path, 'truncated (no end mark)')
      if (klen === 0) {
        if ((await r.u32()) !== count) throw bad(path, 'record count does not match')
        return
      }
      const key = await r.bytes(klen)
      const vlen = key === null ? null : await r.u32()
      const value = vlen === null ? null : await r.bytes(vlen)
      if (key === null || value === null) throw bad(path, 'truncated record')
      count++
      yield { key, value }
    }
  } finally {
    await r.close()
  }
}

function bad(path: string, why: string): WeirError {
  return WeirError.execution(`cannot restore state from '${path}': ${why}`, { help: 'the snapshot file is damaged; restore from another checkpoint' })
}

class Reader {
  private buf = Buffer.alloc(0)
  private pos = 0
  private eof = false
  private closed = false

  constructor(private readonly fh: FileHandle) {}

  async u32(): Promise<number | null> {
    const b = await this.bytes(4)
    return b === null ? null : b.readUInt32LE(0)
  }

  /** A copy of the next n bytes, or null at end of file. */
  async bytes(n: number): Promise<Buffer | null> {
    while (this.buf.length - this.pos < n && !this.eof) await this.fill(n)
    if (this.buf.length - this.pos < n) return null
    const out = Buffer.from(this.buf.subarray(this.pos, this.pos + n))
    this.pos += n
    return out
  }

  private async fill(need: number): Promise<void> {
    const rest = this.buf.subarray(this.pos)
    const next = Buffer.allocUnsafe(Math.max(CHUNK, need) + rest.length)
    rest.copy(next, 0)
    const { bytesRead } = await this.fh.read(next, rest.length, next.length - rest.length, null)
    if (bytesRead === 0) this.eof = true
    this.buf = next.subarray(0, rest.length + bytesRead)
    this.pos = 0
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.fh.close()
  }
}
