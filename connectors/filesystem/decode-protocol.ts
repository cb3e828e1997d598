// The messages between the filesystem source's reader on the main thread (decode-thread.ts) and its
// decode worker (decode-worker.ts).
import type { Field } from '../../common/types.js'
import type { ConnectorOptions, SplitPosition } from '../api.js'
import type { BatchLayout } from './column-batch.js'
import type { FileSplit } from './splits.js'

/** What the worker reads: the reader's splits (each with where it starts), and its context without the signal. */
export interface WorkerInit {
  readonly splits: readonly FileSplit[]
  readonly table: string
  readonly options: ConnectorOptions
  readonly schema: readonly Field[]
  readonly metadata?: readonly (string | null)[]
  readonly readColumns?: readonly boolean[]
  readonly batchSize: number
}

/**
 * Messages the worker may have sent that the main thread has not taken yet (read ahead), and the
 * bytes they may hold: it waits for credit beyond either. One message always may go, however large.
 */
export const MAX_MESSAGES_AHEAD = 3
export const MAX_BYTES_AHEAD = 24 << 20

/**
 * A message carries chunks until they hold this many rows or bytes (or the input ended): each
 * message costs both threads ~40 µs and a wake-up, as much as decoding a few dozen rows.
 */
export const MESSAGE_ROWS = 8192
export const MESSAGE_BYTES = 4 << 20
export const MESSAGE_CHUNKS = 16

/** Chunks of the reader's, in order. */
export interface ChunksMessage {
  readonly t: 'chunks'
  readonly chunks: readonly ChunkPart[]
}

/** A chunk of the reader's (JSON lines: all inserts), its rows as a column batch (column-batch.ts) in `buffer` (transferred). */
export interface ChunkPart {
  readonly split: number
  readonly splitEnded: boolean
  readonly position: SplitPosition
  readonly layout: BatchLayout
  readonly buffer: ArrayBuffer
  /** The worker's reader's metrics right after this chunk. */
  readonly metrics: Readonly<Record<string, number>>
}

/** An error, as WeirError's fields (or a plain error's message and stack) so the main thread can throw the same. */
export interface ErrorMessage {
  readonly t: 'error'
  readonly weir: boolean
  readonly kind?: string
  readonly message: string
  readonly record?: unknown
  readonly help?: string
  readonly notes?: readonly string[]
  readonly stack?: string
}

export type FromWorker = ChunksMessage | ErrorMessage | { readonly t: 'end' }

/** The main thread took a message's chunks, of `bytes` bytes: the worker may send another, into `buffers` (the chunks', decoded, given back). */
export interface Credit {
  readonly t: 'credit'
  readonly bytes: number
  readonly buffers: readonly ArrayBuffer[]
}
