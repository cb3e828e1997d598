// The filesystem sink: part files written under an in-progress name and renamed on finish; JSON lines,
// CSV and debezium-json changelogs; which formats take updates; and reading the output back.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { parseTimestamp } from '../../common/values.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import { RowKind, type Row } from '../../core/batch.js'
import { readAllRows, sinkCtx, sourceCtx, tempDir } from './helpers.js'

const sink = filesystemConnector.sink!
const source = filesystemConnector.source!

const SCHEMA: Field[] = [
  { name: 'id', type: T.int() },
  { name: 'name', type: T.string() },
  { name: 'amount', type: T.decimal(10, 2) },
  { name: 'ts', type: T.timestamp(3) },
  { name: 'ok', type: T.boolean() },
  { name: 'day', type: T.date() },
  { name: 'd', type: T.double() },
]
const TS = parseTimestamp('2024-01-01 12:00:00.5')!
const ROWS: Row[] = [
  [1, 'plain', 12345n, TS, true, 19723, 1.5],
  [2, 'with, comma and "quotes"\nand a newline', -5n, TS + 1, false, 0, 2],
  [3, '', 0n, null, null, null, null],
  [null, null, null, null, null, null, null],
]

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ dir, cleanup } = tempDir())
})
afterEach(() => cleanup())

describe('filesystem sink', () => {
  it('writes JSON lines to an in-progress file and renames it on finish', async () => {
    const options = { connector: 'filesystem', path: dir, format: 'json' }
    sink.validate(options, SCHEMA)
    const writer = await sink.create(sinkCtx(options, SCHEMA))
    await writer.write({ rows: ROWS.slice(0, 2), kinds: null })
    await writer.write({ rows: ROWS.slice(2), kinds: null })
    // Before finish: nothing visible, only a hidden in-progress file (once data is flushed).
    expect(readdirSync(dir).filter(f => !f.startsWith('.'))).toEqual([])
    await writer.finish()
    const files = readdirSync(dir)
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/^part-[0-9a-f-]{36}-0{10}\.json$/)
    const lines = readFileSync(join(dir, files[0]!), 'utf8').split('\n')
    expect(lines).toEqual([
      '{"id":1,"name":"plain","amount":123.45,"ts":"2024-01-01 12:00:00.500","ok":true,"day":"2024-01-01","d":1.5}',
      '{"id":2,"name":"with, comma and \\"quotes\\"\\nand a newline","amount":-0.05,"ts":"2024-01-01 12:00:00.501","ok":false,"day":"1970-01-01","d":2}',
      '{"id":3,"name":"","amount":0.00,"ts":null,"ok":null,"day":null,"d":null}',
      '{"id":null,"name":null,"amount":null,"ts":null,"ok":null,"day":null,"d":null}',
      '',
    ])
    await writer.close()
  })

  it('flushes large outputs to the hidden in-progress file before finish', async () => {
    const options = { path: dir, format: 'json' }
    const writer = await sink.create(sinkCtx(options, SCHEMA))
    const many = Array.from({ length: 20_000 }, (_, i) => [i, 'row number ' + i, BigInt(i), TS, true, 1, 0.5])
    await writer.write({ rows: many, kinds: null })
    const hidden = readdirSync(dir)
    expect(hidden).toHaveLength(1)
    expect(hidden[0]).toMatch(/^\.part-.*\.inprogress$/)
    await writer.finish()
    const files = readdirSync(dir)
    expect(files).toHaveLength(1)
    expect(files[0]).toBe(hidden[0]!.slice(1).replace(/\.inprogress$/, ''))
  })

  it('removes the in-progress file when closed without finishing', async () => {
    const writer = await sink.create(sinkCtx({ path: dir }, SCHEMA))
    await writer.write({ rows: Array.from({ length: 20_000 }, () => ROWS[0]!), kinds: null })
    expect(readdirSync(dir)).toHaveLength(1)
    await writer.close()
    expect(readdirSync(dir)).toEqual([])
  })

  it('writes no file for no rows, but creates the directory', async () => {
    const out = join(dir, 'nested', 'out')
    const writer = await sink.create(sinkCtx({ path: out }, SCHEMA))
    await writer.finish()
    expect(readdirSync(out)).toEqual([])
  })

  it('writes CSV that reads back as the same rows', async () => {
    const options = { path: dir, format: 'csv' }
    const writer = await sink.create(sinkCtx(options, SCHEMA))
    await writer.write({ rows: ROWS, kinds: null })
    await writer.finish()
    const [file] = readdirSync(dir)
    expect(file).toMatch(/^part-.*-0{10}\.csv$/)
    const text = readFileSync(join(dir, file!), 'utf8')
    expect(text.split('\n')[0]).toBe('1,plain,123.45,2024-01-01 12:00:00.500,true,2024-01-01,1.5')
    expect(text).toContain('2,"with, comma and ""quotes""\nand a newline",-0.05,')
    expect(text).toContain('3,"",0.00,,,,\n')
    const back = await readAllRows(await source.create(sourceCtx(options, SCHEMA)))
    expect(back).toEqual(ROWS)
  })

  it('JSON output reads back as the same rows', async () => {
    const options = { path: dir, format: 'json' }
    const writer = await sink.create(sinkCtx(options, SCHEMA))
    await writer.write({ rows: ROWS, kinds: null })
    await writer.finish()
    expect(await readAllRows(await source.create(sourceCtx(options, SCHEMA)))).toEqual(ROWS)
  })

  it('writes a changelog as debezium-json', async () => {
    const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.bigint() }]
    const options = { path: dir, format: 'debezium-json' }
    sink.validate(options, schema)
    const writer = await sink.create(sinkCtx(options, schema))
    await writer.write({ rows: [['a', 1]], kinds: null })
    await writer.write({
      rows: [['a', 1], ['a', 2], ['a', 2]],
      kinds: Uint8Array.from([RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE]),
    })
    await writer.finish()
    const [file] = readdirSync(dir)
    expect(file).toMatch(/^part-.*-0{10}\.json$/)
    expect(readFileSync(join(dir, file!), 'utf8').trim().split('\n').map(l => JSON.parse(l))).toEqual([
      { before: null, after: { k: 'a', n: 1 }, op: 'c' },
      { before: { k: 'a', n: 1 }, after: null, op: 'd' },
      { before: null, after: { k: 'a', n: 2 }, op: 'c' },
      { before: { k: 'a', n: 2 }, after: null, op: 'd' },
    ])
  })

  it('accepts updates only with debezium-json', async () => {
    expect(sink.acceptsUpdates({ path: dir, format: 'debezium-json' })).toBe(true)
    expect(sink.acceptsUpdates({ path: dir, format: 'json' })).toBe(false)
    expect(sink.acceptsUpdates({ path: dir, format: 'csv' })).toBe(false)
    expect(sink.acceptsUpdates({ path: dir })).toBe(false)
    const writer = await sink.create(sinkCtx({ path: dir, format: 'json' }, SCHEMA))
    expect(() => writer.write({ rows: [ROWS[0]!], kinds: Uint8Array.from([RowKind.DELETE]) })).toThrow(/can only append rows/)
    await writer.close()
  })
})
