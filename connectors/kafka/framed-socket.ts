// Sockets that hand kafkajs whole responses. A plain socket gives each read (up to 64 KB) as a new
// Buffer, and kafkajs keeps a response's reads until it is whole, then copies them into one
// (Buffer.concat). A fetch response is megabytes: every fetched byte was allocated twice outside
// the JS heap and copied once, and V8 starts a young-generation GC for every 32 MB of such buffers
// (42 of the 122 scavenges of a Kafka q17 job over 1.84M bids, ~12 ms each). Here a socket reads
// into one reused buffer and copies each response into a Buffer of its exact size, known from its
// size prefix (every Kafka response is an int32 size and that many bytes), which kafkajs takes as
// it is: one allocation and one copy per response (kafkajs 2.2.4's connection.js, processData,
// concatenates only when it holds more than one chunk; see dropEmptyRemainder below).
import { createRequire } from 'node:module'
import { connect } from 'node:net'
import type { ISocketFactory } from 'kafkajs'

const require = createRequire(import.meta.url)

const KEEP_ALIVE_DELAY_MS = 60_000
const READ_BYTES = 64 * 1024
/** A response larger than this is a corrupt stream (Kafka's own limit on a fetch is 50 MB by default). */
const MAX_RESPONSE_BYTES = 1 << 30

/**
 * After each response kafkajs keeps the bytes after it as its first chunk, an empty Buffer when the
 * read ended with the response, so the next response (two chunks: that and itself) was still
 * concatenated. An empty chunk holds nothing: dropping it changes nothing but the copy.
 */
function dropEmptyRemainder(): void {
  const Connection = require('kafkajs/src/network/connection.js') as { prototype: { processData(data: Buffer): unknown } }
  const processData = Connection.prototype.processData
  if ((processData as { weirDropsEmpty?: true }).weirDropsEmpty) return
  const wrapped = function(this: { chunks: Buffer[] }, data: Buffer): unknown {
    if (this.chunks.length === 1 && this.chunks[0]!.length === 0) this.chunks = []
    return processData.call(this, data)
  }
  Object.assign(wrapped, { weirDropsEmpty: true })
  Connection.prototype.processData = wrapped
}

/**
 * kafkajs' socket factory for PLAINTEXT connections: each 'data' event is one whole response.
 * (TLS sockets are kafkajs' own: a TLS socket has no `onread`.)
 *
 * @example new Kafka({ brokers, socketFactory: framedSockets })
 */
export const framedSockets: ISocketFactory = ({ host, port, onConnect }) => {
  // Here, not at load: kafkajs is loaded only by jobs with Kafka tables (client.ts).
  dropEmptyRemainder()
  const framer = new ResponseFramer()
  const socket = connect({ host, port, onread: { buffer: Buffer.allocUnsafe(READ_BYTES), callback: (n, buf) => framer.read(buf, n) } }, onConnect)
  framer.socket = socket
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS)
  return socket
}

/** What a framer hands responses to: its socket. */
export interface FrameTarget {
  emit(event: 'data', response: Buffer): unknown
  destroy(error: Error): unknown
}

/** Cuts a socket's bytes into Kafka responses (int32 size, then that many bytes), each emitted as 'data'. */
export class ResponseFramer {
  socket: FrameTarget | null = null
  private readonly head = Buffer.alloc(4)
  private headBytes = 0
  private frame: Buffer | null = null
  private filled = 0

  /** Takes `n` bytes read into `buf` (reused by the next read: copied out before this returns). */
  read(buf: Uint8Array, n: number): boolean {
    let at = 0
    while (at < n) {
      let frame = this.frame
      if (frame === null) {
        const take = Math.min(4 - this.headBytes, n - at)
        this.head.set(buf.subarray(at, at + take), this.headBytes)
        this.headBytes += take
        at += take
        if (this.headBytes < 4) break
        this.headBytes = 0
        const size = this.head.readInt32BE(0)
        if (size < 0 || size > MAX_RESPONSE_BYTES) {
          this.socket!.destroy(new Error(`the broker sent a response of ${size} bytes: the connection is not speaking Kafka's protocol`))
          return false
        }
        frame = this.frame = Buffer.allocUnsafe(4 + size)
        frame.set(this.head, 0)
        this.filled = 4
      }
      const take = Math.min(frame.length - this.filled, n - at)
      frame.set(buf.subarray(at, at + take), this.filled)
      this.filled += take
      at += take
      if (this.filled === frame.length) {
        this.frame = null
        this.socket!.emit('data', frame)
      }
    }
    return true
  }
}
