// What a connector implements: option validation at plan time, and source readers / sink writers at run time.
import type { Field } from '../common/types.js'
import type { Batch, Row } from '../runtime/batch.js'
import type { ChangelogMode } from '../runtime/job-graph.js'

/** A table's WITH options, keys as written (lookups are exact; Flink option keys are lower-case). */
export type ConnectorOptions = Readonly<Record<string, string>>

export interface SourceContext {
  readonly table: string
  readonly options: ConnectorOptions
  /** The table's physical columns, in the order rows must have. */
  readonly schema: readonly Field[]
  /** Aborted on Ctrl-C / job cancel: a waiting `next()` must return null promptly. */
  readonly signal: AbortSignal
  /** Target rows per chunk (a hint; the runtime's batch size, default 1024). */
  readonly batchSize: number
}

/** Rows from one split of a source. */
export interface SourceChunk {
  readonly rows: Row[]
  /** Which split (file, partition, generator) the rows came from; 0 ≤ split < splitCount. */
  readonly split: number
  /** True when this was the split's last chunk. */
  readonly splitEnded?: boolean
}

export interface SourceReader {
  /** Number of splits; the runtime tracks a watermark per split and emits the minimum. */
  readonly splitCount: number
  /** The next chunk (possibly empty rows with splitEnded), or null when every split has ended or the signal aborted. */
  next(): Promise<SourceChunk | null>
  /** Counters the reader keeps, e.g. { skippedRecords } with 'json.ignore-parse-errors'. */
  metrics(): Readonly<Record<string, number>>
  close(): Promise<void>
}

export interface SinkContext {
  readonly table: string
  readonly options: ConnectorOptions
  readonly schema: readonly Field[]
  readonly changelog: ChangelogMode
  readonly primaryKey: readonly number[]
  /** Where the print sink writes lines (stdout for `weir run`; captured in tests and the REPL). */
  readonly println: (line: string) => void
}

export interface SinkWriter {
  write(batch: Batch): void | Promise<void>
  /** Input ended: flush and make everything written visible. */
  finish(): Promise<void>
  /** Job cancelled or failed: release resources. */
  close(): Promise<void>
}

export interface SourceFactory {
  /** Throws a WeirError (kind 'connector') naming the bad or missing option. `schema` is the physical schema. */
  validate(options: ConnectorOptions, schema: readonly Field[]): void
  /** True when the source ends by itself (files; generators with a row count). */
  bounded(options: ConnectorOptions): boolean
  create(ctx: SourceContext): Promise<SourceReader>
}

export interface SinkFactory {
  validate(options: ConnectorOptions, schema: readonly Field[]): void
  /** Whether the sink, with these options, can take -U/+U/-D rows. */
  acceptsUpdates(options: ConnectorOptions): boolean
  create(ctx: SinkContext): Promise<SinkWriter>
}

export interface ConnectorFactory {
  readonly name: string
  readonly source?: SourceFactory
  readonly sink?: SinkFactory
}
