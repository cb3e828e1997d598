// The filesystem sink of a PARTITIONED BY table: each row goes to the folder its partition values
// name (partitions.ts), where a writer of its own (the plain or the exactly-once one, as for a table
// without partitions) writes the row's other columns. A checkpoint's commit holds each folder's
// commit; partitions whose rows are visible are then committed by partition-commit.ts.
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import type { Batch, Row } from '../../core/batch.js'
import type { CommitQuery, CommittedOutput, SinkContext, SinkWriter } from '../api.js'
import { CommitLog } from './commit-log.js'
import type { BatchEncoder } from './encoders.js'
import { sinkFsError } from './part-file.js'
import { cleanFolder, committedOutput, createExactlyOnceWriter, partPrefix, promisedFiles, type FileSinkCommit } from './exactly-once-sink.js'
import { resolveFsOptions, type FsConfig } from './options.js'
import { PartitionCommitter, type Awaiting } from './partition-commit.js'
import { isPartitionFolder, listPartitionFolders, partitionFolder, partitionIndexes } from './partitions.js'

/**
 * What prepareCommit(n) of a partitioned sink returns: the commit of each folder that has something
 * to commit, and the partitions written whose commit policy has not run yet (folder → first write).
 *
 * @example { partitions: { 'dt=2024-05-01': { pending: [ … ] } }, awaiting: { 'dt=2024-05-01': 1714521600000 } }
 */
export interface PartitionedCommit {
  readonly partitions: Readonly<Record<string, FileSinkCommit>>
  readonly awaiting: Readonly<Record<string, number>>
}

/** A writer of one folder; `idle()` when it holds nothing (exactly-once writers only). */
type FolderWriter = SinkWriter & { idle?(): boolean }

/** How the partitioned sink makes a folder's writer: `dir` the folder, `encode` of the rows' other columns. */
export interface FolderWriters {
  readonly ext: string
  readonly encode: BatchEncoder
  /** Without checkpoints: one part per folder, visible at finish(); `overwrite`: replaces the folder's files. */
  readonly plain: (dir: string) => Promise<SinkWriter>
}

function readPartitioned(restored: unknown, keys: readonly string[], table: string): PartitionedCommit {
  const bad = (): WeirError =>
    WeirError.checkpoint(`the checkpoint holds an invalid commit for the partitioned filesystem sink of table '${table}': ${JSON.stringify(restored)}`, {
      help: `was the checkpoint taken before '${table}' was PARTITIONED BY (${keys.join(', ')})? start the job without it`,
    })
  if (typeof restored !== 'object' || restored === null) throw bad()
  const { partitions, awaiting } = restored as Partial<PartitionedCommit>
  if (typeof partitions !== 'object' || partitions === null || typeof awaiting !== 'object' || awaiting === null) throw bad()
  // Folder names lead into the table's path only: `k=v/…` of its own keys.
  for (const folder of [...Object.keys(partitions), ...Object.keys(awaiting)]) {
    if (!isPartitionFolder(folder, keys) || folder.split('/').some(p => p === '.' || p === '..')) throw bad()
  }
  if (!Object.values(awaiting).every(t => typeof t === 'number')) throw bad()
  return { partitions, awaiting }
}

export async function createPartitionedSink(ctx: SinkContext, config: FsConfig, folders: FolderWriters): Promise<SinkWriter> {
  const root = resolve(config.path)
  const keys = ctx.partitionKeys!
  const sink = new PartitionedFileWriter(ctx, config, root, folders)
  if (ctx.exactlyOnce) {
    const restored = ctx.restoredCommit === undefined || ctx.restoredCommit === null ? undefined : readPartitioned(ctx.restoredCommit, keys, ctx.table)
    // The folders the checkpoint promised files in publish them (their writers' recovery); in all
    // others this job's leftovers go.
    for (const [folder, commit] of Object.entries(restored?.partitions ?? {})) await sink.open(folder, commit)
    for (const folder of await listPartitionFolders(root, keys, ctx.table)) {
      if (restored?.partitions[folder] === undefined) await cleanFolder(ctx, join(root, folder))
    }
    for (const [folder, created] of Object.entries(restored?.awaiting ?? {})) sink.reawait(folder, created)
  }
  // INSERT … PARTITION (all keys) OVERWRITE replaces that partition even when the query writes nothing.
  if (ctx.staticPartition !== undefined && ctx.overwrite === true) await sink.writerOf(sink.folderOf(ctx.staticPartition))
  return sink
}

class PartitionedFileWriter implements SinkWriter {
  private readonly writers = new Map<string, FolderWriter>()
  private readonly awaiting = new Map<string, Awaiting>()
  private readonly committer: PartitionCommitter
  private readonly keyIndexes: number[]
  private readonly dataIndexes: number[]
  private readonly keyFields: SinkContext['schema']
  /** Rows of writers that were let go (committedRows counts them). */
  private retiredRows = 0
  private watermark = -Infinity
  private readonly watermarkAt = new Map<number, number>()
  private finished = false
  /** With checkpoints: the first checkpoint prepared after the input ended, whose commit commits every partition. */
  private lastCheckpoint: number | undefined

  constructor(private readonly ctx: SinkContext, private readonly config: FsConfig, private readonly root: string, private readonly folders: FolderWriters) {
    const keys = ctx.partitionKeys!
    this.keyIndexes = partitionIndexes(ctx.schema, keys)
    this.dataIndexes = ctx.schema.flatMap((f, i) => (keys.includes(f.name) ? [] : [i]))
    this.keyFields = this.keyIndexes.map(i => ctx.schema[i]!)
    this.committer = new PartitionCommitter(root, config.partitionCommit, keys, config.defaultPartition, ctx.table)
  }

  folderOf(values: readonly unknown[]): string {
    return partitionFolder(values, this.keyFields, this.config.defaultPartition)
  }

  /** The writer of a folder, made on its first row (with checkpoints, recovering it from `restored`). */
  async writerOf(folder: string): Promise<FolderWriter> {
    return this.writers.get(folder) ?? await this.open(folder, undefined)
  }

  async open(folder: string, restored: FileSinkCommit | undefined): Promise<FolderWriter> {
    const dir = join(this.root, folder)
    await mkdir(dir, { recursive: true }).catch((e: unknown) => {
      throw sinkFsError(e, this.ctx.table, 'create', dir)
    })
    const w: FolderWriter = this.ctx.exactlyOnce
      // A folder opened later than the start was cleaned then (or is new): nothing to recover, its commit record stays.
      ? await createExactlyOnceWriter({ ...this.ctx, restoredCommit: restored ?? { pending: [] } }, dir, this.folders.ext, this.folders.encode)
      : await this.folders.plain(dir)
    this.writers.set(folder, w)
    return w
  }

  reawait(folder: string, created: number): void {
    this.awaiting.set(folder, this.committer.restored(folder, created))
  }

  async write(batch: Batch): Promise<void> {
    const groups = new Map<string, { rows: Row[]; kinds: number[] }>()
    const keyValues: unknown[] = new Array(this.keyIndexes.length)
    for (let r = 0; r < batch.rows.length; r++) {
      const row = batch.rows[r]!
      for (let k = 0; k < keyValues.length; k++) keyValues[k] = row[this.keyIndexes[k]!]
      const folder = this.folderOf(keyValues)
      let g = groups.get(folder)
      if (g === undefined) groups.set(folder, g = { rows: [], kinds: [] })
      g.rows.push(this.dataIndexes.map(i => row[i]))
      g.kinds.push(batch.kinds === null ? 0 : batch.kinds[r]!)
    }
    for (const [folder, g] of groups) {
      const w = await this.writerOf(folder)
      await w.write({ rows: g.rows, kinds: batch.kinds === null ? null : Uint8Array.from(g.kinds) })
      const a = this.awaiting.get(folder)
      if (a === undefined) this.awaiting.set(folder, this.committer.awaiting(folder, Date.now()))
      else a.dirty = true
    }
  }

  onWatermark(watermark: number): void {
    if (watermark > this.watermark) this.watermark = watermark
  }

  committedRows(): number {
    let n = this.retiredRows
    for (const w of this.writers.values()) n += w.committedRows?.() ?? 0
    return n
  }

  async finish(): Promise<void> {
    this.finished = true
    for (const w of this.writers.values()) await w.finish()
    // Without checkpoints the rows are visible now: every partition is done.
    if (!this.ctx.exactlyOnce) await this.commitPartitions(() => true)
  }

  async prepareCommit(checkpointId: number): Promise<PartitionedCommit> {
    const partitions: Record<string, FileSinkCommit> = {}
    for (const [folder, w] of this.writers) {
      const c = await w.prepareCommit!(checkpointId) as FileSinkCommit
      if (c.pending.length > 0 || c.overwrite !== undefined) partitions[folder] = c
    }
    const awaiting: Record<string, number> = {}
    for (const [folder, a] of this.awaiting) {
      if (a.dirty) {
        a.checkpoint = checkpointId
        a.dirty = false
      }
      awaiting[folder] = a.created
    }
    this.watermarkAt.set(checkpointId, this.watermark)
    if (this.finished) this.lastCheckpoint ??= checkpointId
    return { partitions, awaiting }
  }

  async commit(checkpointId: number): Promise<void> {
    for (const w of this.writers.values()) await w.commit!(checkpointId)
    const watermark = this.watermarkAt.get(checkpointId) ?? this.watermark
    for (const id of this.watermarkAt.keys()) if (id <= checkpointId) this.watermarkAt.delete(id)
    const final = this.lastCheckpoint !== undefined && checkpointId >= this.lastCheckpoint
    // An INSERT OVERWRITE's rows become visible at the last commit only.
    if (final || this.ctx.overwrite !== true) {
      const now = Date.now()
      await this.commitPartitions(a => a.checkpoint !== null && a.checkpoint <= checkpointId && (final || this.committer.due(a, now, watermark)))
    }
    // Writers of partitions with nothing in flight go (a stream over time partitions opens new ones forever).
    for (const [folder, w] of this.writers) {
      if (w.idle?.() !== true || this.awaiting.has(folder)) continue
      this.retiredRows += w.committedRows?.() ?? 0
      await w.close()
      this.writers.delete(folder)
    }
  }

  /** Commits the ready partitions; one with rows written since waits again, as a partition written anew. */
  private async commitPartitions(ready: (a: Awaiting) => boolean): Promise<void> {
    for (const [folder, a] of [...this.awaiting]) {
      if (!ready(a)) continue
      await this.committer.commit(folder)
      if (a.dirty) this.awaiting.set(folder, this.committer.awaiting(folder, Date.now()))
      else this.awaiting.delete(folder)
    }
  }

  async close(): Promise<void> {
    for (const w of this.writers.values()) await w.close()
  }
}

/** SinkFactory.committedAfter of a partitioned table: what each partition folder's commit log says. */
export async function partitionedCommittedAfter(query: CommitQuery, checkpointId: number): Promise<CommittedOutput | undefined> {
  const root = resolve(resolveFsOptions(query.options).path)
  const keys = query.partitionKeys!
  const restored = query.restoredCommit === undefined || query.restoredCommit === null ? undefined : readPartitioned(query.restoredCommit, keys, query.table)
  const prefix = partPrefix(query.jobName, query.operatorId)
  const checkpoints = new Set<number>()
  const files: string[] = []
  const logs: string[] = []
  let unlisted = false
  for (const folder of await listPartitionFolders(root, keys, query.table)) {
    const commit = restored?.partitions[folder]
    const promised = new Set(commit === undefined ? [] : promisedFiles(commit, query.table))
    const log = new CommitLog(join(root, folder), prefix)
    const found = await log.visibleAfter(checkpointId, promised)
    if (found.files.length === 0 && !found.unlisted) continue
    found.checkpoints.forEach(c => checkpoints.add(c))
    files.push(...found.files.map(f => `${folder}/${f}`))
    logs.push(log.path)
    unlisted ||= found.unlisted
  }
  return committedOutput(root, [...checkpoints].sort((a, b) => a - b), files, unlisted, logs)
}
