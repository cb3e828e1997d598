// The filesystem source's decode worker: runs the source's own reader (FileSourceReader, so rows,
// positions, errors and skipped records are exactly those of reading on the main thread), which puts
// each chunk's values straight from the file's bytes into a column batch (column-batch.ts), and sends
// the batch, at most a few ahead of what the main thread took.
import { parentPort, workerData } from 'node:worker_threads'
import { isWeirError } from '../../common/errors.js'
import type { SourceContext } from '../api.js'
import { type ChunkPart, type Credit, type ErrorMessage, MAX_BYTES_AHEAD, MAX_MESSAGES_AHEAD, MESSAGE_BYTES, MESSAGE_CHUNKS, MESSAGE_ROWS,
  type WorkerInit } from './decode-protocol.js'
import { resolveFsOptions } from './options.js'
import { ColumnBatchBuilder } from './column-batch.js'
import { decoderFor, FileSourceReader, jsonScanner, scannedColumns } from './source.js'

const port = parentPort!
const init = workerData as WorkerInit

let messagesAhead = 0
let bytesAhead = 0
let wake: (() => void) | null = null
/** Buffers the main thread gave back, to put the next batches into. */
const spares: ArrayBuffer[] = []
port.on('message', (m: Credit) => {
  messagesAhead--
  bytesAhead -= m.bytes
  for (const b of m.buffers) if (spares.length < MESSAGE_CHUNKS * MAX_MESSAGES_AHEAD) spares.push(b)
  const w = wake
  wake = null
  w?.()
})

function errorMessage(e: unknown): ErrorMessage {
  if (isWeirError(e)) {
    const { kind, message, record, help, notes } = e
    return { t: 'error', weir: true, kind, message, record, help, notes, stack: e.stack }
  }
  const err = e instanceof Error ? e : new Error(String(e))
  return { t: 'error', weir: false, message: err.message, stack: err.stack }
}

async function run(): Promise<void> {
  let reader: FileSourceReader | null = null
  try {
    const ctx: SourceContext = {
      table: init.table,
      options: init.options,
      schema: init.schema,
      ...(init.metadata === undefined ? {} : { metadata: init.metadata }),
      ...(init.readColumns === undefined ? {} : { readColumns: init.readColumns }),
      signal: new AbortController().signal,
      batchSize: init.batchSize,
    }
    const config = resolveFsOptions(ctx.options)
    const decoder = decoderFor(config, ctx)
    const scanner = jsonScanner(decoder, config, ctx)
    // createFileSource starts a worker only for a source its scanner reads.
    if (scanner === null) throw new Error(`the decode worker of table '${ctx.table}' got a source that is not read by the JSON scanner`)
    reader = new FileSourceReader(init.splits, decoder, scanner, config.json.ignoreParseErrors, ctx)
    // The columns the scanner fills; the others hold values only for records JsonDecoder decoded.
    const columns = new ColumnBatchBuilder(ctx.schema, scannedColumns(ctx), Math.max(1, ctx.batchSize))
    let parts: ChunkPart[] = []
    let rows = 0
    let bytes = 0
    const send = (): void => {
      const buffers = parts.map(p => p.buffer)
      messagesAhead++
      bytesAhead += bytes
      port.postMessage({ t: 'chunks', chunks: parts }, buffers)
      parts = []
      rows = 0
      bytes = 0
    }
    try {
      for (;;) {
        while (parts.length === 0 && (messagesAhead >= MAX_MESSAGES_AHEAD || (messagesAhead > 0 && bytesAhead >= MAX_BYTES_AHEAD))) {
          await new Promise<void>(resolve => (wake = resolve))
        }
        const chunk = await reader.nextInto(columns)
        if (chunk === null) break
        const { layout, buffer } = columns.finish(spares.pop() ?? null)
        parts.push({ split: chunk.split, splitEnded: chunk.splitEnded === true, position: chunk.position, layout, buffer, metrics: reader.metrics() })
        rows += layout.rows
        bytes += buffer.byteLength
        if (rows >= MESSAGE_ROWS || bytes >= MESSAGE_BYTES || parts.length >= MESSAGE_CHUNKS) send()
      }
    } finally {
      // The chunks read before the end or a failure go first (their rows precede a bad record's error).
      if (parts.length > 0) send()
    }
    await reader.close()
    port.postMessage({ t: 'end' })
  } catch (e) {
    await reader?.close().catch(() => undefined)
    port.postMessage(errorMessage(e))
  }
}

await run()
