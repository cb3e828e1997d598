// The filesystem sink: writes part files into the 'path' directory under hidden names, so readers
// never see half a file. Without checkpoints, one part per writer, renamed to `part-<uuid>-0000000000.<ext>`
// by finish(); with checkpoints, exactly-once parts per checkpoint (exactly-once-sink.ts).
import { mkdir, rename } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import type { Batch } from '../../core/batch.js'
import type { ConnectorOptions, SinkContext, SinkWriter } from '../api.js'
import { aboutKey } from '../options.js'
import { csvRowEncoder, debeziumEncoder, jsonRowEncoder, type BatchEncoder } from './encoders.js'
import { createExactlyOnceWriter } from './exactly-once-sink.js'
import { resolveFsOptions, type FsConfig } from './options.js'
import { PartFile, sinkFsError } from './part-file.js'
import { partSeq, timeOrderedUuid } from './part-names.js'
import { removeReplaced, visibleFiles } from './overwrite.js'
import { createPartitionedSink } from './partitioned-sink.js'

function batchEncoder(ctx: SinkContext, config: FsConfig): BatchEncoder {
  switch (config.format) {
    case 'json':
    case 'csv': {
      const encodeRow = config.format === 'json' ? jsonRowEncoder(ctx.schema, config.json) : csvRowEncoder(ctx.schema, config.csv)
      return batch => {
        if (batch.kinds !== null && batch.kinds.some(k => k !== 0)) {
          throw WeirError.execution(`the filesystem sink of table '${ctx.table}' received updates, but format '${config.format}' can only append rows`, {
            help: `use 'format' = 'debezium-json' to write a changelog`,
          })
        }
        let s = ''
        for (const row of batch.rows) s += encodeRow(row) + '\n'
        return s
      }
    }
    case 'debezium-json': {
      const encodeChange = debeziumEncoder(ctx.schema, config.json)
      return batch => {
        let s = ''
        const kinds = batch.kinds
        for (let i = 0; i < batch.rows.length; i++) s += encodeChange(batch.rows[i]!, kinds === null ? 0 : kinds[i]!) + '\n'
        return s
      }
    }
  }
}

/**
 * SinkFactory.checkWrite: what the filesystem sink refuses beyond what defines the table. As in
 * Flink, debezium-json writes no schema envelope (its schema is Kafka Connect's).
 */
export function checkFileSinkOptions(options: ConnectorOptions): FsConfig {
  const config = resolveFsOptions(options)
  if (config.schemaInclude) {
    throw aboutKey(WeirError.unsupported(`the filesystem sink cannot write 'debezium-json.schema-include' = 'true'`, {
      help: `write to a table without the option: the sink writes each change event without a schema`,
    }), 'debezium-json.schema-include')
  }
  return config
}

export async function createFileSink(ctx: SinkContext): Promise<SinkWriter> {
  const config = checkFileSinkOptions(ctx.options)
  const dir = resolve(config.path)
  try {
    await mkdir(dir, { recursive: true })
  } catch (e) {
    throw sinkFsError(e, ctx.table, 'create', dir)
  }
  const ext = config.format === 'csv' ? 'csv' : 'json'
  const keys = ctx.partitionKeys ?? []
  if (keys.length > 0) {
    // The files of a partition hold the other columns; its folder's name holds these.
    const encode = batchEncoder({ ...ctx, schema: ctx.schema.filter(f => !keys.includes(f.name)) }, config)
    return createPartitionedSink(ctx, config, { ext, encode, plain: folder => plainWriter(ctx, folder, ext, encode) })
  }
  const encode = batchEncoder(ctx, config)
  if (ctx.exactlyOnce) return createExactlyOnceWriter(ctx, dir, ext, encode)
  return plainWriter(ctx, dir, ext, encode)
}

/** Without checkpoints: one part in `dir`, visible at finish() (replacing the folder's files for INSERT OVERWRITE). */
async function plainWriter(ctx: SinkContext, dir: string, ext: string, encode: BatchEncoder): Promise<SinkWriter> {
  try {
    await mkdir(dir, { recursive: true })
  } catch (e) {
    throw sinkFsError(e, ctx.table, 'create', dir)
  }
  const name = `part-${timeOrderedUuid()}-${partSeq(0)}.${ext}`
  const replaces = ctx.overwrite === true ? await visibleFiles(dir, ctx.table) : []
  return new FileSinkWriter(new PartFile(join(dir, `.${name}.inprogress`), ctx.table), dir, name, encode, ctx.table, replaces)
}

/** Without checkpoints: everything goes to one hidden part, made visible by finish(). */
class FileSinkWriter implements SinkWriter {
  private finished = false
  private rows = 0

  constructor(
    private readonly part: PartFile,
    private readonly dir: string,
    private readonly name: string,
    private readonly encode: BatchEncoder,
    private readonly table: string,
    /** INSERT OVERWRITE: what the table held when the job started, deleted by finish(). */
    private readonly replaces: readonly string[],
  ) {}

  write(batch: Batch): void | Promise<void> {
    if (batch.rows.length === 0) return
    this.rows += batch.rows.length
    return this.part.append(this.encode(batch))
  }

  /** Its one part becomes visible as a whole, at finish(). */
  committedRows(): number {
    return this.finished ? this.rows : 0
  }

  async finish(): Promise<void> {
    if (this.finished) return
    this.finished = true
    // No rows, no file (as in Flink); an overwrite then leaves the table empty.
    const sealed = await this.part.seal(false)
    await removeReplaced(this.dir, this.replaces, this.table)
    if (!sealed) return
    const finalPath = join(this.dir, this.name)
    try {
      await rename(this.part.path, finalPath)
    } catch (e) {
      throw sinkFsError(e, this.table, 'rename', this.part.path, finalPath)
    }
  }

  async close(): Promise<void> {
    if (!this.finished) await this.part.discard()
  }
}
