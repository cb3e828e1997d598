// What a connector implements: option validation at plan time, and source readers / sink writers at run time.
import type { Field } from '../common/types.js'
import type { Batch, Row } from '../core/batch.js'
import type { ChangelogMode } from '../core/job-graph.js'

/** A table's WITH options, keys as written (lookups are exact; Flink option keys are lower-case). */
export type ConnectorOptions = Readonly<Record<string, string>>

export interface SourceContext {
  readonly table: string
  readonly options: ConnectorOptions
  /** The table's physical and metadata columns, in the order rows must have. */
  readonly schema: readonly Field[]
  /**
   * Per schema column: the metadata key of a METADATA column (one of SourceFactory.metadataKeys),
   * or null for a column of the record. Absent: every column is of the record.
   */
  readonly metadata?: readonly (string | null)[]
  /** PARTITIONED BY: the names of schema columns whose values come from the folder a file is in (`k=v` names). */
  readonly partitionKeys?: readonly string[]
  /**
   * Partition pruning: false for partition values (PARTITIONED BY order) whose rows the job's filter
   * drops all of; a source may skip such partitions (it need not: the filter runs on rows too).
   */
  readonly partitionFilter?: (values: Row) => boolean
  /**
   * Per schema column: whether the job reads it (the source's projection, filter or watermark uses
   * it). A reader may leave the others NULL and skip decoding them. Absent: every column is read.
   */
  readonly readColumns?: readonly boolean[]
  /**
   * Which of the source's subtasks this reader is, and how many read the source: a splittable source
   * (SourceFactory.splittable) reads only the splits this subtask owns, chosen by a rule that needs
   * no coordination (a split found while running goes to exactly one subtask). Absent: 0 of 1.
   */
  readonly subtask?: SourceSubtask
  /** Aborted on Ctrl-C / job cancel: a waiting `next()` must return null promptly. */
  readonly signal: AbortSignal
  /** Target rows per chunk (a hint; the runtime's batch size, default 1024). */
  readonly batchSize: number
  /**
   * Where to resume, per split, from a checkpoint: the `position` of the last chunk of that split
   * the checkpoint includes (null: the split had emitted nothing yet). Undefined on a fresh start.
   * A splittable source gets the splits of all its subtasks of the checkpointed run (their number may
   * have changed since): a reader resumes those it owns now and ignores the others.
   * A reader resumes right after each position, so a replay yields exactly the rows that follow;
   * a split whose position says it ended yields one empty chunk with splitEnded. A position that
   * no longer fits (its file is gone or shorter) is a WeirError naming it. Splits that have an
   * identity match positions by it, not by index (the filesystem source: by file path), so the
   * reader's splitCount may differ from this array's length (e.g. a file was added).
   */
  readonly restoredPositions?: readonly (SplitPosition | null)[]
}

/** A reader's place among the subtasks of its source: 0 ≤ index < parallelism. */
export interface SourceSubtask {
  readonly index: number
  readonly parallelism: number
}

/** A split's read position after a chunk: plain JSON (numbers, strings, arrays, objects), stored in checkpoints. */
export type SplitPosition = unknown

/** Rows from one split of a source. */
export interface SourceChunk {
  readonly rows: Row[]
  /**
   * The row kinds of `rows` (core/batch.ts RowKind), from a source whose format is a changelog
   * (debezium-json); absent or null: every row is an insert, as from every insert-only source. A
   * record's rows (an update's -U and +U) are always in one chunk, so a position never splits them.
   */
  readonly kinds?: Uint8Array | null
  /** Which split (file, partition, generator) the rows came from; 0 ≤ split < splitCount. */
  readonly split: number
  /** True when this was the split's last chunk. */
  readonly splitEnded?: boolean
  /**
   * True (on an empty chunk) when the split has had no data for the source's idle timeout: it stops
   * holding the watermark back until its next rows. While every split being read is idle the
   * watermark stays where it is.
   */
  readonly idle?: boolean
  /**
   * The split's position right after this chunk's rows, on every chunk (empty ones too); see
   * SourceContext.restoredPositions.
   * @example { file: '/data/a.json', offset: 18342, line: 250, ended: false } (filesystem), { event: 46000 } (nexmark)
   */
  readonly position: SplitPosition
}

export interface SourceReader {
  /**
   * Number of splits; the runtime tracks a watermark per split and emits the minimum. It may grow
   * while the job runs (Kafka partitions added): a new split's first chunk comes with its index.
   */
  readonly splitCount: number
  /**
   * True when every split is read from the start at once (Kafka partitions): the watermark then
   * waits for each split's first rows. Otherwise (files read one after another) a split counts only
   * once it has given rows, and a split not started yet does not hold the watermark back.
   */
  readonly concurrentSplits?: boolean
  /**
   * Where each split starts (a restored position, or where the startup mode put it), known when the
   * reader is created: a checkpoint taken before a split's first chunk records it. A splittable
   * source gives it: the restored positions it got are those of all subtasks of the earlier run, so
   * the runtime cannot tell which of them are this reader's splits.
   */
  readonly startPositions?: readonly (SplitPosition | null)[]
  /** The next chunk (possibly empty rows with splitEnded), or null when every split has ended or the signal aborted. */
  next(): Promise<SourceChunk | null>
  /**
   * Checkpoint n completed, with `positions` (per split) as it recorded them: a reader may report
   * them elsewhere (Kafka: commit them to the consumer group for monitoring). Must not throw or block.
   */
  checkpointCompleted?(checkpointId: number, positions: readonly (SplitPosition | null)[]): void
  /** Counters the reader keeps, e.g. { skippedRecords } with 'json.ignore-parse-errors'. */
  metrics(): Readonly<Record<string, number>>
  close(): Promise<void>
}

export interface SinkContext {
  readonly table: string
  readonly options: ConnectorOptions
  /** The columns an INSERT writes: the physical ones and the non-VIRTUAL metadata ones, in the table's order. */
  readonly schema: readonly Field[]
  /**
   * Per schema column: the metadata key of a METADATA column (one of SinkFactory.writableMetadataKeys),
   * or null for a column of the record. Absent: every column is of the record.
   */
  readonly metadata?: readonly (string | null)[]
  /** PARTITIONED BY: the names of schema columns whose values name the folders rows are written to (in order). */
  readonly partitionKeys?: readonly string[]
  /**
   * INSERT INTO t PARTITION (k = 'v', …) with every partition column given: the one partition the
   * job writes, as the partition columns' values (INSERT OVERWRITE then replaces that partition only).
   * Absent: each row's values decide.
   */
  readonly staticPartition?: readonly unknown[]
  readonly changelog: ChangelogMode
  readonly primaryKey: readonly number[]
  /** Where the print sink writes lines (stdout for `weir run`; captured in tests and the REPL). */
  readonly println: (line: string) => void
  /** The job's name ('pipeline.name'); a transactional sink tags its pending files with it. */
  readonly jobName: string
  /** The sink's operator id in the plan (stable across runs of the same SQL). */
  readonly operatorId: string
  /**
   * True when the job takes checkpoints: the sink is then exactly-once — rows become visible
   * only through commit(n), and finish() only flushes. False: finish() makes everything visible.
   */
  readonly exactlyOnce: boolean
  /**
   * On recovery: what this sink returned from prepareCommit(n) for the checkpoint being restored.
   * create() first commits what it promised (idempotently: already committed is fine) and
   * discards this job's other pending/in-progress output. Undefined on a fresh start (then
   * leftovers of earlier runs of this job are discarded too).
   */
  readonly restoredCommit?: unknown
  /**
   * On recovery, with restoredCommit: the bytes prepareCommit sealed beside it (a CommitWithData's
   * data), read back from the checkpoint's storage and checked. Undefined when it sealed none.
   */
  readonly restoredData?: Uint8Array
  /** Where a sink reports what the user should know (a guarantee it cannot give); the job's log. */
  readonly log?: (line: string) => void
  /**
   * INSERT OVERWRITE (only for sinks with SinkFactory.overwrite, over a bounded query): what the
   * table held before the job is replaced by what the job writes, when its rows become visible.
   */
  readonly overwrite?: boolean
}

export interface SinkWriter {
  write(batch: Batch): void | Promise<void>
  /**
   * Input ended: flush; and unless exactlyOnce, make everything written visible. With exactlyOnce,
   * rows written since the last prepareCommit stay hidden until the final checkpoint's
   * prepareCommit and commit, and close() without them discards those rows.
   */
  finish(): Promise<void>
  /**
   * Barrier n reached the sink: everything written so far belongs to checkpoint n. Seals it
   * (pending, not yet visible) and returns plain JSON describing it, stored in checkpoint n, or a
   * CommitWithData when what it seals is bulk output (messages), which does not belong in JSON.
   * Sinks without transactions (print, blackhole) do not implement it.
   */
  prepareCommit?(checkpointId: number): Promise<unknown>
  /** Checkpoint n completed: make what prepareCommit(n) and earlier sealed visible. Idempotent. */
  commit?(checkpointId: number): Promise<void>
  /** Job cancelled or failed: release resources. */
  close(): Promise<void>
  /** The sink's input watermark advanced (a partitioned filesystem sink commits partitions by it). */
  onWatermark?(watermark: number): void
  /**
   * Rows this writer has made visible so far: committed (a transactional sink), or made visible by
   * finish(). Without it every row written counts as visible (print, blackhole).
   */
  committedRows?(): number
  /** Rows given to the sink that it dropped instead of writing (a NULL for a NOT NULL column, with 'table.exec.sink.not-null-enforcer' = 'DROP'). */
  droppedRows?(): number
}

export interface SourceFactory {
  /**
   * Throws a WeirError (kind 'connector') naming the bad or missing option. `schema` is the physical
   * and metadata columns; `metadata` as SourceContext.metadata (only connectors with metadataKeys get keys).
   */
  validate(options: ConnectorOptions, schema: readonly Field[], metadata?: readonly (string | null)[], primaryKey?: readonly string[]): void
  /**
   * What reading the table needs beyond what defines it (validate), checked where a query reads it:
   * a Kafka table that is only written needs no consumer group. Throws as validate does.
   */
  checkRead?(options: ConnectorOptions, schema: readonly Field[], metadata?: readonly (string | null)[]): void
  /** The keys a table's `col TYPE METADATA [FROM 'key']` columns may name; none: the planner refuses METADATA columns. */
  readonly metadataKeys?: readonly string[]
  /**
   * True when several readers can share the source, each reading the splits its subtask owns
   * (SourceContext.subtask), and each split's position identifies the split (restoredPositions):
   * the source then runs as 'parallelism.default' subtasks. Otherwise as one.
   */
  readonly splittable?: boolean
  /** True when the source ends by itself (files; generators with a row count). */
  bounded(options: ConnectorOptions): boolean
  /**
   * The changelog its rows form with these options: 'updating' when the format is a changelog
   * (debezium-json gives -U/+U and -D rows), so the planner treats the table like an aggregate's
   * output. Absent: 'insert-only'.
   */
  changelogMode?(options: ConnectorOptions): ChangelogMode
  create(ctx: SourceContext): Promise<SourceReader>
}

/**
 * What prepareCommit returns to keep bulk output out of the checkpoint's manifest: `commit` is
 * stored in the manifest as a plain return value would be (keep it small), and `data` as an object of
 * checkpoint n's own in the checkpoint storage (directory or S3), removed with the checkpoint; a
 * restore gives them back as SinkContext.restoredCommit and restoredData. `data` must not change
 * after prepareCommit returns (it is uploaded in the background).
 *
 * @example return new CommitWithData({ checkpoint: 4, sealed: [{ checkpoint: 4, messages: 812 }] }, encodedMessages)
 */
export class CommitWithData {
  constructor(readonly commit: unknown, readonly data: Uint8Array) {}
}

/** What a transactional sink is asked about before a job restores a checkpoint (see SinkFactory.committedAfter). */
export type CommitQuery = Pick<SinkContext, 'table' | 'options' | 'jobName' | 'operatorId' | 'restoredCommit' | 'partitionKeys'>

/**
 * Output a transactional sink made visible through the commits of checkpoints after a given one,
 * which a job restored from that checkpoint would write again.
 *
 * @example { checkpoints: [7], items: ['part-job-4-sink-0f8e…-3.json'], location: '/data/out', record: '/data/out/.part-job-4-sink-commits.jsonl' }
 */
export interface CommittedOutput {
  /** Ids of the checkpoints (and savepoints) whose commits made it visible, ascending. */
  readonly checkpoints: readonly number[]
  /** What is visible, after "table 't' holds": "rows in 3 files in '/out' ('part-…', …)". */
  readonly description: string
  /**
   * How a user takes it back so that a run from an earlier point writes it once, before "and run
   * again": "delete the files that '/out/_commits' lists for checkpoint 7".
   */
  readonly remedy: string
}

/** "checkpoint 7", "checkpoints 5, 6 and 7", for CommittedOutput's texts. */
export function checkpointList(ids: readonly number[]): string {
  if (ids.length === 0) return 'earlier checkpoints'
  return ids.length === 1 ? `checkpoint ${ids[0]}` : `checkpoints ${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`
}

export interface SinkFactory {
  /**
   * As SourceFactory.validate (for a connector without a source); `primaryKey` names the table's
   * PRIMARY KEY columns (upsert sinks need one); `metadata` as SourceContext.metadata.
   */
  validate(options: ConnectorOptions, schema: readonly Field[], primaryKey?: readonly string[], metadata?: readonly (string | null)[]): void
  /**
   * What writing the table needs beyond what defines it, checked where an INSERT writes it (a table
   * its source can read may hold options its sink refuses). `schema` and `metadata` as in SinkContext.
   * Throws as validate does; the planner points at the option or column the error is about.
   */
  checkWrite?(options: ConnectorOptions, schema: readonly Field[], primaryKey: readonly string[], metadata: readonly (string | null)[]): void
  /**
   * The metadata keys an INSERT may write (Kafka: 'timestamp', 'headers'); a non-VIRTUAL METADATA
   * column with another key makes the table unwritable, as in Flink. None: no METADATA columns.
   */
  readonly writableMetadataKeys?: readonly string[]
  /** True when the sink can replace the table's contents (INSERT OVERWRITE, SinkContext.overwrite). */
  readonly overwrite?: boolean
  /**
   * True when the sink can run as several subtasks, each writing its share on the thread of the input
   * subtask it is chained to, with nothing to commit together (runtime/sink-parallelism.ts): it takes
   * 'sink.parallelism'. Such a writer may be created on a worker thread: its SinkContext.println and
   * log are then unusable, and it must not be transactional (no prepareCommit / commit).
   */
  readonly parallel?: boolean
  /** Whether the sink, with these options, can take -U/+U/-D rows. */
  acceptsUpdates(options: ConnectorOptions): boolean
  /**
   * What the sink makes of -U rows: 'upsert' — it writes updates by the table's PRIMARY KEY and drops
   * -U rows (the +U after one replaces it), so the planner materializes the rows per key in front of it
   * when the query's rows are not unique by that key; 'ignored' — it drops them and nothing depends on
   * them (a blackhole). Absent: it writes them (a changelog). Operators feeding a sink that does not
   * need them emit no -U rows.
   */
  readonly updateBefore?: (options: ConnectorOptions) => 'upsert' | 'ignored'
  /**
   * True when the sink writes an upsert stream (updates by a unique key without -U rows, as a process
   * function with changelog 'upsert' emits) as it comes, needing no normalization in front of it: it
   * shows each row rather than keeping a table (print).
   */
  readonly upsertsAsTheyCome?: boolean
  create(ctx: SinkContext): Promise<SinkWriter>
  /**
   * Transactional sinks: the output of this job's sink (query.jobName, query.operatorId) that is
   * visible because a checkpoint after `checkpointId` committed it (0: any checkpoint), beyond what
   * that checkpoint itself promised (query.restoredCommit; undefined for a start from scratch).
   * A job restored from that checkpoint replays its input from there and writes those rows again,
   * so the engine refuses to fall back past such output. Undefined when there is none.
   */
  committedAfter?(query: CommitQuery, checkpointId: number): Promise<CommittedOutput | undefined>
}

export interface ConnectorFactory {
  readonly name: string
  readonly source?: SourceFactory
  readonly sink?: SinkFactory
  /** Tables of this connector may be PARTITIONED BY columns (SourceContext / SinkContext.partitionKeys). */
  readonly partitioned?: true
}
