// The filesystem JSON source read and decoded on a worker thread of its own (decode-worker.ts), so
// the operators have the main thread to themselves: the worker runs the source's own reader and
// sends its chunks, several to a message, each as a column batch (column-batch.ts) with its split,
// position and the reader's metrics; this reader hands the chunks on one by one, in order, turning
// each batch into rows. The worker reads at most MAX_MESSAGES_AHEAD messages ahead and waits for
// credit, which a message earns when `next()` has handed on its last chunk: positions are only ever
// those of chunks handed on, so a checkpoint never counts what the worker read ahead. The worker starts with the reader (when the job starts) and is terminated
// by close() (job end, cancel or failure), and once it has ended or failed.
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { type ErrorKind, WeirError } from '../../common/errors.js'
import type { SourceChunk, SourceContext, SourceReader, SplitPosition } from '../api.js'
import type { Credit, FromWorker, WorkerInit } from './decode-protocol.js'
import { toRows } from './column-batch.js'
import { startPosition, type FileSplit } from './splits.js'

/**
 * The worker's script: beside this module once built; from the TypeScript sources (tests), the built
 * one in dist/ (a worker cannot load .ts files), which `npx tsc` must have made.
 */
function workerScript(): URL | null {
  const here = import.meta.url
  const url = here.endsWith('.ts') ? new URL('../../dist/connectors/filesystem/decode-worker.js', here) : new URL('./decode-worker.js', here)
  return existsSync(fileURLToPath(url)) ? url : null
}

/**
 * Whether to read on a worker ('source.decode-thread'): 'auto' when each of the source's `subtasks`
 * (running at once, each on a thread) can have a second core for its decode thread — else the decode
 * threads only compete with the subtasks' threads for the cores, and their messages cost more CPU
 * per row than they save; 'true' always (an error when the worker's script is missing), 'false' never.
 */
export function useDecodeThread(setting: 'auto' | 'true' | 'false', table: string, subtasks = 1): boolean {
  if (setting === 'false') return false
  if (workerScript() !== null) return setting === 'true' || availableParallelism() >= 2 * subtasks
  if (setting === 'auto') return false
  throw WeirError.connector(`table '${table}' sets 'source.decode-thread' = 'true', but the decode worker's script is missing`, {
    help: `build Weir (npx tsc -p tsconfig.json), or set 'source.decode-thread' = 'false'`,
  })
}

/** Decode workers started and not yet stopped, in this process (tests check none is left behind). */
let running = 0
export function decodeWorkersRunning(): number {
  return running
}

type Item = FromWorker | { readonly t: 'exit'; readonly error: unknown }

export class ThreadedFileReader implements SourceReader {
  readonly splitCount: number
  readonly startPositions: readonly SplitPosition[]
  private worker: Worker | null
  private readonly queue: Item[] = []
  private waiting: ((item: Item | null) => void) | null = null
  private done = false
  private lastMetrics: Readonly<Record<string, number>> = { skippedRecords: 0, rowsRead: 0, bytesRead: 0, splitsRead: 0 }
  private readonly onAbort = (): void => this.deliver(null)

  constructor(splits: readonly FileSplit[], private readonly ctx: SourceContext) {
    this.splitCount = splits.length
    this.startPositions = splits.map(startPosition)
    const init: WorkerInit = {
      splits,
      table: ctx.table,
      options: ctx.options,
      schema: ctx.schema,
      ...(ctx.metadata === undefined ? {} : { metadata: ctx.metadata }),
      ...(ctx.readColumns === undefined ? {} : { readColumns: ctx.readColumns }),
      batchSize: ctx.batchSize,
    }
    const worker = new Worker(workerScript()!, { workerData: init, name: `weir source ${ctx.table}` })
    this.worker = worker
    running++
    // Only a `next()` waiting for it keeps the process alive (see `next`): a worker never holds it open.
    worker.unref()
    worker.on('message', (m: FromWorker) => this.deliver(m))
    worker.on('error', e => this.deliver({ t: 'exit', error: e }))
    worker.on('exit', code => {
      this.stopped()
      this.deliver({ t: 'exit', error: new Error(`the decode worker exited with code ${code}`) })
    })
    ctx.signal.addEventListener('abort', this.onAbort)
  }

  /** Chunks the worker has sent that `next()` has not handed on yet (read ahead). */
  get chunksAhead(): number {
    return this.queue.reduce((n, m) => n + (m.t === 'chunks' ? m.chunks.length : 0), 0) - this.taken
  }

  /** Chunks of the message at the queue's head already handed on. */
  private taken = 0

  private counted = true
  private stopped(): void {
    if (this.counted) running--
    this.counted = false
  }

  private deliver(item: Item | null): void {
    const waiting = this.waiting
    if (waiting !== null) {
      this.waiting = null
      waiting(item)
    } else if (item !== null) this.queue.push(item)
  }

  async next(): Promise<SourceChunk | null> {
    if (this.done || this.ctx.signal.aborted) return null
    let item: Item | null = this.queue[0] ?? null
    if (item === null) {
      const worker = this.worker
      worker?.ref()
      const delivered = await new Promise<Item | null>(resolve => (this.waiting = resolve))
      worker?.unref()
      if (delivered === null || this.done) return null
      // At the queue's head until its chunks are all taken.
      this.queue.push(delivered)
      item = delivered
    }
    if (item.t !== 'chunks') this.queue.shift()
    switch (item.t) {
      case 'chunks': {
        const chunk = item.chunks[this.taken++]!
        if (this.taken === item.chunks.length) {
          this.queue.shift()
          this.taken = 0
        }
        this.lastMetrics = chunk.metrics
        // The rows hold no view of the buffer (strings and numbers are copied out).
        const rows = toRows(chunk.layout, chunk.buffer)
        if (this.taken === 0) {
          // The message's chunks all taken: their buffers go back to be used again.
          const buffers = item.chunks.map(c => c.buffer)
          const credit: Credit = { t: 'credit', bytes: buffers.reduce((n, b) => n + b.byteLength, 0), buffers }
          this.worker?.postMessage(credit, buffers)
        }
        return {
          rows,
          split: chunk.split,
          ...(chunk.splitEnded ? { splitEnded: true } : {}),
          position: chunk.position,
        }
      }
      case 'end':
        await this.close()
        return null
      case 'error': {
        await this.close()
        if (!item.weir) {
          const e = new Error(item.message)
          if (item.stack !== undefined) e.stack = item.stack
          throw e
        }
        throw new WeirError(item.kind as ErrorKind, item.message, {
          ...(item.record === undefined ? {} : { record: item.record as NonNullable<WeirError['record']> }),
          ...(item.help === undefined ? {} : { help: item.help }),
          ...(item.notes === undefined ? {} : { notes: item.notes }),
        })
      }
      case 'exit':
        await this.close()
        throw WeirError.internal(`the decode worker of table '${this.ctx.table}' stopped: ${(item.error as Error).message ?? String(item.error)}`)
    }
  }

  metrics(): Readonly<Record<string, number>> {
    return this.lastMetrics
  }

  async close(): Promise<void> {
    this.done = true
    this.queue.length = 0
    this.taken = 0
    this.ctx.signal.removeEventListener('abort', this.onAbort)
    this.deliver(null)
    const worker = this.worker
    this.worker = null
    if (worker !== null) {
      worker.removeAllListeners()
      // An 'error' after the listeners are gone must not become an uncaught exception.
      worker.on('error', () => undefined)
      await worker.terminate()
      this.stopped()
    }
  }
}
