// The splits of the filesystem source. Every listed file is a split; a 'json' or 'debezium-json' file
// larger than 'source.split-size' is cut into byte ranges of that size. A line belongs to the range
// its first byte is in: a range starting mid-line passes over the rest of that line, and a range reads
// the line that crosses its end to its newline, so every line is read exactly once. 'csv' files are
// read whole (a quoted field may hold a line break, so a byte range cannot tell where records start).
//
// The splits of a source, in file order and then by start, are its canonical list; at parallelism N
// subtask k reads the splits j with j mod N = k, in order. Every subtask lists the files itself, so
// no coordination is needed. A checkpoint holds every split's position (a subtask reports where each
// of its splits starts, SourceReader.startPositions), so a restore at any parallelism rebuilds the
// same list from the positions, whatever their split size was, and deals it again: nothing is lost or
// read twice. At the same parallelism and files each subtask gets back exactly the splits it had.
import { open, stat } from 'node:fs/promises'
import { WeirError } from '../../common/errors.js'
import { fsError } from '../../common/fs-errors.js'
import type { SourceChunk, SourceContext, SplitPosition } from '../api.js'
import type { FsConfig } from './options.js'

/**
 * A byte range of a file: from `start` to `end` (null: to the end of the file), and where it resumes
 * after a restore (null: at its start).
 */
export interface FileSplit {
  readonly file: string
  /** The file's index among the listed files (for its metadata and partition values). */
  readonly fileIndex: number
  readonly start: number
  readonly end: number | null
  readonly resume: { readonly offset: number; readonly line: number; readonly ended: boolean } | null
  /**
   * Restored, but the checkpoint held its position under another split number (files were added, or
   * the parallelism changed): the reader first hands on an empty chunk with it (see `announced`).
   */
  readonly announce?: boolean
}

/**
 * A split's position after a chunk: its file and range (`start`, `end`; left out for a whole file),
 * the byte offset just after the last line the chunk consumed, the lines of the split read so far
 * (the file's line number when the split starts at byte 0), and whether the split was read to its end.
 *
 * @example { file: '/data/clicks/a.json', offset: 18342, line: 250, ended: false },
 *   { file: '/data/big.json', start: 33554432, end: 67108864, offset: 33581919, line: 120, ended: false }
 */
export interface FilePosition {
  readonly file: string
  readonly start?: number
  readonly end?: number | null
  readonly offset: number
  readonly line: number
  readonly ended: boolean
}

/**
 * Whether files of this format are cut into byte ranges: 'json' (a record per line). Not 'csv' (a
 * quoted field may hold a line break) and not 'debezium-json' (its changes must be read in order by
 * one subtask, see `ownSplits`).
 */
export function splitsLines(config: FsConfig): boolean {
  return config.format === 'json'
}

/** The position of `split` after `line` lines, at `offset`. */
export function positionOf(split: FileSplit, offset: number, line: number, ended: boolean): FilePosition {
  if (split.start === 0 && split.end === null) return { file: split.file, offset, line, ended }
  return { file: split.file, start: split.start, end: split.end, offset, line, ended }
}

/** Where `split` starts: its restored position, or its start. */
export function startPosition(split: FileSplit): FilePosition {
  const r = split.resume
  return r === null ? positionOf(split, split.start, 0, false) : positionOf(split, r.offset, r.line, r.ended)
}

/** A file's fresh splits: ranges of `splitSize` bytes, the last to the end of the file. */
function rangesOf(file: string, fileIndex: number, size: number, splitSize: number | null): FileSplit[] {
  const n = splitSize === null ? 1 : Math.max(1, Math.ceil(size / splitSize))
  return Array.from({ length: n }, (_, i) => ({
    file,
    fileIndex,
    start: i * (splitSize ?? 0),
    end: i === n - 1 ? null : (i + 1) * splitSize!,
    resume: null,
  }))
}

/** The splits subtask `ctx.subtask` reads of `files`, fresh or from `ctx.restoredPositions`. */
export async function ownSplits(files: readonly string[], config: FsConfig, ctx: SourceContext): Promise<FileSplit[]> {
  const all = await allSplits(files, config, ctx)
  const index = ctx.subtask?.index ?? 0, parallelism = ctx.subtask?.parallelism ?? 1
  // A changelog is read in the order it was written (a key's update after its insert), by subtask 0 alone.
  const own = config.format === 'debezium-json' ? (index === 0 ? all : []) : all.filter((_, j) => j % parallelism === index)
  const restored = ctx.restoredPositions
  if (restored === undefined) return own
  return own.map((s, j) => (s.resume !== null && !samePosition(restored[j], startPosition(s)) ? { ...s, announce: true } : s))
}

/** Whether a restored position (as stored) is `p`: same file, range and place. */
function samePosition(raw: SplitPosition | null | undefined, p: FilePosition): boolean {
  const o = raw as Partial<FilePosition> | null | undefined
  return typeof o === 'object' && o !== null && o.file === p.file && (o.start ?? 0) === (p.start ?? 0) && (o.end ?? null) === (p.end ?? null) &&
    o.offset === p.offset && o.line === p.line && o.ended === p.ended
}

/**
 * The empty chunks a reader hands on before any rows: each restored split whose position the
 * checkpoint held under another split number gets it under its own number at once. Whoever keeps
 * positions per split number from the restored array (and not from SourceReader.startPositions)
 * then never loses one: a split's old number may meanwhile get another split's rows.
 */
export function announced(splits: readonly FileSplit[]): SourceChunk[] {
  const out: SourceChunk[] = []
  splits.forEach((s, split) => {
    if (s.announce !== true) return
    const position = startPosition(s)
    out.push(s.resume?.ended === true ? { rows: [], split, splitEnded: true, position } : { rows: [], split, position })
  })
  return out
}

/** The canonical list: every file's splits in file order, each file's by start. */
async function allSplits(files: readonly string[], config: FsConfig, ctx: SourceContext): Promise<FileSplit[]> {
  const restored = ctx.restoredPositions === undefined ? new Map<string, FilePosition[]>() : byFile(ctx.restoredPositions, ctx.table)
  for (const file of restored.keys()) if (!files.includes(file)) await missingFile(file, restored.get(file)!, config.path, ctx.table)
  const splitSize = splitsLines(config) ? config.splitSize : null
  const out: FileSplit[] = []
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!
    const positions = restored.get(file)
    // A file only needs its size when it may be cut, or to check restored positions against it.
    const size = splitSize !== null || positions !== undefined ? await sizeOf(file, ctx.table) : 0
    if (positions === undefined) out.push(...rangesOf(file, i, size, splitSize))
    else for (const p of await checkRestored(file, positions, size, ctx.table)) out.push({ ...p, fileIndex: i })
  }
  return out
}

function asFilePosition(p: SplitPosition, split: number, table: string): FilePosition {
  const o = p as Partial<Record<keyof FilePosition, unknown>> | null
  const count = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
  const ok = typeof o === 'object' && o !== null && typeof o.file === 'string' && count(o.offset) && count(o.line) && typeof o.ended === 'boolean' &&
    (o.start === undefined || count(o.start)) && (o.end === undefined || o.end === null || count(o.end))
  if (!ok) {
    throw WeirError.checkpoint(`the checkpoint holds an invalid position for split ${split} of table '${table}': ${JSON.stringify(p)}`, {
      help:
        `a filesystem source's position is { file, offset, line, ended } (and start, end for a byte range); was the checkpoint taken with another connector for '${table}'?`,
    })
  }
  return o as FilePosition
}

/** The restored positions by file, each file's by start; a split named twice keeps the further position. */
function byFile(restored: readonly (SplitPosition | null)[], table: string): Map<string, FilePosition[]> {
  const splits = new Map<string, Map<number, FilePosition>>()
  restored.forEach((raw, i) => {
    if (raw === null || raw === undefined) return
    const p = asFilePosition(raw, i, table)
    const ranges = splits.get(p.file) ?? new Map<number, FilePosition>()
    splits.set(p.file, ranges)
    const start = p.start ?? 0
    const seen = ranges.get(start)
    ranges.set(start, seen === undefined || p.offset > seen.offset || (p.offset === seen.offset && p.ended) ? p : seen)
  })
  return new Map([...splits].map(([file, ranges]) => [file, [...ranges.values()].sort((a, b) => (a.start ?? 0) - (b.start ?? 0))]))
}

/**
 * A file's restored splits, checked: their ranges cover the file from byte 0 to its end once, and
 * each position still fits the file (it was not truncated or rewritten since the checkpoint).
 */
async function checkRestored(file: string, positions: readonly FilePosition[], size: number, table: string): Promise<Omit<FileSplit, 'fileIndex'>[]> {
  let at = 0
  for (const p of positions) {
    const start = p.start ?? 0, end = p.end ?? null
    if (start !== at || (end !== null && end <= start) || (end === null) !== (p === positions.at(-1))) {
      throw WeirError.checkpoint(
        `the checkpoint's splits of file '${file}' (table '${table}') do not cover it once: ranges ${
          positions.map(q => `${q.start ?? 0}–${q.end ?? 'end'}`).join(', ')
        }`,
        { help: 'the checkpoint was not written by this version of Weir, or was edited; start the job without the checkpoint' },
      )
    }
    at = end ?? at
    const lineNote = start === 0 ? ` (line ${p.line})` : ''
    const where = `the checkpoint read it up to byte ${p.offset}${lineNote}`
    const record = { source: file, ...(start === 0 ? { line: p.line } : {}), offset: p.offset }
    if (size < p.offset) {
      throw WeirError.connector(`cannot resume table '${table}': file '${file}' has ${size} bytes, but ${where}`, {
        record,
        help: `the file was truncated or replaced after the checkpoint; put the original back, or start the job without the checkpoint`,
      })
    }
    if (!p.ended && p.offset > start && p.offset < size && !(await followsNewline(file, p.offset, table))) {
      throw WeirError.connector(
        `cannot resume table '${table}': file '${file}' changed since the checkpoint (byte ${p.offset} no longer follows a line break); ${where}`,
        { record, help: `files must not be rewritten while a job reads them; put the original back, or start the job without the checkpoint` },
      )
    }
  }
  return positions.map(p => ({ file, start: p.start ?? 0, end: p.end ?? null, resume: { offset: p.offset, line: p.line, ended: p.ended } }))
}

/** A file the checkpoint read from is gone from the listing: resuming would not give the rows of an uninterrupted run. */
async function missingFile(file: string, positions: readonly FilePosition[], path: string, table: string): Promise<never> {
  const p = positions[0]!
  const where = `the checkpoint read it up to byte ${p.offset}${(p.start ?? 0) === 0 ? ` (line ${p.line})` : ''}`
  const exists = await stat(file).then(s => s.isFile(), () => false)
  throw WeirError.connector(exists
    ? `cannot resume table '${table}': file '${file}' is no longer among the files of path '${path}'; ${where}`
    : `cannot resume table '${table}': file '${file}' is missing; ${where}`, {
    record: { source: file, ...((p.start ?? 0) === 0 ? { line: p.line } : {}), offset: p.offset },
    help:
      `a resumed job reads on from where its checkpoint stopped, so the files it was reading must stay; put the file back, or start the job without the checkpoint`,
  })
}

async function sizeOf(file: string, table: string): Promise<number> {
  return stat(file).then(s => s.size, e => {
    throw readError(e, file, table)
  })
}

function readError(e: unknown, path: string, table: string): WeirError {
  return fsError(e, { kind: 'connector', op: 'read', path, what: `the source of table '${table}'`, setting: `the 'path' option of table '${table}'` })
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
    throw readError(e, file, table)
  }
}
