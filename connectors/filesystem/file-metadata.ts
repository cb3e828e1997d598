// The metadata a filesystem source offers for `col TYPE METADATA [FROM 'key']` columns, as Flink's
// filesystem connector names them: the file a row was read from (its path, name, size and last
// modification time); and the partition columns of a PARTITIONED BY table, whose values are in the
// names of the folders a file is in. The reader of the record columns runs as without them; each
// chunk's rows get their file's values spliced in at these columns' places.
import { stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { formatType, type DataType, type Field } from '../../common/types.js'
import { fsError } from '../../common/fs-errors.js'
import type { Row } from '../../core/batch.js'
import type { SourceChunk, SourceContext, SourceReader } from '../api.js'
import { about } from '../options.js'
import { closest } from '../../common/names.js'

interface FileFacts {
  readonly path: string
  readonly size: number
  readonly modified: number
  /** The partition columns' values (PARTITIONED BY order), from the file's folder. */
  readonly partition: Row
}

/** A partitioned table's files: per split, its partition values (PARTITIONED BY order). */
export interface FilePartitions {
  readonly keys: readonly string[]
  readonly values: readonly Row[]
}

interface MetadataKey {
  /** The type Flink declares; a column's type must be this (nullability aside). */
  readonly type: DataType['kind']
  readonly typeText: string
  readonly read: (f: FileFacts) => unknown
}

const KEYS: Readonly<Record<string, MetadataKey>> = {
  'file.path': { type: 'STRING', typeText: 'STRING', read: f => f.path },
  'file.name': { type: 'STRING', typeText: 'STRING', read: f => basename(f.path) },
  'file.size': { type: 'BIGINT', typeText: 'BIGINT', read: f => f.size },
  'file.modification-time': { type: 'TIMESTAMP_LTZ', typeText: 'TIMESTAMP_LTZ(3)', read: f => f.modified },
}

/** The metadata keys the filesystem source offers. */
export const FILE_METADATA_KEYS: readonly string[] = Object.keys(KEYS)

/** Checks a filesystem table's metadata columns: known keys, each with Flink's type. */
export function checkFileMetadata(schema: readonly Field[], metadata: readonly (string | null)[] | undefined): void {
  for (const [i, k] of (metadata ?? []).entries()) {
    if (k === null) continue
    const f = schema[i]!
    const spec = KEYS[k]
    if (spec === undefined) {
      const guess = closest(k, FILE_METADATA_KEYS)
      throw about(
        WeirError.connector(`connector 'filesystem' has no metadata '${k}' (column '${f.name}')`, {
          help: `${guess === undefined ? '' : `did you mean '${guess}'? `}the filesystem source offers ${
            FILE_METADATA_KEYS.map(x => `'${x}'`).join(', ')
          }; name one with METADATA FROM '…'`,
        }),
        { column: f.name },
      )
    }
    if (f.type.kind !== spec.type || (f.type.kind === 'TIMESTAMP_LTZ' && f.type.precision !== 3)) {
      throw about(
        WeirError.connector(`metadata '${k}' of connector 'filesystem' is ${spec.typeText}, but column '${f.name}' is declared ${formatType(f.type)}`, {
          help: `declare the column as ${spec.typeText} and CAST it in the query if you need another type`,
        }),
        { column: f.name },
      )
    }
  }
}

/** True when some column of the source is metadata or a partition column. */
export function hasFileMetadata(ctx: SourceContext): boolean {
  return ctx.metadata?.some(m => m !== null) === true || (ctx.partitionKeys ?? []).length > 0
}

/** The context of the reader of the record columns: the table's schema without its metadata and partition columns. */
export function recordContext(ctx: SourceContext): SourceContext {
  const keys = ctx.partitionKeys ?? []
  const keep = ctx.schema.map((f, i) => (ctx.metadata?.[i] ?? null) === null && !keys.includes(f.name))
  const { metadata: _, partitionKeys: __, ...rest } = ctx
  return {
    ...rest,
    schema: ctx.schema.filter((_, i) => keep[i]),
    ...(ctx.readColumns === undefined ? {} : { readColumns: ctx.readColumns.filter((_, i) => keep[i]) }),
  }
}

/**
 * A reader that adds the file metadata columns to the rows of `inner`, which reads the record
 * columns of `files` (split i is a byte range of files[splitFiles[i]]). Each file is looked at once,
 * when its first chunk comes.
 */
export class FileMetadataReader implements SourceReader {
  readonly splitCount: number
  readonly concurrentSplits?: boolean
  readonly startPositions?: SourceReader['startPositions']
  private readonly facts = new Map<number, FileFacts>()
  /** Per table column: the metadata key's reader, or the index of the record column. */
  private readonly columns: ({ read: (f: FileFacts) => unknown } | number)[]

  constructor(
    private readonly inner: SourceReader,
    private readonly files: readonly string[],
    private readonly splitFiles: readonly number[],
    ctx: SourceContext,
    private readonly partitions?: FilePartitions,
  ) {
    this.splitCount = inner.splitCount
    if (inner.concurrentSplits !== undefined) this.concurrentSplits = inner.concurrentSplits
    if (inner.startPositions !== undefined) this.startPositions = inner.startPositions
    let record = 0
    this.columns = ctx.schema.map((f, i) => {
      const key = ctx.metadata?.[i] ?? null
      if (key !== null) return KEYS[key]!
      const p = partitions?.keys.indexOf(f.name) ?? -1
      return p >= 0 ? { read: (facts: FileFacts) => facts.partition[p] } : record++
    })
    this.table = ctx.table
  }
  private readonly table: string

  async next(): Promise<SourceChunk | null> {
    const chunk = await this.inner.next()
    if (chunk === null || chunk.rows.length === 0) return chunk
    const file = this.splitFiles[chunk.split]!
    const facts = this.facts.get(file) ?? await this.look(file)
    const values = this.columns.map(c => (typeof c === 'number' ? undefined : c.read(facts)))
    const rows: Row[] = new Array(chunk.rows.length)
    const n = this.columns.length
    for (let r = 0; r < rows.length; r++) {
      const inRow = chunk.rows[r]!
      const out: Row = new Array(n)
      for (let c = 0; c < n; c++) {
        const col = this.columns[c]!
        out[c] = typeof col === 'number' ? inRow[col] : values[c]
      }
      rows[r] = out
    }
    return { ...chunk, rows }
  }

  private async look(file: number): Promise<FileFacts> {
    const path = this.files[file]!
    let info
    try {
      info = await stat(path)
    } catch (e) {
      throw fsError(e, { kind: 'connector', op: 'read', path, what: `the source of table '${this.table}'`,
        setting: `the 'path' option of table '${this.table}'` })
    }
    const facts = { path, size: info.size, modified: Math.floor(info.mtimeMs), partition: this.partitions?.values[file] ?? [] }
    this.facts.set(file, facts)
    return facts
  }

  checkpointCompleted(checkpointId: number, positions: Parameters<NonNullable<SourceReader['checkpointCompleted']>>[1]): void {
    this.inner.checkpointCompleted?.(checkpointId, positions)
  }

  metrics(): Readonly<Record<string, number>> {
    return this.inner.metrics()
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
