// The filesystem sink: writes one part file per writer into the 'path' directory, first under a
// hidden in-progress name, renamed to `part-<uuid>-0.<ext>` by finish() so readers never see half a file.
import { randomUUID } from 'node:crypto'
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import type { Batch } from '../../runtime/batch.js'
import type { SinkContext, SinkWriter } from '../api.js'
import { csvRowEncoder, debeziumEncoder, jsonRowEncoder } from './encoders.js'
import { resolveFsOptions } from './options.js'

const FLUSH_CHARS = 1 << 20

export async function createFileSink(ctx: SinkContext): Promise<SinkWriter> {
  const config = resolveFsOptions(ctx.options)
  const dir = resolve(config.path)
  try {
    await mkdir(dir, { recursive: true })
  } catch (e) {
    throw WeirError.connector(`cannot create sink directory '${config.path}': ${(e as Error).message}`, {
      help: `the filesystem sink's 'path' must be a directory it can write to`,
    })
  }
  const uuid = randomUUID()
  const ext = config.format === 'csv' ? 'csv' : 'json'
  const name = `part-${uuid}-0.${ext}`
  let encode: (batch: Batch) => string
  switch (config.format) {
    case 'json': case 'csv': {
      const encodeRow = config.format === 'json' ? jsonRowEncoder(ctx.schema, config.json) : csvRowEncoder(ctx.schema, config.csv)
      encode = batch => {
        if (batch.kinds !== null && batch.kinds.some(k => k !== 0)) {
          throw WeirError.execution(`the filesystem sink of table '${ctx.table}' received updates, but format '${config.format}' can only append rows`, {
            help: `use 'format' = 'debezium-json' to write a changelog`,
          })
        }
        let s = ''
        for (const row of batch.rows) s += encodeRow(row) + '\n'
        return s
      }
      break
    }
    case 'debezium-json': {
      const encodeChange = debeziumEncoder(ctx.schema, config.json)
      encode = batch => {
        let s = ''
        const kinds = batch.kinds
        for (let i = 0; i < batch.rows.length; i++) s += encodeChange(batch.rows[i]!, kinds === null ? 0 : kinds[i]!) + '\n'
        return s
      }
      break
    }
  }
  return new FileSinkWriter(join(dir, `.${name}.inprogress`), join(dir, name), encode)
}

class FileSinkWriter implements SinkWriter {
  private handle: FileHandle | null = null
  private buffered: string[] = []
  private bufferedChars = 0
  private finished = false

  constructor(
    private readonly inProgressPath: string,
    private readonly finalPath: string,
    private readonly encode: (batch: Batch) => string,
  ) {}

  write(batch: Batch): void | Promise<void> {
    if (batch.rows.length === 0) return
    const text = this.encode(batch)
    this.buffered.push(text)
    this.bufferedChars += text.length
    if (this.bufferedChars >= FLUSH_CHARS) return this.flush()
  }

  private async flush(): Promise<void> {
    if (this.buffered.length === 0) return
    const text = this.buffered.join('')
    this.buffered = []
    this.bufferedChars = 0
    this.handle ??= await open(this.inProgressPath, 'w')
    await this.handle.write(text)
  }

  async finish(): Promise<void> {
    if (this.finished) return
    await this.flush()
    this.finished = true
    // No rows, no file (as in Flink).
    if (this.handle === null) return
    await this.handle.close()
    this.handle = null
    await rename(this.inProgressPath, this.finalPath)
  }

  async close(): Promise<void> {
    const handle = this.handle
    this.handle = null
    this.buffered = []
    if (handle !== null) {
      await handle.close()
      if (!this.finished) await rm(this.inProgressPath, { force: true })
    }
  }
}
