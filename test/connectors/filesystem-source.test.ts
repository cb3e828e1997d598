// The filesystem source: JSON lines and CSV into every column type, directories as splits, bad
// records (failing with file and line, or skipped and counted), and missing paths.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { parseTimestamp } from '../../common/values.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import { drain, errorOf, readAllRows, sourceCtx, tempDir } from './helpers.js'

const source = filesystemConnector.source!

const ALL_TYPES: Field[] = [
  { name: 'id', type: T.int() },
  { name: 'big', type: T.bigint() },
  { name: 'd', type: T.double() },
  { name: 'amount', type: T.decimal(20, 4) },
  { name: 's', type: T.string() },
  { name: 'b', type: T.boolean() },
  { name: 'ts', type: T.timestamp(3) },
  { name: 'day', type: T.date() },
]

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ dir, cleanup } = tempDir())
})
afterEach(() => cleanup())

async function read(options: Record<string, string>, schema: Field[], batchSize = 1024) {
  source.validate(options, schema)
  return readAllRows(await source.create(sourceCtx(options, schema, batchSize)))
}

describe('filesystem source, JSON lines', () => {
  it('reads every type, including exact decimals, timestamps, NULLs and missing fields', async () => {
    const file = join(dir, 'data.json')
    writeFileSync(file, [
      '{"id": 1, "big": 9007199254740991, "d": 1.5, "amount": 12345678901234.5678, "s": "héllo", "b": true, "ts": "2024-01-02 03:04:05.678", "day": "2024-02-29"}',
      '',
      '{"id": "2", "big": "-7", "d": "2.25", "amount": "0.1", "s": 42, "b": "FALSE", "ts": 1700000000000, "day": "1970-01-02"}',
      '{"ID": 3, "S": "case-insensitive", "amount": 1e2, "ts": "2024-01-02T03:04:05Z", "b": null}',
      '{}',
    ].join('\n') + '\n')
    const rows = await read({ connector: 'filesystem', path: file, format: 'json', 'json.timestamp-format.epoch': 'millis' }, ALL_TYPES)
    expect(rows).toEqual([
      [1, 9007199254740991, 1.5, 123456789012345678n, 'héllo', true, parseTimestamp('2024-01-02 03:04:05.678'), 19782],
      [2, -7, 2.25, 1000n, '42', false, 1700000000000, 1],
      [3, null, null, 1000000n, 'case-insensitive', null, parseTimestamp('2024-01-02 03:04:05'), null],
      [null, null, null, null, null, null, null, null],
    ])
  })

  it('does not mistake Object.prototype members for fields', async () => {
    const file = join(dir, 'proto.json')
    writeFileSync(file, '{"toString": "x"}\n{"constructor": "y"}\n')
    const rows = await read({ path: file }, [{ name: 'constructor', type: T.string() }, { name: 'toString', type: T.string() }, { name: '__proto__',
      type: T.string() }])
    expect(rows).toEqual([[null, 'x', null], ['y', null, null]])
  })

  it('keeps decimals exact where a double would not', async () => {
    const file = join(dir, 'd.json')
    writeFileSync(file, '{"v": 0.30000000000000000001, "w": 123456789012345678901234567.89}\n')
    const rows = await read({ path: file }, [{ name: 'v', type: T.decimal(38, 20) }, { name: 'w', type: T.decimal(38, 2) }])
    expect(rows).toEqual([[30000000000000000001n, 12345678901234567890123456789n]])
  })

  it('reads a file without a trailing newline, with CRLF endings and a BOM', async () => {
    const file = join(dir, 'crlf.json')
    writeFileSync(file, '\uFEFF{"id": 1}\r\n{"id": 2}\r\n{"id": 3}')
    expect(await read({ path: file }, [{ name: 'id', type: T.int() }])).toEqual([[1], [2], [3]])
  })

  it('reads a directory: one split per visible file, in name order, in chunks of batchSize', async () => {
    writeFileSync(join(dir, 'b.json'), '{"id": 3}\n{"id": 4}\n{"id": 5}\n')
    writeFileSync(join(dir, 'a.json'), '{"id": 1}\n{"id": 2}\n')
    writeFileSync(join(dir, '.hidden.json'), '{"id": 99}\n')
    writeFileSync(join(dir, '_SUCCESS'), 'not json\n')
    mkdirSync(join(dir, 'sub'))
    writeFileSync(join(dir, 'sub', 'c.json'), '{"id": 98}\n')
    const options = { path: dir, format: 'json' }
    const schema = [{ name: 'id', type: T.int() }]
    const reader = await source.create(sourceCtx(options, schema, 2))
    expect(reader.splitCount).toBe(2)
    const chunks = await drain(reader)
    expect(chunks.map(c => [c.split, c.rows.map(r => r[0]), c.splitEnded ?? false])).toEqual([
      [0, [1, 2], false],
      [0, [], true],
      [1, [3, 4], false],
      [1, [5], true],
    ])
    expect(reader.metrics().rowsRead).toBe(5)
  })

  it('reads the files symbolic links in a directory point to (not folders), and names a dangling link', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'weir-link-target-'))
    writeFileSync(join(elsewhere, 'a.json'), '{"id": 1}\n')
    mkdirSync(join(elsewhere, 'sub'))
    writeFileSync(join(elsewhere, 'sub', 'b.json'), '{"id": 2}\n')
    symlinkSync(join(elsewhere, 'a.json'), join(dir, 'a.json'))
    symlinkSync(join(elsewhere, 'sub'), join(dir, 'sub'))
    writeFileSync(join(dir, 'c.json'), '{"id": 3}\n')
    const schema = [{ name: 'id', type: T.int() }]
    expect(await read({ path: dir }, schema)).toEqual([[1], [3]])
    symlinkSync(join(elsewhere, 'gone.json'), join(dir, 'd.json'))
    const e = await errorOf(() => read({ path: dir }, schema))
    expect(e.message).toBe(`cannot read '${join(dir, 'd.json')}' (the source of table 't'): no such file or folder (ENOENT)`)
    rmSync(elsewhere, { recursive: true, force: true })
  })

  it('handles lines longer than a read block and many lines across blocks', async () => {
    const file = join(dir, 'big.json')
    const long = 'x'.repeat(3 << 20)
    const lines = [`{"id": 0, "s": "${long}"}`]
    for (let i = 1; i < 100_000; i++) lines.push(`{"id": ${i}, "s": "r${i}"}`)
    writeFileSync(file, lines.join('\n') + '\n')
    const rows = await read({ path: file }, [{ name: 'id', type: T.int() }, { name: 's', type: T.string() }])
    expect(rows.length).toBe(100_000)
    expect((rows[0]![1] as string).length).toBe(3 << 20)
    expect(rows.every((r, i) => r[0] === i)).toBe(true)
    expect(rows[99_999]).toEqual([99_999, 'r99999'])
  })

  it('fails on a malformed line, naming the file and line number', async () => {
    const file = join(dir, 'bad.json')
    writeFileSync(file, '{"id": 1}\n\n{"id": 2\n{"id": 3}\n')
    const e = await errorOf(() => read({ path: file }, [{ name: 'id', type: T.int() }]))
    expect(e).toBeInstanceOf(WeirError)
    expect(e.kind).toBe('execution')
    expect(e.message).toContain(`${file}:3`)
    expect(e.message).toContain('invalid JSON')
    expect(e.record).toMatchObject({ source: file, line: 3, record: '{"id": 2' })
    expect(e.help).toBe(`set 'json.ignore-parse-errors' = 'true' to skip bad records`)
  })

  it('fails on a value that does not fit its column, naming the column', async () => {
    const file = join(dir, 'bad-type.json')
    writeFileSync(file, '{"id": 1}\n{"id": "abc"}\n')
    const e = await errorOf(() => read({ path: file }, [{ name: 'id', type: T.int() }]))
    expect(e.message).toContain(`${file}:2`)
    expect(e.message).toContain(`column 'id'`)
    expect(e.message).toContain('"abc"')
    expect(e.record?.line).toBe(2)
  })

  it('rejects INT values out of range and decimals with too many digits', async () => {
    const file = join(dir, 'range.json')
    writeFileSync(file, '{"i": 3000000000}\n')
    expect((await errorOf(() => read({ path: file }, [{ name: 'i', type: T.int() }]))).message).toContain('out of range')
    writeFileSync(file, '{"i": 1234.5}\n')
    expect((await errorOf(() => read({ path: file }, [{ name: 'i', type: T.decimal(4, 1) }]))).message).toContain('too many digits')
  })

  it("skips and counts bad records with 'json.ignore-parse-errors'", async () => {
    const file = join(dir, 'mixed.json')
    writeFileSync(file, '{"id": 1}\nnot json\n[1,2]\n{"id": "x"}\n{"id": 5}\n')
    const options = { path: file, 'json.ignore-parse-errors': 'true' }
    const reader = await source.create(sourceCtx(options, [{ name: 'id', type: T.int() }]))
    expect(await readAllRows(reader)).toEqual([[1], [5]])
    expect(reader.metrics().skippedRecords).toBe(3)
  })

  it("fails on a missing field with 'json.fail-on-missing-field'", async () => {
    const file = join(dir, 'missing.json')
    writeFileSync(file, '{"a": 1}\n')
    const e = await errorOf(() => read({ path: file, 'json.fail-on-missing-field': 'true' }, [{ name: 'a', type: T.int() }, { name: 'b', type: T.int() }]))
    expect(e.message).toContain(`field 'b' is missing`)
  })

  it('says when the path does not exist, at create time', async () => {
    const path = join(dir, 'nope')
    const options = { connector: 'filesystem', path }
    expect(() => source.validate(options, [])).not.toThrow()
    const e = await errorOf(() => source.create(sourceCtx(options, [])))
    expect(e.kind).toBe('connector')
    expect(e.message).toBe(`cannot read '${path}' (the source of table 't'): no such file or folder (ENOENT)`)
    expect(e.help).toBe(`'${path}' does not exist: check the 'path' option of table 't'`)
  })

  it('gives an empty file one empty, ended split', async () => {
    writeFileSync(join(dir, 'empty.json'), '')
    const chunks = await drain(await source.create(sourceCtx({ path: dir }, [{ name: 'id', type: T.int() }])))
    expect(chunks).toEqual([{ rows: [], split: 0, splitEnded: true, position: { file: join(dir, 'empty.json'), offset: 0, line: 0, ended: true } }])
  })

  it('returns null once the signal aborts', async () => {
    writeFileSync(join(dir, 'a.json'), '{"id": 1}\n{"id": 2}\n')
    const abort = new AbortController()
    const reader = await source.create(sourceCtx({ path: dir }, [{ name: 'id', type: T.int() }], 1, abort.signal))
    expect((await reader.next())?.rows).toEqual([[1]])
    abort.abort()
    expect(await reader.next()).toBeNull()
    await reader.close()
  })
})

describe('filesystem source, CSV', () => {
  it('reads every type by position, with the null literal and empty fields as NULL', async () => {
    const file = join(dir, 'data.csv')
    writeFileSync(file, [
      '1,9007199254740991,1.5,12345678901234.5678,hello,true,2024-01-02 03:04:05.678,2024-02-29',
      '2,,,,,,,',
      '3,-1,-0.5,0.1,"",FALSE,2024-01-02T03:04:05,1970-01-02',
    ].join('\n') + '\n')
    const rows = await read({ path: file, format: 'csv' }, ALL_TYPES)
    expect(rows).toEqual([
      [1, 9007199254740991, 1.5, 123456789012345678n, 'hello', true, parseTimestamp('2024-01-02 03:04:05.678'), 19782],
      [2, null, null, null, null, null, null, null],
      [3, -1, -0.5, 1000n, '', false, parseTimestamp('2024-01-02 03:04:05'), 1],
    ])
  })

  it('follows RFC 4180 quoting: delimiters, doubled quotes and newlines inside quotes', async () => {
    const file = join(dir, 'quoted.csv')
    writeFileSync(file, 'a,"x, y",1\n"b","say ""hi""",2\n"multi\nline","two\r\nlines",3\nd,plain"quote,4\n')
    const schema = [{ name: 'k', type: T.string() }, { name: 'v', type: T.string() }, { name: 'n', type: T.int() }]
    expect(await read({ path: file, format: 'csv' }, schema)).toEqual([
      ['a', 'x, y', 1],
      ['b', 'say "hi"', 2],
      ['multi\nline', 'two\nlines', 3],
      ['d', 'plain"quote', 4],
    ])
  })

  it('takes a delimiter, a null literal, comments, and a custom quote character', async () => {
    const file = join(dir, 'semi.csv')
    writeFileSync(file, "# a comment\n1;NULL;'a;b'\n2;x;\n")
    const schema = [{ name: 'n', type: T.int() }, { name: 's', type: T.string() }, { name: 't', type: T.string() }]
    const options = { path: file, format: 'csv', 'csv.field-delimiter': ';', 'csv.null-literal': 'NULL', 'csv.allow-comments': 'true',
      'csv.quote-character': "'" }
    expect(await read(options, schema)).toEqual([[1, null, 'a;b'], [2, 'x', '']])
  })

  it('fails with file and line on a bad field or a wrong field count', async () => {
    const file = join(dir, 'bad.csv')
    writeFileSync(file, '1,a\n"two\nlines",b\nx,c\n')
    const schema = [{ name: 'n', type: T.string() }, { name: 's', type: T.string() }]
    const ok = await read({ path: file, format: 'csv' }, schema)
    expect(ok).toEqual([['1', 'a'], ['two\nlines', 'b'], ['x', 'c']])
    const e = await errorOf(() => read({ path: file, format: 'csv' }, [{ name: 'n', type: T.int() }, { name: 's', type: T.string() }]))
    expect(e.message).toContain(`${file}:2`)
    expect(e.message).toContain(`column 'n'`)
    expect(e.record?.line).toBe(2)
    expect(e.help).toBe(`set 'csv.ignore-parse-errors' = 'true' to skip bad records`)
    writeFileSync(file, '1,a\n2,b,c\n')
    const e2 = await errorOf(() => read({ path: file, format: 'csv' }, schema))
    expect(e2.message).toContain(`${file}:2`)
    expect(e2.message).toContain('expected 2 fields, found 3')
  })

  it('reports an unterminated quote at the line where the record began', async () => {
    const file = join(dir, 'open.csv')
    writeFileSync(file, 'a,b\n"open,c\nd,e\n')
    const e = await errorOf(() => read({ path: file, format: 'csv' }, [{ name: 'x', type: T.string() }, { name: 'y', type: T.string() }]))
    expect(e.message).toContain('unterminated quoted field')
    expect(e.record?.line).toBe(2)
  })

  it("skips and counts bad records with 'csv.ignore-parse-errors', also an open quote at end of file", async () => {
    writeFileSync(join(dir, 'a.csv'), '1\nabc\n3\n4.5\n"7\n')
    writeFileSync(join(dir, 'b.csv'), '8\n')
    const reader = await source.create(sourceCtx({ path: dir, format: 'csv', 'csv.ignore-parse-errors': 'true' }, [{ name: 'n', type: T.int() }]))
    expect(await readAllRows(reader)).toEqual([[1], [3], [8]])
    expect(reader.metrics().skippedRecords).toBe(3)
  })
})
