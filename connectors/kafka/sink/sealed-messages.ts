// The exactly-once Kafka sink's sealed messages as bytes: the data it stores in each checkpoint
// beside its commit (connectors/api.ts CommitWithData), instead of JSON in the manifest.
//
// One or more chunks back to back (a chunk holds at most CHUNK_CHARS characters of text, so that
// neither its text nor its decoding reaches V8's limit on a string's length); little-endian:
//
//   'WKM1' | count: u32 | text bytes: u32
//   count × [ flags: u8 | partition: i32 if flags & 4 | key length: u32 if flags & 1 | value length: u32 if flags & 2
//             | timestamp: f64 if flags & 8 | headers length: u32 if flags & (16 | 32) ]
//   text: the keys, values and headers (as JSON) of the messages in order, as one UTF-8 string
//
// Flags: 1 the message has a key, 2 a value (none: a tombstone), 4 a partition (none: chosen by the
// producer, as in checkpoints of earlier versions), 8 a timestamp, 16 headers (the table's 'timestamp'
// and 'headers' metadata: a JSON object of names to text), 32 headers of bytes (a MAP<STRING, BYTES>
// 'headers' column: a JSON array of [name, base64 or null] pairs). Other bits are reserved for fields a message may gain: a decoder refuses
// bits it does not know rather than drop them.
// Lengths count UTF-16 code units: the text is decoded in one call and cut into keys and values by
// length, which costs far less per message than one UTF-8 call per string. (A lone surrogate is
// written as U+FFFD, also one code unit, as it would be when the message is produced.)
import { WeirError } from '../../../common/errors.js'
import type { Message, MessageHeaders } from './messages.js'

const MAGIC = 0x314d4b57 // 'WKM1'
const HEADER = 12
const HAS_KEY = 1
const HAS_VALUE = 2
const HAS_PARTITION = 4
const HAS_TIMESTAMP = 8
const HAS_HEADERS = 16
const HAS_BINARY_HEADERS = 32
const KNOWN_FLAGS = HAS_KEY | HAS_VALUE | HAS_PARTITION | HAS_TIMESTAMP | HAS_HEADERS | HAS_BINARY_HEADERS
/** Characters of keys and values per chunk at most (a single larger message gets a chunk of its own). */
const CHUNK_CHARS = 1 << 25

/** A message's headers as the text stored for them (null: none); pairs of bytes as [name, base64 | null]. */
function headersText(m: Message): string | null {
  const h = m[4]
  if (h === undefined || h === null) return null
  if (!Array.isArray(h)) return JSON.stringify(h)
  const pairs = h as readonly (readonly [string, Uint8Array | null])[]
  return JSON.stringify(pairs.map(([n, v]) => [n, v === null ? null : Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')]))
}

/** Each message's headers as text (null: none), made once for sizing and writing; null when no message has any. */
type HeaderTexts = readonly (string | null)[] | null

const charsOf = (m: Message, headers: string | null | undefined): number => (m[1]?.length ?? 0) + (m[2]?.length ?? 0) + (headers?.length ?? 0)

/**
 * The messages, in order, as bytes that decodeSealedMessages reads back.
 *
 * @example decodeSealedMessages(encodeSealedMessages([[0, 'k', 'v'], [1, 'k2', null]]), 'chk-3')  // the same two messages
 */
export function encodeSealedMessages(messages: readonly Message[]): Buffer {
  const headers: HeaderTexts = messages.some(m => m[4] !== undefined && m[4] !== null) ? messages.map(headersText) : null
  const chunks: Buffer[] = []
  let start = 0
  do {
    let end = start
    let chars = 0
    while (end < messages.length) {
      const n = charsOf(messages[end]!, headers?.[end])
      if (end > start && chars + n > CHUNK_CHARS) break
      chars += n
      end++
    }
    chunks.push(encodeChunk(messages, headers, start, end))
    start = end
  } while (start < messages.length)
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

function encodeChunk(messages: readonly Message[], headerTexts: HeaderTexts, start: number, end: number): Buffer {
  let headerBytes = HEADER
  let chars = 0
  let longest = 0
  for (let i = start; i < end; i++) {
    const m = messages[i]!
    headerBytes += 1 + (m[0] !== null ? 4 : 0) + (m[1] !== null ? 4 : 0) + (m[2] !== null ? 4 : 0) + (m[3] !== undefined && m[3] !== null ? 8 : 0)
      + (m[4] !== undefined && m[4] !== null ? 4 : 0)
    const n = charsOf(m, headerTexts?.[i])
    chars += n
    if (n > longest) longest = n
  }
  // UTF-8 takes up to 3 bytes per UTF-16 code unit, about 1 for the JSON and CSV of most results: room
  // for that, and the buffer grows in the rare case that it is not enough.
  let buf = Buffer.allocUnsafe(headerBytes + chars + (chars >> 3) + 3 * longest)
  const text = (s: string, o: number): number => {
    if (o + 3 * s.length > buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * buf.length, o + 3 * s.length))
      buf.copy(grown, 0, 0, o)
      buf = grown
    }
    // One write per string: far cheaper than joining them all and encoding the whole.
    return o + buf.write(s, o, 'utf8')
  }
  let h = HEADER
  let o = headerBytes
  for (let i = start; i < end; i++) {
    const m = messages[i]!
    const partition = m[0], key = m[1], value = m[2], timestamp = m[3] ?? null, headers = headerTexts?.[i] ?? null
    buf[h++] = (key !== null ? HAS_KEY : 0) | (value !== null ? HAS_VALUE : 0) | (partition !== null ? HAS_PARTITION : 0)
      | (timestamp !== null ? HAS_TIMESTAMP : 0) | (headers === null ? 0 : Array.isArray(m[4]) ? HAS_BINARY_HEADERS : HAS_HEADERS)
    if (partition !== null) h = buf.writeInt32LE(partition, h)
    if (key !== null) {
      h = buf.writeUInt32LE(key.length, h)
      o = text(key, o)
    }
    if (value !== null) {
      h = buf.writeUInt32LE(value.length, h)
      o = text(value, o)
    }
    if (timestamp !== null) h = buf.writeDoubleLE(timestamp, h)
    if (headers !== null) {
      h = buf.writeUInt32LE(headers.length, h)
      o = text(headers, o)
    }
  }
  buf.writeUInt32LE(MAGIC, 0)
  buf.writeUInt32LE(end - start, 4)
  buf.writeUInt32LE(o - headerBytes, 8)
  return buf.subarray(0, o)
}

/** The messages encodeSealedMessages wrote; bytes that do not decode are a checkpoint error naming `where`. */
export function decodeSealedMessages(data: Uint8Array, where: string): Message[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const out: Message[] = []
  const damaged = (what: string): WeirError =>
    WeirError.checkpoint(`the Kafka sink's sealed messages in '${where}' cannot be read: ${what}`, {
      help: 'restore from another checkpoint (this one was written by another version of Weir, or damaged)',
    })
  let o = 0
  while (o < buf.length) {
    if (o + HEADER > buf.length || buf.readUInt32LE(o) !== MAGIC) throw damaged(`no chunk header at byte ${o}`)
    const count = buf.readUInt32LE(o + 4)
    const textBytes = buf.readUInt32LE(o + 8)
    o += HEADER
    const flags = new Uint8Array(count)
    const partitions = new Int32Array(count)
    const keyLengths = new Uint32Array(count)
    const valueLengths = new Uint32Array(count)
    const timestamps = new Float64Array(count)
    const headerLengths = new Uint32Array(count)
    for (let i = 0; i < count; i++) {
      if (o >= buf.length) throw damaged(`it ends inside message ${out.length + i}'s header`)
      const f = flags[i] = buf[o++]!
      if ((f & ~KNOWN_FLAGS) !== 0) throw damaged(`message ${out.length + i} has fields this version does not know (flags ${f})`)
      const need = ((f & HAS_PARTITION) !== 0 ? 4 : 0) + ((f & HAS_KEY) !== 0 ? 4 : 0) + ((f & HAS_VALUE) !== 0 ? 4 : 0)
        + ((f & HAS_TIMESTAMP) !== 0 ? 8 : 0) + ((f & (HAS_HEADERS | HAS_BINARY_HEADERS)) !== 0 ? 4 : 0)
      if (o + need > buf.length) throw damaged(`it ends inside message ${out.length + i}'s header`)
      if ((f & HAS_PARTITION) !== 0) o += (partitions[i] = buf.readInt32LE(o), 4)
      if ((f & HAS_KEY) !== 0) o += (keyLengths[i] = buf.readUInt32LE(o), 4)
      if ((f & HAS_VALUE) !== 0) o += (valueLengths[i] = buf.readUInt32LE(o), 4)
      if ((f & HAS_TIMESTAMP) !== 0) o += (timestamps[i] = buf.readDoubleLE(o), 8)
      if ((f & (HAS_HEADERS | HAS_BINARY_HEADERS)) !== 0) o += (headerLengths[i] = buf.readUInt32LE(o), 4)
    }
    if (o + textBytes > buf.length) throw damaged(`its text is cut short`)
    const text = buf.toString('utf8', o, o + textBytes)
    o += textBytes
    let at = 0
    for (let i = 0; i < count; i++) {
      const f = flags[i]!
      const key = (f & HAS_KEY) !== 0 ? text.slice(at, at += keyLengths[i]!) : null
      const value = (f & HAS_VALUE) !== 0 ? text.slice(at, at += valueLengths[i]!) : null
      const message: Message = [(f & HAS_PARTITION) !== 0 ? partitions[i]! : null, key, value]
      if ((f & (HAS_TIMESTAMP | HAS_HEADERS | HAS_BINARY_HEADERS)) !== 0) {
        const headers = (f & (HAS_HEADERS | HAS_BINARY_HEADERS)) !== 0 ? text.slice(at, at += headerLengths[i]!) : null
        let parsed: MessageHeaders | null = null
        try {
          parsed = headers === null ? null : JSON.parse(headers) as MessageHeaders
        } catch {
          throw damaged(`message ${out.length}'s headers are not JSON`)
        }
        if ((f & HAS_BINARY_HEADERS) !== 0) {
          const pairs = parsed as unknown as readonly [string, string | null][]
          parsed = pairs.map(([n, v]) => [n, v === null ? null : new Uint8Array(Buffer.from(v, 'base64'))] as const)
        }
        message.push((f & HAS_TIMESTAMP) !== 0 ? timestamps[i]! : null, parsed)
      }
      out.push(message)
    }
    if (at !== text.length) throw damaged(`its lengths do not add up to its text`)
  }
  return out
}
