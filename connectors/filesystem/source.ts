// The filesystem source: lists the files under 'path' (one split each, read in name order) and turns
// their lines into rows, a chunk of ~batchSize rows per `next()`. Bad records fail the job with the
// file and line, or are skipped and counted with '<format>.ignore-parse-errors'.
import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import type { Row } from '../../runtime/batch.js'
import type { SourceChunk, SourceContext, SourceReader } from '../api.js'
import { CsvDecoder } from './csv-decoder.js'
import { MORE, RecordError, SKIP, type RecordDecoder } from './decoder.js'
import { JsonDecoder } from './json-decoder.js'
import { LineReader } from './line-reader.js'
import { resolveFsOptions, type FsConfig } from './options.js'

/** The files a source path stands for: the file itself, or a directory's visible regular files by name. */
export async function listSourceFiles(path: string, table: string): Promise<string[]> {
  const full = resolve(path)
  let info
  try {
    info = await stat(full)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw WeirError.connector(`path '${path}' does not exist`, {
        help: `check the 'path' option of table '${table}'; it must name an existing file or directory`,
      })
    }
    throw WeirError.connector(`cannot read path '${path}': ${(e as Error).message}`)
  }
  if (info.isFile()) return [full]
  if (!info.isDirectory()) throw WeirError.connector(`path '${path}' is neither a file nor a directory`)
  const entries = await readdir(full, { withFileTypes: true })
  // Hidden and '_'-prefixed files are in-progress or metadata files (as in Flink and Hadoop); subdirectories are not read.
  return entries
    .filter(e => e.isFile() && !e.name.startsWith('.') && !e.name.startsWith('_'))
    .map(e => e.name)
    .sort()
    .map(name => join(full, name))
}

function decoderFor(config: FsConfig, ctx: SourceContext): RecordDecoder {
  switch (config.format) {
    case 'json': return new JsonDecoder(ctx.schema, config.json)
    case 'csv': return new CsvDecoder(ctx.schema, config.csv)
    case 'debezium-json': throw WeirError.internal('debezium-json source was not rejected')
  }
}

export async function createFileSource(ctx: SourceContext): Promise<SourceReader> {
  const config = resolveFsOptions(ctx.options)
  if (config.format === 'debezium-json') {
    // A SourceChunk carries no row kinds, so a changelog cannot be read back (yet).
    throw WeirError.unsupported(`the filesystem source cannot read format 'debezium-json' (table '${ctx.table}')`, {
      help: `'debezium-json' is written by the filesystem sink only; to read such files, use 'format' = 'json' with columns 'before', 'after' and 'op'`,
    })
  }
  const files = await listSourceFiles(config.path, ctx.table)
  const ignoreErrors = config.format === 'csv' ? config.csv.ignoreParseErrors : config.json.ignoreParseErrors
  return new FileSourceReader(files, decoderFor(config, ctx), ignoreErrors, ctx)
}

class FileSourceReader implements SourceReader {
  readonly splitCount: number
  private fileIndex = 0
  private lines: LineReader | null = null
  private skipped = 0
  private rowsRead = 0
  private bytesRead = 0
  /** Line where a record spanning several lines (CSV) started. */
  private recordStart = 0
  private recordText = ''

  constructor(
    private readonly files: readonly string[],
    private readonly decoder: RecordDecoder,
    private readonly ignoreErrors: boolean,
    private readonly ctx: SourceContext,
  ) {
    this.splitCount = files.length
  }

  async next(): Promise<SourceChunk | null> {
    if (this.ctx.signal.aborted || this.fileIndex >= this.files.length) return null
    const split = this.fileIndex
    const file = this.files[split]!
    this.lines ??= new LineReader(file)
    const lines = this.lines
    const rows: Row[] = []
    const want = Math.max(1, this.ctx.batchSize)
    const decoder = this.decoder
    while (rows.length < want) {
      const line = lines.nextLine()
      if (line === null) {
        if (this.ctx.signal.aborted) return null
        if (await this.fill(lines, file)) continue
        // End of file: an open quoted field is a bad last record.
        if (decoder.reset()) this.fail(new RecordError('unterminated quoted field at end of file'), file, this.recordStart, this.recordText)
        this.recordText = ''
        this.bytesRead += lines.bytesRead
        this.lines = null
        this.fileIndex++
        this.rowsRead += rows.length
        return { rows, split, splitEnded: true }
      }
      let result
      try {
        result = decoder.decode(line)
      } catch (e) {
        if (!(e instanceof RecordError)) throw e
        const multiLine = this.recordText !== ''
        this.fail(e, file, multiLine ? this.recordStart : lines.lineNo, multiLine ? this.recordText + '\n' + line : line)
        this.recordText = ''
        continue
      }
      if (result === SKIP) continue
      if (result === MORE) {
        if (this.recordText === '') { this.recordStart = lines.lineNo; this.recordText = line } else this.recordText += '\n' + line
        continue
      }
      this.recordText = ''
      rows.push(result)
    }
    this.rowsRead += rows.length
    return { rows, split }
  }

  private async fill(lines: LineReader, file: string): Promise<boolean> {
    try {
      return await lines.fill()
    } catch (e) {
      // The file vanished or became unreadable after the listing.
      throw WeirError.execution(`cannot read '${file}' of table '${this.ctx.table}': ${(e as Error).message}`, { cause: e })
    }
  }

  /** Throws the user-facing error for a bad record, or counts it when bad records are skipped. */
  private fail(e: RecordError, file: string, line: number, text: string): void {
    if (this.ignoreErrors) {
      this.skipped++
      return
    }
    throw WeirError.execution(`bad record at ${file}:${line} (table '${this.ctx.table}'): ${e.detail}`, {
      record: { source: file, line, record: text },
      help: `set '${this.decoder.ignoreOption}' = 'true' to skip bad records`,
    })
  }

  metrics(): Readonly<Record<string, number>> {
    return {
      skippedRecords: this.skipped,
      rowsRead: this.rowsRead,
      bytesRead: this.bytesRead + (this.lines?.bytesRead ?? 0),
      filesRead: this.fileIndex,
    }
  }

  async close(): Promise<void> {
    const lines = this.lines
    this.lines = null
    this.fileIndex = this.files.length
    if (lines !== null) await lines.close()
  }
}
