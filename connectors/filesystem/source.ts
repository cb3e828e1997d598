// The filesystem source: lists the files under 'path' (in name order), cuts them into splits (whole
// files, or byte ranges of large JSON files; splits.ts) shared by the source's subtasks, and turns
// their lines into rows (debezium-json lines into changes, with row kinds), a chunk of ~batchSize rows
// per `next()`. Bad records fail the job with the file and line (or byte offset, in a range that
// starts mid-file), or are skipped and counted with '<format>.ignore-parse-errors'. Each chunk carries
// its split's byte offset, and a restored reader seeks there. JSON lines are read from the file's bytes
// by JsonFieldScanner (only the columns the job reads; json-scan.ts), the unusual ones as text by
// JsonDecoder, so rows and errors are those of decoding every line's text, but that a column the job
// does not read is NULL and its value unchecked (as in Flink's projected JSON format).
import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { fsError, type FsOperation } from '../../common/fs-errors.js'
import type { Row } from '../../core/batch.js'
import type { SourceChunk, SourceContext, SourceReader, SplitPosition } from '../api.js'
import { CsvDecoder } from './csv-decoder.js'
import { DebeziumDecoder } from './debezium-decoder.js'
import { ChunkRows, MORE, RecordError, rowsOf, SKIP, type Changes, type RecordDecoder } from './decoder.js'
import { JsonDecoder } from './json-decoder.js'
import { FALLBACK, JsonFieldScanner } from './json-scan.js'
import { LineReader } from './line-reader.js'
import { resolveFsOptions, type FsConfig } from './options.js'
import { ThreadedFileReader, useDecodeThread } from './decode-thread.js'
import type { ColumnBatchBuilder } from './column-batch.js'
import { FileMetadataReader, hasFileMetadata, recordContext, type FilePartitions } from './file-metadata.js'
import { listPartitionFolders, parseFolder, partitionRow } from './partitions.js'
import { announced, ownSplits, positionOf, startPosition, type FileSplit } from './splits.js'

/** A failed file-system call on a path of table `table`'s source. */
function sourceFsError(e: unknown, op: FsOperation, path: string, table: string): WeirError {
  return fsError(e, { kind: 'connector', op, path, what: `the source of table '${table}'`, setting: `the 'path' option of table '${table}'` })
}

/** The files a source path stands for: the file itself, or a directory's visible regular files by name. */
export async function listSourceFiles(path: string, table: string): Promise<string[]> {
  const full = resolve(path)
  let info
  try {
    info = await stat(full)
  } catch (e) {
    throw sourceFsError(e, 'read', full, table)
  }
  if (info.isFile()) return [full]
  if (!info.isDirectory()) {
    throw WeirError.connector(`path '${path}' of table '${table}' is neither a file nor a folder`, {
      help: `give a file, or a folder of files, in the 'path' option of table '${table}'`,
    })
  }
  let entries
  try {
    entries = await readdir(full, { withFileTypes: true })
  } catch (e) {
    throw sourceFsError(e, 'list', full, table)
  }
  // Hidden and '_'-prefixed files are in-progress or metadata files (as in Flink and Hadoop); subdirectories are not read.
  const files: string[] = []
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name.startsWith('_')) continue
    // A symbolic link is read as what it points to (a folder of links to files must not read as empty).
    const isFile = e.isSymbolicLink()
      ? await stat(join(full, e.name)).then(s => s.isFile(), (x: unknown) => {
        throw sourceFsError(x, 'read', join(full, e.name), table)
      })
      : e.isFile()
    if (isFile) files.push(e.name)
  }
  return files.sort().map(name => join(full, name))
}

export function decoderFor(config: FsConfig, ctx: SourceContext): RecordDecoder {
  switch (config.format) {
    case 'json':
      return new JsonDecoder(ctx.schema, config.json)
    case 'csv':
      return new CsvDecoder(ctx.schema, config.csv)
    case 'debezium-json':
      return new DebeziumDecoder(ctx.schema, config.json, config.schemaInclude)
  }
}

export async function createFileSource(tableCtx: SourceContext): Promise<SourceReader> {
  const config = resolveFsOptions(tableCtx.options)
  const keys = tableCtx.partitionKeys ?? []
  const { files, partitions } = keys.length === 0
    ? { files: await listSourceFiles(config.path, tableCtx.table), partitions: undefined }
    : await listPartitionedFiles(config.path, keys, tableCtx, config.defaultPartition)
  // Metadata and partition columns (file-metadata.ts) are added around a reader of the record's columns.
  const ctx = hasFileMetadata(tableCtx) ? recordContext(tableCtx) : tableCtx
  const splits = await ownSplits(files, config, tableCtx)
  const reader = createRecordReader(config, splits, ctx)
  return ctx === tableCtx ? reader : new FileMetadataReader(reader, files, splits.map(s => s.fileIndex), tableCtx, partitions)
}

/**
 * A PARTITIONED BY table's files: those of its partition folders (`k1=v1/k2=v2/…` under 'path'), in
 * folder order, each with its folder's partition values.
 */
async function listPartitionedFiles(
  path: string,
  keys: readonly string[],
  ctx: SourceContext,
  defaultName: string,
): Promise<{ files: string[]; partitions: FilePartitions }> {
  const root = resolve(path)
  const info = await stat(root).catch((e: unknown) => {
    throw sourceFsError(e, 'read', root, ctx.table)
  })
  if (!info.isDirectory()) {
    throw WeirError.connector(`path '${path}' of partitioned table '${ctx.table}' is not a folder`, {
      help: `a PARTITIONED BY table is a folder of partition folders (${keys.map(k => `${k}=…`).join('/')}): give the folder in 'path'`,
    })
  }
  const fields = keys.map(k => ctx.schema.find(f => f.name === k)!)
  const files: string[] = []
  const values: Row[] = []
  for (const folder of await listPartitionFolders(root, keys, ctx.table)) {
    const row = partitionRow(folder, parseFolder(folder, keys, defaultName)!, fields, ctx.table)
    if (ctx.partitionFilter?.(row) === false) continue
    for (const file of await listSourceFiles(join(root, folder), ctx.table)) {
      files.push(file)
      values.push(row)
    }
  }
  return { files, partitions: { keys, values } }
}

function createRecordReader(config: FsConfig, splits: readonly FileSplit[], ctx: SourceContext): SourceReader {
  const ignoreErrors = config.format === 'csv' ? config.csv.ignoreParseErrors : config.json.ignoreParseErrors
  const decoder = decoderFor(config, ctx)
  const scanner = jsonScanner(decoder, config, ctx)
  // JSON lines read from their bytes can be read and decoded on a thread of their own (decode-thread.ts);
  // other formats, and a thread turned off or not available, read on this one.
  if (scanner !== null && useDecodeThread(config.decodeThread, ctx.table, ctx.subtask?.parallelism)) return new ThreadedFileReader(splits, ctx)
  return new FileSourceReader(splits, decoder, scanner, ignoreErrors, ctx)
}

/**
 * The scanner of a 'json' file's lines, over the columns the job reads (and NOT NULL ones, which the
 * reader checks); null for other formats.
 */
export function jsonScanner(decoder: RecordDecoder, config: FsConfig, ctx: SourceContext): JsonFieldScanner | null {
  if (config.format !== 'json' || !(decoder instanceof JsonDecoder)) return null
  // Metadata columns are the wrapper's (file-metadata.ts): every column here is a field of the record.
  if (ctx.metadata?.some(m => m !== null) === true) return null
  return new JsonFieldScanner(decoder, ctx.schema.map(f => f.name), scannedColumns(ctx), config.json.failOnMissingField)
}

/** The columns a 'json' file's scanner reads: those the job reads, and NOT NULL ones (which the reader checks). */
export function scannedColumns(ctx: SourceContext): boolean[] {
  return ctx.schema.map((f, i) => (ctx.readColumns?.[i] ?? true) || !f.type.nullable)
}

/**
 * Reads the splits of one source subtask (splits.ts: whole files, or byte ranges of large ones), one
 * after another in file order, a chunk of ~batchSize rows per `next()`.
 */
export class FileSourceReader implements SourceReader {
  readonly splitCount: number
  /** Every split's start (a checkpoint taken before it is read records it; splits.ts). */
  readonly startPositions: readonly SplitPosition[]
  private splitIndex = 0
  private lines: LineReader | null = null
  private skipped = 0
  private rowsRead = 0
  private bytesRead = 0
  /** Line where a record spanning several lines (CSV) started. */
  private recordStart = 0
  private recordText = ''
  /** Columns declared NOT NULL (primary key columns are). */
  private readonly notNull: readonly number[]
  /** Empty chunks carrying restored positions to their new split numbers, handed on before any rows (splits.ts `announced`). */
  private readonly announce: SourceChunk[]

  constructor(
    private readonly splits: readonly FileSplit[],
    private readonly decoder: RecordDecoder,
    /** JSON lines: reads them from their bytes (the reader then hands out byte ranges, see `scanLine`). */
    private readonly scanner: JsonFieldScanner | null,
    private readonly ignoreErrors: boolean,
    private readonly ctx: SourceContext,
  ) {
    this.splitCount = splits.length
    this.startPositions = splits.map(startPosition)
    this.notNull = ctx.schema.flatMap((f, i) => (f.type.nullable ? [] : [i]))
    this.announce = announced(splits)
  }

  /**
   * The split to read from, its line reader opened; or a chunk that ends a split restored as ended,
   * or null when every split is done.
   */
  private open(bytes: boolean): SourceChunk | LineReader | null {
    if (this.lines !== null) return this.lines
    const announced = this.announce.shift()
    if (announced !== undefined) return announced
    // A split restored as ended whose announcement reported its end has nothing more to say.
    while (this.splitIndex < this.splits.length && this.splits[this.splitIndex]!.announce === true && this.splits[this.splitIndex]!.resume?.ended === true) {
      this.splitIndex++
    }
    if (this.splitIndex >= this.splits.length) return null
    const split = this.splits[this.splitIndex]!
    const resume = split.resume
    if (resume?.ended === true) {
      // Read to its end before the checkpoint: nothing more, but the split still reports its end.
      return { rows: [], split: this.splitIndex++, splitEnded: true, position: startPosition(split) }
    }
    const offset = resume?.offset ?? split.start
    const line = resume?.line ?? 0
    // A byte range ends at its end (a whole file's last range, and a range's errors, want the offsets
    // of lines: an unreachable limit keeps them).
    const ranged = split.start > 0 || split.end !== null
    const limit = split.end ?? (ranged ? Number.MAX_SAFE_INTEGER : Infinity)
    // A range not started yet begins with the rest of the line its first byte is in (if it follows a
    // newline, that rest is the empty line ending at it): read from the byte before, passing that line over.
    // A small range needs no 1 MB blocks (a line longer than the block still grows it).
    const blockBytes = split.end === null ? undefined : Math.min(1 << 20, Math.max(1 << 16, split.end - offset + 1))
    this.lines = offset === split.start && split.start > 0
      ? new LineReader(split.file, { offset: offset - 1, line }, { bytes, skipFirst: true, limit, ...(blockBytes === undefined ? {} : { blockBytes }) })
      : new LineReader(split.file, { offset, line }, { bytes, limit, ...(blockBytes === undefined ? {} : { blockBytes }) })
    return this.lines
  }

  /** The end of the split being read: its last chunk's position. */
  private async endSplit(lines: LineReader): Promise<{ split: number; splitEnded: true; position: SplitPosition }> {
    await lines.close()
    this.bytesRead += lines.bytesRead
    this.lines = null
    const split = this.splitIndex++
    return { split, splitEnded: true, position: positionOf(this.splits[split]!, lines.offset, lines.lineNo, true) }
  }

  private positionNow(lines: LineReader): { split: number; position: SplitPosition } {
    return { split: this.splitIndex, position: positionOf(this.splits[this.splitIndex]!, lines.offset, lines.lineNo, false) }
  }

  async next(): Promise<SourceChunk | null> {
    if (this.ctx.signal.aborted) return null
    const opened = this.open(this.scanner !== null)
    if (!(opened instanceof LineReader)) return opened
    const lines = opened
    const file = this.splits[this.splitIndex]!.file
    const out = new ChunkRows()
    const rows = out.rows
    const want = Math.max(1, this.ctx.batchSize)
    const decoder = this.decoder
    const scanner = this.scanner
    while (rows.length < want) {
      if (scanner !== null && this.scanLine(scanner, lines, out)) continue
      const line = scanner === null ? lines.nextLine() : null
      if (line === null) {
        if (this.ctx.signal.aborted) return null
        if (await this.fill(lines, file)) continue
        // End of file: an open quoted field is a bad last record.
        if (decoder.reset()) this.fail(new RecordError('unterminated quoted field at end of file'), lines, this.recordStart, this.recordText)
        this.recordText = ''
        this.rowsRead += rows.length
        return { rows, ...out.chunkKinds(), ...(await this.endSplit(lines)) }
      }
      let result
      try {
        result = decoder.decode(line)
      } catch (e) {
        if (!(e instanceof RecordError)) throw e
        const multiLine = this.recordText !== ''
        this.fail(e, lines, multiLine ? this.recordStart : lines.lineNo, multiLine ? this.recordText + '\n' + line : line)
        this.recordText = ''
        continue
      }
      if (result === SKIP) continue
      if (result === MORE) {
        if (this.recordText === '') {
          this.recordStart = lines.lineNo
          this.recordText = line
        } else this.recordText += '\n' + line
        continue
      }
      const nullIn = this.nullInNotNull(result)
      if (nullIn !== -1) {
        const multiLine = this.recordText !== ''
        this.fail(this.notNullError(nullIn), lines, multiLine ? this.recordStart : lines.lineNo, multiLine ? this.recordText + '\n' + line : line)
        this.recordText = ''
        continue
      }
      this.recordText = ''
      out.add(result)
    }
    this.rowsRead += rows.length
    // A chunk ends right after a whole record, so no CSV record spans two chunks' positions.
    return { rows, ...out.chunkKinds(), ...this.positionNow(lines) }
  }
  /**
   * The next chunk of a JSON file read by the scanner, its rows put into `columns` (the decode
   * worker's batches, column-batch.ts) instead of the chunk's `rows` (empty): the rows, positions,
   * errors and skips of `next()`, whose steps it follows for JSON lines (no multi-line records).
   */
  async nextInto(columns: ColumnBatchBuilder): Promise<SourceChunk | null> {
    if (this.ctx.signal.aborted) return null
    const opened = this.open(true)
    if (!(opened instanceof LineReader)) return opened
    const lines = opened
    const file = this.splits[this.splitIndex]!.file
    const scanner = this.scanner!
    const want = Math.max(1, this.ctx.batchSize)
    while (columns.length < want) {
      if (this.scanInto(scanner, lines, columns)) continue
      if (this.ctx.signal.aborted) return null
      // The block in hand is given up for the next: the bytes spans point into are copied first.
      columns.release()
      if (await this.fill(lines, file)) continue
      this.rowsRead += columns.length
      return { rows: [], ...(await this.endSplit(lines)) }
    }
    this.rowsRead += columns.length
    return { rows: [], ...this.positionNow(lines) }
  }

  /**
   * The first NOT NULL column a decoded record leaves NULL, or -1. Compiled queries trust a NOT NULL
   * type (a primary key column's too): a NULL must not get in.
   */
  private nullInNotNull(result: Row | Changes): number {
    return this.notNull.length === 0 ? -1 : this.notNull.find(c => rowsOf(result).some(r => r[c] === null)) ?? -1
  }

  private notNullError(column: number): RecordError {
    const name = this.ctx.schema[column]!.name
    return new RecordError(`column '${name}' is NOT NULL, but the record has no value for it`, name)
  }

  /**
   * Byte mode: decodes the next line of the block in hand into `out` (or fails, or skips it); false
   * when the block is used up. The same steps as for a line's text in `next`, JSON having no
   * multi-line records; the text is made only for a FALLBACK or an error.
   */
  private scanLine(scanner: JsonFieldScanner, lines: LineReader, out: ChunkRows): boolean {
    if (!lines.nextRange()) return false
    let result: Row | typeof FALLBACK | ReturnType<RecordDecoder['decode']>
    try {
      result = scanner.decode(lines.block, lines.lineStart, lines.lineEnd)
      if (result === FALLBACK) result = this.decoder.decode(lines.lineText())
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      this.fail(e, lines, lines.lineNo, lines.lineText())
      return true
    }
    if (result === SKIP || result === MORE) return true
    const nullIn = this.nullInNotNull(result)
    if (nullIn !== -1) {
      this.fail(this.notNullError(nullIn), lines, lines.lineNo, lines.lineText())
      return true
    }
    out.add(result)
    return true
  }

  /**
   * `scanLine` into columns: the scanner puts the record's values straight into `out`, the unusual
   * records decoded by JsonDecoder are added as rows; the same errors, checks and skips, in order.
   */
  private scanInto(scanner: JsonFieldScanner, lines: LineReader, out: ColumnBatchBuilder): boolean {
    if (!lines.nextRange()) return false
    let result: ReturnType<RecordDecoder['decode']>
    try {
      const block = lines.block
      if (scanner.scan(block, lines.lineStart, lines.lineEnd)) {
        out.line(block, lines.lineStart, lines.lineEnd)
        scanner.appendTo(out)
        const nullIn = this.notNull.length === 0 ? -1 : this.notNull.find(c => out.isNull(c)) ?? -1
        if (nullIn !== -1) {
          out.dropRow()
          this.fail(this.notNullError(nullIn), lines, lines.lineNo, lines.lineText())
          return true
        }
        out.commit()
        return true
      }
      result = this.decoder.decode(lines.lineText())
    } catch (e) {
      out.dropRow()
      if (!(e instanceof RecordError)) throw e
      this.fail(e, lines, lines.lineNo, lines.lineText())
      return true
    }
    if (result === SKIP || result === MORE) return true
    const nullIn = this.nullInNotNull(result)
    if (nullIn !== -1) {
      this.fail(this.notNullError(nullIn), lines, lines.lineNo, lines.lineText())
      return true
    }
    out.add(rowsOf(result)[0]!)
    return true
  }

  private async fill(lines: LineReader, file: string): Promise<boolean> {
    try {
      return await lines.fill()
    } catch (e) {
      // The file vanished or became unreadable after the listing.
      throw sourceFsError(e, 'read', file, this.ctx.table)
    }
  }

  /**
   * Throws the user-facing error for a bad record (line `line` of the split being read), or counts it
   * when bad records are skipped. A split that starts mid-file does not know its line numbers (it
   * would have to read the file before it): its errors give the line's byte offset instead.
   */
  private fail(e: RecordError, lines: LineReader, line: number, text: string): void {
    if (this.ignoreErrors) {
      this.skipped++
      return
    }
    const split = this.splits[this.splitIndex]!
    const file = split.file
    const where = split.start === 0 ? `${file}:${line}` : `${file} byte ${lines.lineOffset}`
    const note = split.start === 0 ? '' : ` (line number unknown: the file is read in byte ranges of 'source.split-size', this one from byte ${split.start})`
    throw WeirError.execution(`bad record at ${where} (table '${this.ctx.table}'): ${e.detail}${note}`, {
      record: split.start === 0 ? { source: file, line, record: text } : { source: file, offset: lines.lineOffset, record: text },
      help: `${e.help === undefined ? '' : `${e.help}; or `}set '${this.decoder.ignoreOption}' = 'true' to skip bad records`,
    })
  }

  metrics(): Readonly<Record<string, number>> {
    return {
      skippedRecords: this.skipped,
      rowsRead: this.rowsRead,
      bytesRead: this.bytesRead + (this.lines?.bytesRead ?? 0),
      splitsRead: this.splitIndex,
    }
  }

  async close(): Promise<void> {
    const lines = this.lines
    this.lines = null
    this.splitIndex = this.splits.length
    if (lines !== null) await lines.close()
  }
}
