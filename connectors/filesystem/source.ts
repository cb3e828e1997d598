// The filesystem source: lists the files under 'path' (one split each, read in name order) and turns
// their lines into rows (debezium-json lines into changes, with row kinds), a chunk of ~batchSize rows
// per `next()`. Bad records fail the job with the
// file and line, or are skipped and counted with '<format>.ignore-parse-errors'. Each chunk carries
// its file's byte offset, and a restored reader seeks there. JSON lines are read from the file's bytes
// by JsonFieldScanner (only the columns the job reads; json-scan.ts), the unusual ones as text by
// JsonDecoder, so rows and errors are those of decoding every line's text, but that a column the job
// does not read is NULL and its value unchecked (as in Flink's projected JSON format).
import { open, readdir, stat } from 'node:fs/promises'
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
import { LineReader, type LineStart } from './line-reader.js'
import { resolveFsOptions, type FsConfig } from './options.js'
import { ThreadedFileReader, useDecodeThread } from './decode-thread.js'
import type { ColumnBatchBuilder } from './column-batch.js'
import { FileMetadataReader, hasFileMetadata, recordContext, type FilePartitions } from './file-metadata.js'
import { listPartitionFolders, parseFolder, partitionRow } from './partitions.js'

/**
 * A file split's position after a chunk: the file (its path as listed), the byte offset just after
 * the last line the chunk consumed, that line's number (so errors after a restore name the right
 * line), and whether the file was read to its end.
 *
 * @example { file: '/data/clicks/a.json', offset: 18342, line: 250, ended: false }
 */
export interface FilePosition {
  readonly file: string
  readonly offset: number
  readonly line: number
  readonly ended: boolean
}

/** Where a split starts: at the beginning (null), after a line, or nowhere (already ended). */
export type FileStart = (LineStart & { readonly ended: boolean }) | null

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
  const reader = await createRecordReader(config, files, ctx)
  return ctx === tableCtx ? reader : new FileMetadataReader(reader, files, tableCtx, partitions)
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

async function createRecordReader(config: FsConfig, files: string[], ctx: SourceContext): Promise<SourceReader> {
  const restore = ctx.restoredPositions === undefined
    ? { starts: files.map(() => null), moved: false }
    : await restoreStarts(files, ctx.restoredPositions, config.path, ctx.table)
  const ignoreErrors = config.format === 'csv' ? config.csv.ignoreParseErrors : config.json.ignoreParseErrors
  const decoder = decoderFor(config, ctx)
  const scanner = jsonScanner(decoder, config, ctx)
  // JSON lines read from their bytes can be read and decoded on a thread of their own (decode-thread.ts);
  // other formats, and a thread turned off or not available, read on this one.
  if (scanner !== null && useDecodeThread(config.decodeThread, ctx.table)) return new ThreadedFileReader(files, restore, ctx)
  return new FileSourceReader(files, restore, decoder, scanner, ignoreErrors, ctx)
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

function asFilePosition(p: SplitPosition, split: number, table: string): FilePosition {
  const o = p as Partial<Record<keyof FilePosition, unknown>> | null
  const count = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
  if (typeof o !== 'object' || o === null || typeof o.file !== 'string' || !count(o.offset) || !count(o.line) || typeof o.ended !== 'boolean') {
    throw WeirError.checkpoint(`the checkpoint holds an invalid position for split ${split} of table '${table}': ${JSON.stringify(p)}`, {
      help: `a filesystem source's position is { file, offset, line, ended }; was the checkpoint taken with another connector for '${table}'?`,
    })
  }
  return o as FilePosition
}

/** The further on of two positions of one file (positions of a file only move forward). */
function further(a: FilePosition, b: FilePosition): FilePosition {
  return a.offset !== b.offset ? (a.offset > b.offset ? a : b) : a.ended ? a : b
}

/** Where the listed files start after a restore, and whether a split's position now belongs to another split number. */
export interface Restore {
  readonly starts: FileStart[]
  readonly moved: boolean
}

/**
 * Where each listed file starts after a restore. Positions are matched to files by path, not by
 * split number, so a file added since the checkpoint is read from its start; a file the checkpoint
 * had read from that is gone, or shorter than its offset, is an error: resuming would not give the
 * rows an uninterrupted run would have.
 */
async function restoreStarts(files: readonly string[], restored: readonly (SplitPosition | null)[], path: string, table: string): Promise<Restore> {
  const byFile = new Map<string, FilePosition>()
  let moved = restored.length !== files.length
  for (let split = 0; split < restored.length; split++) {
    const raw = restored[split]
    if (raw === null || raw === undefined) continue
    const p = asFilePosition(raw, split, table)
    // A file can be named twice when its split number moved in an earlier restore (see `moved`).
    const seen = byFile.get(p.file)
    byFile.set(p.file, seen === undefined ? p : further(seen, p))
    if (files[split] !== p.file) moved = true
  }
  const starts: FileStart[] = files.map(() => null)
  for (const p of byFile.values()) {
    const where = `the checkpoint read it up to byte ${p.offset} (line ${p.line})`
    const record = { source: p.file, line: p.line, offset: p.offset }
    const index = files.indexOf(p.file)
    if (index === -1) {
      const exists = await stat(p.file).then(s => s.isFile(), () => false)
      throw WeirError.connector(exists
        ? `cannot resume table '${table}': file '${p.file}' is no longer among the files of path '${path}'; ${where}`
        : `cannot resume table '${table}': file '${p.file}' is missing; ${where}`, {
        record,
        help:
          `a resumed job reads on from where its checkpoint stopped, so the files it was reading must stay; put the file back, or start the job without the checkpoint`,
      })
    }
    const size = await stat(p.file).then(s => s.size, e => {
      throw sourceFsError(e, 'read', p.file, table)
    })
    if (size < p.offset) {
      throw WeirError.connector(`cannot resume table '${table}': file '${p.file}' has ${size} bytes, but ${where}`, {
        record,
        help: `the file was truncated or replaced after the checkpoint; put the original back, or start the job without the checkpoint`,
      })
    }
    if (!p.ended && p.offset > 0 && p.offset < size && !(await followsNewline(p.file, p.offset, table))) {
      throw WeirError.connector(
        `cannot resume table '${table}': file '${p.file}' changed since the checkpoint (byte ${p.offset} no longer follows a line break); ${where}`,
        {
          record,
          help: `files must not be rewritten while a job reads them; put the original back, or start the job without the checkpoint`,
        },
      )
    }
    starts[index] = { offset: p.offset, line: p.line, ended: p.ended }
  }
  return { starts, moved }
}

/** Whether the byte before `offset` is a '\n', as it is at every offset a position records (but the end of a file). */
async function followsNewline(file: string, offset: number, table: string): Promise<boolean> {
  try {
    const handle = await open(file, 'r')
    try {
      const byte = Buffer.alloc(1)
      await handle.read(byte, 0, 1, offset - 1)
      return byte[0] === 10
    } finally {
      await handle.close()
    }
  } catch (e) {
    throw sourceFsError(e, 'read', file, table)
  }
}

export class FileSourceReader implements SourceReader {
  readonly splitCount: number
  private fileIndex = 0
  private lines: LineReader | null = null
  private skipped = 0
  private rowsRead = 0
  private bytesRead = 0
  /** Line where a record spanning several lines (CSV) started. */
  private recordStart = 0
  private recordText = ''

  private readonly starts: readonly FileStart[]
  /** Empty chunks that carry restored positions to their new split numbers, given before any rows. */
  private readonly announce: SourceChunk[] = []
  /** Splits whose end an announcement already reported. */
  private readonly announcedEnd = new Set<number>()
  /** Columns declared NOT NULL (primary key columns are). */
  private readonly notNull: readonly number[]

  constructor(
    private readonly files: readonly string[],
    restore: Restore,
    private readonly decoder: RecordDecoder,
    /** JSON lines: reads them from their bytes (the reader then hands out byte ranges, see `scanLine`). */
    private readonly scanner: JsonFieldScanner | null,
    private readonly ignoreErrors: boolean,
    private readonly ctx: SourceContext,
  ) {
    this.splitCount = files.length
    this.starts = restore.starts
    this.notNull = ctx.schema.flatMap((f, i) => (f.type.nullable ? [] : [i]))
    if (restore.moved) {
      // The files changed since the checkpoint, so split numbers did. Whoever keeps the positions
      // per split number (the runtime, for the next checkpoint) learns each file's at once, instead
      // of keeping, until the file's first chunk, the position restored under that number.
      for (let split = 0; split < files.length; split++) {
        const start = this.starts[split]
        if (start === null || start === undefined) continue
        const position: FilePosition = { file: files[split]!, offset: start.offset, line: start.line, ended: start.ended }
        this.announce.push(start.ended ? { rows: [], split, splitEnded: true, position } : { rows: [], split, position })
        if (start.ended) this.announcedEnd.add(split)
      }
    }
  }

  async next(): Promise<SourceChunk | null> {
    if (this.ctx.signal.aborted) return null
    const announced = this.announce.shift()
    if (announced !== undefined) return announced
    while (this.lines === null && this.announcedEnd.has(this.fileIndex)) this.fileIndex++
    if (this.fileIndex >= this.files.length) return null
    const split = this.fileIndex
    const file = this.files[split]!
    if (this.lines === null) {
      const start = this.starts[split] ?? null
      if (start?.ended === true) {
        // Read to its end before the checkpoint: nothing more, but the split still reports its end.
        this.fileIndex++
        return { rows: [], split, splitEnded: true, position: { file, offset: start.offset, line: start.line, ended: true } satisfies FilePosition }
      }
      this.lines = new LineReader(file, start ?? undefined, { bytes: this.scanner !== null })
    }
    const lines = this.lines
    const out = new ChunkRows()
    const rows = out.rows
    const want = Math.max(1, this.ctx.batchSize)
    const decoder = this.decoder
    const scanner = this.scanner
    while (rows.length < want) {
      if (scanner !== null && this.scanLine(scanner, lines, out, file)) continue
      const line = scanner === null ? lines.nextLine() : null
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
        const position: FilePosition = { file, offset: lines.offset, line: lines.lineNo, ended: true }
        return { rows, ...out.chunkKinds(), split, splitEnded: true, position }
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
        if (this.recordText === '') {
          this.recordStart = lines.lineNo
          this.recordText = line
        } else this.recordText += '\n' + line
        continue
      }
      const nullIn = this.nullInNotNull(result)
      if (nullIn !== -1) {
        const multiLine = this.recordText !== ''
        this.fail(this.notNullError(nullIn), file, multiLine ? this.recordStart : lines.lineNo, multiLine ? this.recordText + '\n' + line : line)
        this.recordText = ''
        continue
      }
      this.recordText = ''
      out.add(result)
    }
    this.rowsRead += rows.length
    // A chunk ends right after a whole record, so no CSV record spans two chunks' positions.
    return { rows, ...out.chunkKinds(), split, position: { file, offset: lines.offset, line: lines.lineNo, ended: false } satisfies FilePosition }
  }
  /**
   * The next chunk of a JSON file read by the scanner, its rows put into `columns` (the decode
   * worker's batches, column-batch.ts) instead of the chunk's `rows` (empty): the rows, positions,
   * errors and skips of `next()`, whose steps it follows for JSON lines (no multi-line records).
   */
  async nextInto(columns: ColumnBatchBuilder): Promise<SourceChunk | null> {
    if (this.ctx.signal.aborted) return null
    const announced = this.announce.shift()
    if (announced !== undefined) return announced
    while (this.lines === null && this.announcedEnd.has(this.fileIndex)) this.fileIndex++
    if (this.fileIndex >= this.files.length) return null
    const split = this.fileIndex
    const file = this.files[split]!
    if (this.lines === null) {
      const start = this.starts[split] ?? null
      if (start?.ended === true) {
        this.fileIndex++
        return { rows: [], split, splitEnded: true, position: { file, offset: start.offset, line: start.line, ended: true } satisfies FilePosition }
      }
      this.lines = new LineReader(file, start ?? undefined, { bytes: true })
    }
    const lines = this.lines
    const scanner = this.scanner!
    const want = Math.max(1, this.ctx.batchSize)
    while (columns.length < want) {
      if (this.scanInto(scanner, lines, columns, file)) continue
      if (this.ctx.signal.aborted) return null
      // The block in hand is given up for the next: the bytes spans point into are copied first.
      columns.release()
      if (await this.fill(lines, file)) continue
      this.bytesRead += lines.bytesRead
      this.lines = null
      this.fileIndex++
      this.rowsRead += columns.length
      return { rows: [], split, splitEnded: true, position: { file, offset: lines.offset, line: lines.lineNo, ended: true } satisfies FilePosition }
    }
    this.rowsRead += columns.length
    return { rows: [], split, position: { file, offset: lines.offset, line: lines.lineNo, ended: false } satisfies FilePosition }
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
  private scanLine(scanner: JsonFieldScanner, lines: LineReader, out: ChunkRows, file: string): boolean {
    if (!lines.nextRange()) return false
    let result: Row | typeof FALLBACK | ReturnType<RecordDecoder['decode']>
    try {
      result = scanner.decode(lines.block, lines.lineStart, lines.lineEnd)
      if (result === FALLBACK) result = this.decoder.decode(lines.lineText())
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      this.fail(e, file, lines.lineNo, lines.lineText())
      return true
    }
    if (result === SKIP || result === MORE) return true
    const nullIn = this.nullInNotNull(result)
    if (nullIn !== -1) {
      this.fail(this.notNullError(nullIn), file, lines.lineNo, lines.lineText())
      return true
    }
    out.add(result)
    return true
  }

  /**
   * `scanLine` into columns: the scanner puts the record's values straight into `out`, the unusual
   * records decoded by JsonDecoder are added as rows; the same errors, checks and skips, in order.
   */
  private scanInto(scanner: JsonFieldScanner, lines: LineReader, out: ColumnBatchBuilder, file: string): boolean {
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
          this.fail(this.notNullError(nullIn), file, lines.lineNo, lines.lineText())
          return true
        }
        out.commit()
        return true
      }
      result = this.decoder.decode(lines.lineText())
    } catch (e) {
      out.dropRow()
      if (!(e instanceof RecordError)) throw e
      this.fail(e, file, lines.lineNo, lines.lineText())
      return true
    }
    if (result === SKIP || result === MORE) return true
    const nullIn = this.nullInNotNull(result)
    if (nullIn !== -1) {
      this.fail(this.notNullError(nullIn), file, lines.lineNo, lines.lineText())
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

  /** Throws the user-facing error for a bad record, or counts it when bad records are skipped. */
  private fail(e: RecordError, file: string, line: number, text: string): void {
    if (this.ignoreErrors) {
      this.skipped++
      return
    }
    throw WeirError.execution(`bad record at ${file}:${line} (table '${this.ctx.table}'): ${e.detail}`, {
      record: { source: file, line, record: text },
      help: `${e.help === undefined ? '' : `${e.help}; or `}set '${this.decoder.ignoreOption}' = 'true' to skip bad records`,
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
    this.announce.length = 0
    if (lines !== null) await lines.close()
  }
}
