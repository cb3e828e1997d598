// The filesystem source reads JSON lines from the file's bytes (JsonFieldScanner, JsonDecoder for the
// unusual ones): its rows, errors, skip counts and positions must be exactly those of decoding each
// line's text with JsonDecoder (the source's former path, rebuilt here from the file), on a file of
// mixed records, and a restore after any chunk must give the rest.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { SourceChunk, SplitPosition } from '../../connectors/api.js'
import { ThreadedFileReader } from '../../connectors/filesystem/decode-thread.js'
import { RecordError, SKIP } from '../../connectors/filesystem/decoder.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import { JsonDecoder } from '../../connectors/filesystem/json-decoder.js'
import { LineReader } from '../../connectors/filesystem/line-reader.js'
import { resolveFsOptions } from '../../connectors/filesystem/options.js'
import type { Row } from '../../core/batch.js'
import { drain, errorOf, sourceCtx, tempDir } from './helpers.js'

const source = filesystemConnector.source!

const SCHEMA: Field[] = [
  { name: 'id', type: T.int() },
  { name: 'big', type: T.bigint() },
  { name: 'amount', type: T.decimal(20, 4) },
  { name: 's', type: T.string() },
  { name: 'ts', type: T.timestamp(3) },
  { name: 'b', type: T.boolean() },
  { name: 'k', type: T.string(false) },
]

/** One record per entry: valid, invalid JSON, wrong types, unknown keys, case-insensitive keys, non-ASCII, escapes. */
const RECORDS: readonly (string | Buffer)[] = [
  '{"id": 1, "big": 9007199254740993, "amount": 12.5, "s": "plain", "ts": "2024-01-02 03:04:05.678", "b": true, "k": "a"}',
  '',
  '{"id": 2, "s": "héllo 🦀 €", "k": "ü", "extra": {"deep": [1, {"x": "y"}, null]}, "more": [true, false]}',
  '{"id": 3, "k": "b", "s": "esc \\" \\\\ \\u00e9 \\n \\t"}',
  '{"ID": 4, "K": "case-insensitive", "S": "x"}',
  '{"id": "5", "big": "-7", "amount": "0.1", "s": 42, "b": "FALSE", "ts": 1700000000000, "k": "strings"}',
  'not json',
  '{"id": 6, "k": "broken"',
  '[1, 2]',
  '"just a string"',
  '{"id": "abc", "k": "bad int"}',
  '{"id": 7, "ts": "not a time", "k": "bad ts"}',
  '{"id": 8, "amount": 1234567890123456789.5, "k": "too many digits"}',
  '{"id": 9, "s": "no k"}',
  '{"id": 10, "k": null}',
  '   \t ',
  '{"id": 11, "k": "dup", "k": "last wins", "id": 12}',
  '  {"id": 13, "k": "spaces around"}   ',
  '{"id": 14, "k": "unknown keys", "url": "https://example.com/?q=1", "nested": {"a": {"b": [1, 2, {"c": "d"}]}}}',
  '{"id": 15, "k": "exp", "big": 1e3, "amount": -1.25e-2}',
  '{"id": 16, "k": "__proto__ key", "__proto__": {"s": "not a row"}, "constructor": 1}',
  Buffer.concat([Buffer.from('{"id": 17, "k": "bad utf8 '), Buffer.from([0xff, 0xc3]), Buffer.from('"}')]),
  '{"id": 18, "k": "control \u0001 in string"}',
  '{"id": 19, "k": "3000000000 is no INT", "big": 1, "s": null}',
  '{"id":20,"k":"compact","s":"ß","ts":"2024-02-29 23:59:59"}',
  '{}',
  '{"id": 21, "k": "last line"}',
]

/** The file's bytes: a BOM, CRLF endings on every third line, and `final` after the last line. */
function fileBytes(records: readonly (string | Buffer)[], final = '\n'): Buffer {
  const parts: Buffer[] = [Buffer.from('\uFEFF')]
  records.forEach((r, i) => {
    parts.push(typeof r === 'string' ? Buffer.from(r) : r)
    if (i < records.length - 1 || final !== '') parts.push(Buffer.from(i % 3 === 2 ? '\r\n' : final === '' ? '\n' : final))
  })
  return Buffer.concat(parts)
}

interface Expected {
  /** Per line that gives a row: the row, and the position after it. */
  readonly rows: { readonly row: Row; readonly line: number; readonly offset: number }[]
  readonly bad: { readonly line: number; readonly text: string; readonly detail: string; readonly help?: string }[]
  readonly lines: number
}

/** What decoding each line's text with JsonDecoder gives (the source's string path), with NOT NULL checks. */
function expected(bytes: Buffer, schema: readonly Field[], options: Record<string, string> = {}): Expected {
  const decoder = new JsonDecoder(schema, resolveFsOptions({ path: 'x', ...options }).json)
  const rows: Expected['rows'][number][] = []
  const bad: Expected['bad'][number][] = []
  let start = bytes.subarray(0, 3).equals(Buffer.from('\uFEFF')) ? 3 : 0
  let line = 0
  while (start < bytes.length) {
    const nl = bytes.indexOf(10, start)
    const next = nl === -1 ? bytes.length : nl + 1
    let end = nl === -1 ? bytes.length : nl
    if (end > start && bytes[end - 1] === 13) end--
    const text = bytes.toString('utf8', start, end)
    line++
    start = next
    try {
      const row = decoder.decode(text)
      if (row === SKIP) continue
      const nullIn = schema.findIndex((f, i) => !f.type.nullable && row[i] === null)
      if (nullIn !== -1) throw new RecordError(`column '${schema[nullIn]!.name}' is NOT NULL, but the record has no value for it`)
      rows.push({ row, line, offset: next })
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      bad.push({ line, text, detail: e.detail, ...(e.help !== undefined ? { help: e.help } : {}) })
    }
  }
  return { rows, bad, lines: line }
}

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ dir, cleanup } = tempDir())
})
afterEach(() => cleanup())

function positionsAfter(chunks: readonly SourceChunk[]): (SplitPosition | null)[] {
  return JSON.parse(JSON.stringify([chunks.at(-1)?.position ?? null])) as (SplitPosition | null)[]
}

// Read on the operators' thread, and by the decode worker (its column batches must give the same chunks).
describe.each(['false', 'true'])('filesystem source, JSON lines from bytes (decode thread: %s)', thread => {
  const opts = (options: Record<string, string>): Record<string, string> => ({ ...options, 'source.decode-thread': thread })

  it('gives the rows, skip count and positions of decoding each line as text, for a file of mixed records', async () => {
    const file = join(dir, 'mixed.json')
    const bytes = fileBytes(RECORDS)
    writeFileSync(file, bytes)
    const want = expected(bytes, SCHEMA)
    // The mix holds every kind: rows, bad records, skipped blank lines.
    expect(want.rows.length).toBe(13)
    expect(want.bad.length).toBe(12)
    const options = { path: file, 'json.ignore-parse-errors': 'true' }
    for (const batchSize of [1, 4, 1024]) {
      const reader = await source.create(sourceCtx(opts(options), SCHEMA, batchSize))
      expect(reader instanceof ThreadedFileReader).toBe(thread === 'true')
      const chunks = await drain(reader)
      expect(chunks.flatMap(c => c.rows), `batch size ${batchSize}`).toEqual(want.rows.map(r => r.row))
      expect(reader.metrics().skippedRecords).toBe(want.bad.length)
      const last = chunks.at(-1)!
      expect(last.position).toEqual({ file, offset: bytes.length, line: want.lines, ended: true })
      if (batchSize === 1) {
        // A chunk ends just after its row's line: the lines skipped before the row are in it.
        expect(chunks.slice(0, -1).map(c => c.position)).toEqual(want.rows.map(r => ({ file, offset: r.offset, line: r.line, ended: false })))
      }
    }
  })

  it('fails on each bad record with the error decoding its text gives: file, line, detail, the record and what to do', async () => {
    const bytes = fileBytes(RECORDS)
    const want = expected(bytes, SCHEMA)
    // Each bad record after all the good ones before it, so it is the first the reader meets.
    const lines = fileBytes(RECORDS).subarray(3).toString('latin1').split('\n')
    for (const bad of want.bad) {
      const good = new Set(want.rows.filter(r => r.line < bad.line).map(r => r.line))
      const kept = lines.filter((_, i) => good.has(i + 1) || i + 1 === bad.line).map(l => Buffer.from(l, 'latin1'))
      const file = join(dir, `bad-${bad.line}.json`)
      const content = Buffer.concat([Buffer.from('\uFEFF'), ...kept.flatMap(l => [l, Buffer.from('\n')])])
      writeFileSync(file, content)
      const atLine = kept.length
      const err = await errorOf(async () => drain(await source.create(sourceCtx(opts({ path: file }), SCHEMA))))
      expect(err, `line ${bad.line}`).toBeInstanceOf(WeirError)
      const text = expected(content, SCHEMA).bad[0]!
      expect(text.detail).toBe(bad.detail)
      expect(err.message).toBe(`bad record at ${file}:${atLine} (table 't'): ${bad.detail}`)
      expect(err.record).toEqual({ source: file, line: atLine, record: text.text })
      expect(err.help).toBe(`${bad.help === undefined ? '' : `${bad.help}; or `}set 'json.ignore-parse-errors' = 'true' to skip bad records`)
    }
  })

  it('reads only the columns the job reads; those equal the full decode, the others are NULL', async () => {
    const file = join(dir, 'mixed.json')
    const bytes = fileBytes(RECORDS)
    writeFileSync(file, bytes)
    const want = expected(bytes, SCHEMA)
    // id and s read; k is read too, being NOT NULL (the source checks it).
    const readColumns = SCHEMA.map(f => f.name === 'id' || f.name === 's')
    const reader = await source.create({ ...sourceCtx(opts({ path: file, 'json.ignore-parse-errors': 'true' }), SCHEMA), readColumns })
    const rows = (await drain(reader)).flatMap(c => c.rows)
    const project = (r: Row): Row => r.map((v, i) => (readColumns[i] || i === 6 ? v : null))
    // Lines with a bad value only in a column the job does not read give a row (as Flink's projected
    // JSON format does): a number for a timestamp without 'json.timestamp-format.epoch', a bad
    // timestamp, a decimal with too many digits.
    const extra = [{ id: 5, s: '42', k: 'strings' }, { id: 7, s: null, k: 'bad ts' }, { id: 8, s: null, k: 'too many digits' }]
    const wantRows = [...want.rows.map(r => project(r.row))]
    for (const x of extra) {
      const at = wantRows.findIndex(r => (r[0] as number) > x.id)
      wantRows.splice(at, 0, [x.id, null, null, x.s, null, null, x.k])
    }
    expect(rows).toEqual(wantRows)
    expect(reader.metrics().skippedRecords).toBe(want.bad.length - extra.length)
  })

  it('reads a file without a final newline, ending in CRLF, or of a BOM alone', async () => {
    for (const [name, bytes] of [
      ['no-final.json', fileBytes(RECORDS, '')],
      ['crlf.json', fileBytes(RECORDS, '\r\n')],
      ['bom.json', Buffer.from('\uFEFF')],
      ['bom-line.json', Buffer.from('\uFEFF\n')],
    ] as const) {
      const file = join(dir, name)
      writeFileSync(file, bytes)
      const want = expected(bytes, SCHEMA)
      const reader = await source.create(sourceCtx(opts({ path: file, 'json.ignore-parse-errors': 'true' }), SCHEMA, 3))
      const chunks = await drain(reader)
      expect(chunks.flatMap(c => c.rows), name).toEqual(want.rows.map(r => r.row))
      expect(reader.metrics().skippedRecords, name).toBe(want.bad.length)
      expect(chunks.at(-1)!.position, name).toEqual({ file, offset: bytes.length, line: want.lines, ended: true })
    }
  })

  it('resumed after any chunk of the mixed file, gives the rest: the rows, skip count and positions of a straight run', async () => {
    const file = join(dir, 'mixed.json')
    const bytes = fileBytes(RECORDS)
    writeFileSync(file, bytes)
    const options = { path: file, 'json.ignore-parse-errors': 'true' }
    for (const batchSize of [1, 3]) {
      const straight = await drain(await source.create(sourceCtx(opts(options), SCHEMA, batchSize)))
      for (let k = 0; k <= straight.length; k++) {
        const before = straight.slice(0, k)
        const reader = await source.create(sourceCtx(opts(options), SCHEMA, batchSize, undefined, k === 0 ? undefined : positionsAfter(before)))
        const after = await drain(reader)
        const where = `batch size ${batchSize}, resumed after chunk ${k}`
        expect([...before, ...after].flatMap(c => c.rows), where).toEqual(straight.flatMap(c => c.rows))
        expect(after.map(c => c.position), where).toEqual(k === straight.length ? [straight.at(-1)!.position] : straight.slice(k).map(c => c.position))
        const skippedBefore = k === 0 ? 0 : expected(bytes.subarray(0, (before.at(-1)!.position as { offset: number }).offset), SCHEMA).bad.length
        expect(reader.metrics().skippedRecords + skippedBefore, where).toBe(expected(bytes, SCHEMA).bad.length)
      }
    }
  })

  it('resumes mid-file across 1 MB read blocks, on lines of mixed records', async () => {
    const file = join(dir, 'big.json')
    const records: (string | Buffer)[] = []
    // ~3 MB: lines cross block boundaries; every 7th is a mixed record (some bad, skipped).
    for (let i = 0; i < 24_000; i++) {
      records.push(i % 7 === 0 ? RECORDS[i % RECORDS.length]! : JSON.stringify({ id: i, k: `k${i}`, s: `ü€🦀${'x'.repeat(i % 97)}`, big: i * 1e6 }))
    }
    const bytes = fileBytes(records)
    writeFileSync(file, bytes)
    const want = expected(bytes, SCHEMA)
    const options = { path: file, 'json.ignore-parse-errors': 'true' }
    const straight = await drain(await source.create(sourceCtx(opts(options), SCHEMA, 1_000)))
    expect(straight.flatMap(c => c.rows)).toEqual(want.rows.map(r => r.row))
    // With a chunk of 1,000 rows ending on a row's line, each position is that row's.
    expect(straight.slice(0, -1).map(c => (c.position as { line: number }).line)).toEqual(want.rows.filter((_, i) => (i + 1) % 1_000 === 0).map(r => r.line))
    for (const k of [1, 5, 9, 13, straight.length - 1]) {
      const after = await drain(await source.create(sourceCtx(opts(options), SCHEMA, 1_000, undefined, positionsAfter(straight.slice(0, k)))))
      expect([...straight.slice(0, k), ...after].flatMap(c => c.rows), `resumed after chunk ${k}`).toEqual(want.rows.map(r => r.row))
    }
  })
})

describe('LineReader reading ahead', () => {
  it('closes while the next block is being read, mid-file, and a new reader resumes there', async () => {
    const file = join(dir, 'big.json')
    const lines = Array.from({ length: 60_000 }, (_, i) => JSON.stringify({ id: i, k: `k${i}`, s: 'é'.repeat(i % 50) }))
    writeFileSync(file, lines.join('\n') + '\n')
    const reader = await source.create(sourceCtx({ path: file }, SCHEMA, 10))
    const first = await reader.next()
    // The first block is in hand and the second being read: closing waits for that read, then closes the file.
    await reader.close()
    expect(await reader.next()).toBeNull()
    const rest = (await drain(await source.create(sourceCtx({ path: file }, SCHEMA, 5_000, undefined, positionsAfter([first!]))))).flatMap(c => c.rows)
    expect([...first!.rows, ...rest].map(r => r[0])).toEqual(lines.map((_, i) => i))
  })
})

describe('LineReader byte mode', () => {
  it('gives the lines, offsets and line numbers of text mode, across small blocks and longer lines, from any start', async () => {
    const file = join(dir, 'lines.txt')
    const lines = Array.from({ length: 120 }, (_, i) => (i % 9 === 0 ? '' : `${i}:${[...'ä€😀x'].slice(0, i % 5).join('')}${'y'.repeat(i % 37)}`))
    lines[50] = 'z'.repeat(100)
    lines[51] = '\u00e9'.repeat(70)
    writeFileSync(file, '\uFEFF' + lines.map((l, i) => l + (i % 4 === 0 ? '\r\n' : '\n')).join('').replace(/\r?\n$/, ''))
    type Line = { line: string; offset: number; lineNo: number }
    const read = async (bytes: boolean, start?: { offset: number; line: number }): Promise<Line[]> => {
      const r = new LineReader(file, start, { blockBytes: 16, bytes })
      const out: Line[] = []
      for (;;) {
        const line = bytes ? (r.nextRange() ? r.lineText() : null) : r.nextLine()
        if (line === null) {
          if (await r.fill()) continue
          break
        }
        if (bytes) expect(r.block.toString('utf8', r.lineStart, r.lineEnd)).toBe(line)
        out.push({ line, offset: r.offset, lineNo: r.lineNo })
      }
      await r.close()
      return out
    }
    const text = await read(false)
    expect(text.map(l => l.line)).toEqual(lines)
    expect(await read(true)).toEqual(text)
    for (let i = 0; i < text.length; i += 7) {
      const start = { offset: text[i]!.offset, line: text[i]!.lineNo }
      expect(await read(true, start), `after line ${i + 1}`).toEqual(text.slice(i + 1))
    }
  })
})
