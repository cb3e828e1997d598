// The filesystem JSON source read on its decode worker ('source.decode-thread'): the binary batches
// give back exactly the rows encoded; the worker's chunks (rows, kinds, splits, positions, skip
// counts, errors) are exactly the main-thread reader's over random JSON lines; a restore from the
// position of the last chunk taken, while the worker has read further ahead, gives exactly the rest;
// and no worker outlives its reader, whether it ended, was cancelled or failed.
// The worker runs the built script (dist/): `npx tsc -p tsconfig.json` before these tests.
import { writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import type { SourceChunk, SourceReader } from '../../connectors/api.js'
import { decodeWorkersRunning, ThreadedFileReader } from '../../connectors/filesystem/decode-thread.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import { ColumnBatchBuilder, toRows } from '../../connectors/filesystem/column-batch.js'
import type { Row } from '../../core/batch.js'
import { Session } from '../../engine/session.js'
import { drain, errorOf, sourceCtx, tempDir } from './helpers.js'

const source = filesystemConnector.source!

const SCHEMA: Field[] = [
  { name: 'i', type: T.int() },
  { name: 'big', type: T.bigint() },
  { name: 'dec', type: T.decimal(30, 4) },
  { name: 'd', type: T.double() },
  { name: 'b', type: T.boolean() },
  { name: 's', type: T.string() },
  { name: 'ts', type: T.timestamp(3) },
  { name: 'k', type: T.string(false) },
]

/** A seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PIECES = ['a', 'Z', ' ', 'é', 'ß', '€', '🦀', '\\"', '\\\\', '\\n', '\\t', '\\u00e9', '\\ud83e\\udd80', '\\ud800', 'x'.repeat(50), '/', '\\/']

/** Random JSON lines of the schema: every type, NULLs and missing fields, unicode and escapes, long lines, and a few bad records. */
function randomLines(seed: number, count: number, valid = false): string[] {
  const r = random(seed)
  const pick = <V>(xs: readonly V[]): V => xs[Math.floor(r() * xs.length)]!
  const str = (len: number): string => {
    let s = ''
    while (s.length < len) s += pick(PIECES)
    return `"${s}"`
  }
  const lines: string[] = []
  for (let n = 0; n < count; n++) {
    const fields: string[] = []
    const maybe = (key: string, value: () => string): void => {
      const x = r()
      if (x < 0.1) fields.push(`"${key}": null`)
      else if (x < 0.2) return
      else fields.push(`"${key}": ${value()}`)
    }
    maybe('i', () => String(Math.floor(r() * 4e9) - 2e9 > 2147483647 ? 7 : Math.floor(r() * 2e9) - 1e9))
    // Values of the wrong type or out of range are bad records (unless `valid`).
    const odd = <V>(good: readonly V[], bad: readonly V[]): V => (valid || r() < 0.9 ? pick(good) : pick(bad))
    maybe('big', () => odd(['9007199254740993', '-9223372036854775808', '0', '-0', String(Math.floor(r() * 1e15)), '"42"'], ['1e400', '"x"']))
    maybe('dec', () => odd(['12.5', '-0.0001', '12345678901234567890.1234', '"7.25"', '1e3'], ['1.00001', '"1,5"']))
    maybe('d', () => odd(['0.1', '-0', '1e308', '-2.5e-300', '3', '"NaN"'], ['"abc"', '[1]']))
    maybe('b', () => odd(['true', 'false', '"TRUE"'], ['"yes"', '2']))
    maybe('s', () => str(r() < 0.02 ? 400_000 : Math.floor(r() * 40)))
    maybe('ts', () => odd(['"2024-01-02 03:04:05.678"', '"2024-02-29T23:59:59"', '"1999-12-31 23:59:59.9"'], ['1700000000000', '"2023-02-29 00:00:00"']))
    if (valid || r() < 0.97) fields.push(`"k": ${str(1 + Math.floor(r() * 5))}`)
    if (r() < 0.3) fields.push(`"extra": {"deep": [1, {"x": ${str(10)}}], "n": null}`)
    let line = `{${fields.join(', ')}}`
    const bad = valid ? 1 : r()
    if (bad < 0.01) line = line.slice(0, -1)
    else if (bad < 0.015) line = '[1, 2]'
    else if (bad < 0.02) line = `{"I": 5, "K": "case-insensitive key"}`
    else if (bad < 0.025) line = ''
    lines.push(line)
  }
  return lines
}

async function open(path: string, thread: boolean, batchSize: number, extra: Record<string, string> = {}, restored?: SourceChunk['position'][],
  signal?: AbortSignal, readColumns?: boolean[]): Promise<SourceReader>
{
  const options = { connector: 'filesystem', path, format: 'json', 'source.decode-thread': thread ? 'true' : 'false', ...extra }
  const ctx = { ...sourceCtx(options, SCHEMA, batchSize, signal, restored), ...(readColumns === undefined ? {} : { readColumns }) }
  const reader = await source.create(ctx)
  // The test proves nothing if the reader quietly took the other path.
  expect(reader instanceof ThreadedFileReader).toBe(thread)
  return reader
}

/** A chunk as plain data, to compare chunks of both readers. */
function plain(c: SourceChunk): unknown {
  return { rows: c.rows, kinds: c.kinds ?? null, split: c.split, splitEnded: c.splitEnded === true, position: c.position }
}

let dir: string
let cleanup: () => void
beforeEach(() => ({ dir, cleanup } = tempDir()))
afterEach(() => {
  cleanup()
  expect(decodeWorkersRunning()).toBe(0)
})

describe('column batch', () => {
  it('gives back exactly the values put, span and exception alike, batch after batch in reused buffers', () => {
    const r = random(7)
    const schema: Field[] = [...SCHEMA, { name: 'unread', type: T.string() }]
    const read = schema.map(f => f.name !== 'unread')
    const builder = new ColumnBatchBuilder(schema, read, 40)
    // Values of every kind in every column: those a column's layout cannot hold become exceptions.
    const values: unknown[] = [null, 0, -0, 1.5, NaN, -Infinity, 2 ** 53 + 2, true, false, '', 'ascii', 'é€🦀', '\ud800 lone', 'x'.repeat(10_000), 12n,
      -(2n ** 63n), 2n ** 70n, [1, 'a'], { a: 1 }]
    let spare: ArrayBuffer | null = null
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(r() * 41)
      const expected: Row[] = []
      // Lines of text in blocks that change (as the reader's read blocks do): spans point into them.
      let block = Buffer.from('')
      for (let i = 0; i < n; i++) {
        if (i === 0 || r() < 0.2) {
          if (r() < 0.5) builder.release()
          block = Buffer.from(`#${'é'.repeat(Math.floor(r() * 3))}line ${round}:${i} ${'y'.repeat(Math.floor(r() * 50))}#`)
        }
        builder.line(block, 1, block.length - 1)
        const row: unknown[] = []
        for (let c = 0; c < schema.length; c++) {
          const x = r()
          if (x < 0.3 && schema[c]!.type.kind === 'STRING' && read[c]) {
            const s = 1 + Math.floor(r() * (block.length - 2))
            const e = s + Math.floor(r() * (block.length - 1 - s))
            builder.putSpan(c, s, e, true)
            row.push(block.toString('utf8', s, e))
          } else if (x < 0.4) {
            builder.putNull(c)
            row.push(null)
          } else {
            const v = values[Math.floor(r() * values.length)]
            builder.put(c, v)
            row.push(v)
          }
        }
        // Some records fail midway: what they put must not show.
        if (r() < 0.1) builder.dropRow()
        else {
          builder.commit()
          expected.push(row)
        }
      }
      const { layout, buffer } = builder.finish(spare)
      const back = toRows(layout, structuredClone(buffer, { transfer: [buffer] }))
      spare = r() < 0.8 ? new ArrayBuffer(buffer.byteLength) : null
      expect(back.length).toBe(expected.length)
      back.forEach((row, i) => row.forEach((v, c) => expect(Object.is(v, expected[i]![c]) || JSON.stringify(v) === JSON.stringify(expected[i]![c])).toBe(true)))
    }
  })
})

describe('decode worker', () => {
  it.each([
    { name: 'all columns', seed: 1, batch: 64, extra: { 'json.ignore-parse-errors': 'true' }, read: undefined },
    { name: 'some columns read', seed: 2, batch: 1000, extra: { 'json.ignore-parse-errors': 'true' },
      read: [false, true, false, true, false, true, true, false] },
    { name: 'one-row chunks', seed: 3, batch: 1, extra: { 'json.ignore-parse-errors': 'true' }, read: undefined },
  ])('gives the chunks of the main-thread reader over random JSON lines in two files: $name', async ({ seed, batch, extra, read }) => {
    // Long lines (400 KB strings) put lines across the 1 MB read blocks.
    writeFileSync(join(dir, 'a.json'), randomLines(seed, 3000).join('\n') + '\n')
    writeFileSync(join(dir, 'b.json'), '\uFEFF' + randomLines(seed + 100, 500).join('\r\n'))
    const main = await open(dir, false, batch, extra, undefined, undefined, read)
    const mainChunks = await drain(main)
    const threaded = await open(dir, true, batch, extra, undefined, undefined, read)
    const threadChunks = await drain(threaded)
    expect(threadChunks.map(plain)).toEqual(mainChunks.map(plain))
    expect(threaded.metrics()).toEqual(main.metrics())
    expect(main.metrics()['skippedRecords']).toBeGreaterThan(10)
    expect(mainChunks.reduce((n, c) => n + c.rows.length, 0)).toBeGreaterThan(2000)
  })

  it("gives the main-thread reader's rows for tricky lines: escapes, unicode, NULLs, missing fields, numbers as text, big integers, each timestamp form", async () => {
    const TS = [['i', T.int()], ['big', T.bigint()], ['d', T.double()], ['s', T.string()], ['ts', T.timestamp(3)], ['ltz', T.timestampLtz(3)], ['t0',
      T.timestamp(0)], ['b', T.boolean()], ['dec', T.decimal(10, 2)], ['day', T.date()]].map(([name, type]) => ({ name, type })) as Field[]
    const lines = [
      '{"i": 1, "big": 9007199254740993, "d": 1e308, "s": "plain", "ts": "2024-01-02 03:04:05.678", "ltz": "2024-01-02T03:04:05Z", "t0": "2024-01-02 03:04:05.999"}',
      '{"s": "quote \\" backslash \\\\ slash \\/ tab \\t nl \\n", "ts": "2024-02-29T23:59:59", "ltz": "2024-01-02 03:04:05.6789", "i": "42"}',
      '{"s": "\\u00e9\\u20ac \\ud83e\\udd80 lone \\ud800 end", "ts": "1999-12-31 23:59:59.9", "ltz": "2024-01-02", "big": "-9223372036854775808"}',
      '{"s": "é€🦀 raw UTF-8", "ts": "2024-01-02 03:04:05+02:00", "ltz": "2024-01-02T03:04", "d": "NaN", "b": "TRUE", "dec": "12.5", "day": "2024-03-01"}',
      '{"s": null, "i": null, "big": null, "d": -0, "ts": null, "b": false, "dec": 0.1, "day": null}',
      '{}',
      '{"S": "case-insensitive key", "I": 7}',
      '{"s": "", "d": 2.5e-300, "big": -0, "i": -2147483648, "ts": " 2024-01-02 03:04:05 "}',
      '  {"s" : "spaced" , "i" : 3 }  ',
      '{"i": 1, "i": 2, "s": "repeated key: the last counts", "s": "last"}',
      '{"a\\u0062": 1, "s": "escaped key of no column", "nested": {"s": "not me", "x": [1, {"y": null}]}}',
      '{"s": "' + 'long '.repeat(3000) + '", "i": 5}',
    ]
    writeFileSync(join(dir, 'tricky.json'), lines.join('\n') + '\n')
    const read = async (thread: boolean): Promise<SourceChunk[]> => {
      const options = { connector: 'filesystem', path: dir, format: 'json', 'source.decode-thread': thread ? 'true' : 'false' }
      const reader = await source.create(sourceCtx(options, TS, 4))
      expect(reader instanceof ThreadedFileReader).toBe(thread)
      return drain(reader)
    }
    const main = await read(false)
    const threaded = await read(true)
    expect(threaded.map(plain)).toEqual(main.map(plain))
    const rows = threaded.flatMap(c => c.rows)
    expect(rows.length).toBe(lines.length)
    expect(rows[0]!.slice(0, 5)).toEqual([1, 9007199254740993n, 1e308, 'plain', Date.UTC(2024, 0, 2, 3, 4, 5, 678)])
    expect(rows[1]![3]).toBe('quote " backslash \\ slash / tab \t nl \n')
    expect(rows[2]![3]).toBe('é€ 🦀 lone \ud800 end')
    expect(rows[3]![3]).toBe('é€🦀 raw UTF-8')
    expect(Object.is(rows[4]![2], -0)).toBe(true)
    expect(rows[5]).toEqual(TS.map(() => null))
    expect(rows[6]!.slice(0, 4)).toEqual([7, null, null, 'case-insensitive key'])
    expect(rows[9]!.slice(0, 4)).toEqual([2, null, null, 'last'])
    expect(rows[11]![3]).toBe('long '.repeat(3000))
  })

  it("gives the main-thread reader's rows for several ASCII STRING columns and integers at the edges of the fast paths", async () => {
    // ASCII strings in three columns make each row's strings substrings of one slice of its text
    // (column-batch.ts): empty strings, NULLs, missing keys, escaped values (exceptions) and key orders
    // that change must each land in their own column. Integers of up to 15 digits are parsed as they
    // are scanned; 16 digits, leading zeros, fractions and exponents take the general path.
    const SS = [['a', T.string()], ['b', T.string()], ['c', T.string()], ['n', T.bigint()], ['x', T.double()]].map(([name, type]) => ({ name,
      type })
    ) as Field[]
    const r = random(11)
    const pick = <V>(xs: readonly V[]): V => xs[Math.floor(r() * xs.length)]!
    const strings = ['""', '"a"', '"hello world"', '"https://www.nexmark.com/item.htm?query=1&channel_id=447217664"', 'null', '"tab\\tescaped"', '"q\\"uote"']
    const numbers = ['0', '-0', '7', '-12', '999999999999999', '-999999999999999', '1000000000000000', '9007199254740993', '-9223372036854775808', '1.5', '2e3',
      '-1E-2', '100', '"17"', 'null']
    const lines: string[] = []
    for (let i = 0; i < 3000; i++) {
      const fields = ['a', 'b', 'c'].filter(() => r() < 0.9).map(k => `"${k}":${pick(strings)}`)
      if (r() < 0.9) fields.push(`"n":${pick(numbers)}`)
      if (r() < 0.5) fields.push(`"x":${pick(numbers)}`)
      if (r() < 0.2) fields.reverse()
      lines.push(`{${fields.join(',')}}`)
    }
    writeFileSync(join(dir, 'strings.json'), lines.join('\n') + '\n')
    const read = async (thread: boolean): Promise<SourceChunk[]> => {
      const options = { connector: 'filesystem', path: dir, format: 'json', 'source.decode-thread': thread ? 'true' : 'false' }
      const reader = await source.create(sourceCtx(options, SS, 500))
      expect(reader instanceof ThreadedFileReader).toBe(thread)
      return drain(reader)
    }
    const main = await read(false)
    const threaded = await read(true)
    expect(threaded.map(plain)).toEqual(main.map(plain))
    const rows = threaded.flatMap(c => c.rows)
    expect(rows.length).toBe(lines.length)
    // The reference: each line parsed by JSON.parse (integers beyond 2^53 aside, which stay exact as bigints).
    rows.forEach((row, i) => {
      const o = JSON.parse(lines[i]!) as Record<string, unknown>
      for (const [c, k] of ['a', 'b', 'c'].entries()) expect(row[c], lines[i]).toBe(o[k] ?? null)
      const n = lines[i]!.match(/"n":(-?\d+)[,}]/)?.[1]
      if (n !== undefined && n !== '-0') expect(row[3], lines[i]).toEqual(Math.abs(Number(n)) < 2 ** 53 ? Number(n) : BigInt(n))
    })
  })

  it("fails on a bad record with the main-thread reader's error: file, line, the record and what to do", async () => {
    const lines = randomLines(4, 2000, true)
    lines.splice(1500, 0, '{"i": 1, "k": "broken"')
    writeFileSync(join(dir, 'bad.json'), lines.join('\n') + '\n')
    const errors: WeirError[] = []
    for (const thread of [false, true]) {
      const e = await errorOf(async () => drain(await open(dir, thread, 100)))
      expect(e).toBeInstanceOf(WeirError)
      errors.push(e as WeirError)
    }
    const [main, threaded] = errors as [WeirError, WeirError]
    expect(main.message).toMatch(new RegExp(`bad record at .*bad\\.json:1501 \\(table 't'\\)`))
    expect(threaded.message).toBe(main.message)
    expect(threaded.kind).toBe(main.kind)
    expect(threaded.record).toEqual(main.record)
    expect(threaded.help).toBe(main.help)
  })

  it('fails on a NULL for a NOT NULL column as the main-thread reader does', async () => {
    writeFileSync(join(dir, 'n.json'), '{"k": "a"}\n{"i": 2}\n')
    const main = await errorOf(async () => drain(await open(dir, false, 10)))
    const threaded = await errorOf(async () => drain(await open(dir, true, 10)))
    expect(main.message).toMatch(/n\.json:2 .*column 'k' is NOT NULL/)
    expect(threaded.message).toBe(main.message)
  })

  it.each([1, 7, 40])('resumed from the position of chunk %i, taken while the worker read ahead, gives exactly the rest', async stop => {
    writeFileSync(join(dir, 'a.json'), randomLines(5, 4000).join('\n') + '\n')
    writeFileSync(join(dir, 'b.json'), randomLines(6, 1000).join('\n') + '\n')
    const extra = { 'json.ignore-parse-errors': 'true' }
    const straight = (await drain(await open(dir, false, 50, extra))).map(plain)
    const first = await open(dir, true, 50, extra)
    const taken: SourceChunk[] = []
    try {
      for (let i = 0; i < stop; i++) taken.push((await first.next())!)
      // Let the worker read ahead as far as its credit allows: those chunks must not count as read.
      for (let wait = 0; wait < 200 && (first as ThreadedFileReader).chunksAhead < 2; wait++) await new Promise(r => setTimeout(r, 10))
      expect((first as ThreadedFileReader).chunksAhead).toBeGreaterThanOrEqual(2)
    } finally {
      await first.close()
    }
    // The checkpoint records, per split, the position of the last chunk of that split taken.
    const positions: (SourceChunk['position'] | null)[] = [null, null]
    for (const c of taken) positions[c.split] = c.position
    const rest = (await drain(await open(dir, true, 50, extra, positions))).map(plain)
    const rows = (cs: unknown[]): Row[] => cs.flatMap(c => (c as SourceChunk).rows)
    expect([...rows(taken.map(plain)), ...rows(rest)]).toEqual(rows(straight))
    expect(rest.at(-1)).toEqual(straight.at(-1))
  })

  it('leaves no worker behind when cancelled mid-file or closed before its end', async () => {
    writeFileSync(join(dir, 'a.json'), randomLines(8, 5000).join('\n') + '\n')
    const abort = new AbortController()
    const reader = await open(dir, true, 100, { 'json.ignore-parse-errors': 'true' }, undefined, abort.signal)
    expect(decodeWorkersRunning()).toBe(1)
    expect(await reader.next()).not.toBeNull()
    const waiting = reader.next().then(async () => reader.next())
    abort.abort()
    expect(await waiting).toBeNull()
    await reader.close()
    expect(decodeWorkersRunning()).toBe(0)
    const closed = await open(dir, true, 100, { 'json.ignore-parse-errors': 'true' })
    await closed.next()
    await closed.close()
    expect(await closed.next()).toBeNull()
    expect(decodeWorkersRunning()).toBe(0)
  })

  it('reads other formats on the main thread, and refuses an unknown setting', async () => {
    writeFileSync(join(dir, 'a.csv'), '1,\n')
    const csv = await source.create(sourceCtx({ connector: 'filesystem', path: dir, format: 'csv', 'source.decode-thread': 'true' }, SCHEMA.slice(0, 2)))
    expect(csv instanceof ThreadedFileReader).toBe(false)
    expect((await drain(csv)).flatMap(c => c.rows)).toEqual([[1, null]])
    expect(() => source.validate({ connector: 'filesystem', path: dir, 'source.decode-thread': 'yes' }, SCHEMA)).toThrow(/source\.decode-thread/)
    // The default reads on the main thread.
    const plainReader = await source.create(sourceCtx({ connector: 'filesystem', path: dir, format: 'csv' }, SCHEMA.slice(0, 2)))
    expect(plainReader instanceof ThreadedFileReader).toBe(false)
    await plainReader.close()
  })

  it("'auto' reads on a worker only with two cores for each of the source's subtasks", async () => {
    writeFileSync(join(dir, 'a.json'), '{"id":1}\n')
    const cores = availableParallelism()
    for (const parallelism of [1, 2, 3]) {
      const ctx = { ...sourceCtx({ connector: 'filesystem', path: dir, format: 'json', 'source.decode-thread': 'auto' }, SCHEMA.slice(0, 2)),
        subtask: { index: 0, parallelism } }
      const reader = await source.create(ctx)
      expect(reader instanceof ThreadedFileReader, `${parallelism} subtasks on ${cores} cores`).toBe(cores >= 2 * parallelism)
      expect((await drain(reader)).flatMap(c => c.rows).length).toBe(reader.splitCount === 0 ? 0 : 1)
      await reader.close()
    }
  })

  it('stops its worker once the file has ended or a record failed, before close()', async () => {
    writeFileSync(join(dir, 'a.json'), randomLines(9, 300, true).join('\n') + '\n')
    const reader = await open(dir, true, 1000)
    while ((await reader.next()) !== null);
    expect(decodeWorkersRunning()).toBe(0)
    await reader.close()
    writeFileSync(join(dir, 'a.json'), '{"k": "a"}\nnot json\n')
    const failing = await open(dir, true, 1000)
    await expect(failing.next()).rejects.toThrow(/a\.json:2/)
    expect(decodeWorkersRunning()).toBe(0)
    await failing.close()
  })
})

describe('decode worker in a job', () => {
  async function job(thread: string, sql: string, signal?: AbortSignal): Promise<string[]> {
    const printed: string[] = []
    const session = new Session({ println: line => printed.push(line), ...(signal === undefined ? {} : { signal }) })
    await session.executeSql(`
      CREATE TABLE t (i INT, big BIGINT, dec DECIMAL(30, 4), d DOUBLE, b BOOLEAN, s STRING, ts TIMESTAMP(3), k STRING NOT NULL)
        WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json', 'source.decode-thread' = '${thread}');
      CREATE TABLE out (k STRING, c BIGINT, s STRING, m DECIMAL(30, 4)) WITH ('connector' = 'print');
      ${sql}`)
    await session.awaitJobs()
    return printed.sort()
  }
  const QUERY = `INSERT INTO out SELECT k, COUNT(*), MAX(s), SUM(dec) FROM t GROUP BY k`

  it('gives the output of reading on the main thread, and ends its worker with the job', async () => {
    writeFileSync(join(dir, 'a.json'), randomLines(10, 3000, true).join('\n') + '\n')
    const main = await job('false', QUERY)
    const threaded = await job('true', QUERY)
    expect(threaded).toEqual(main)
    expect(main.length).toBeGreaterThan(100)
    expect(decodeWorkersRunning()).toBe(0)
  })

  it('fails the job on a bad record, naming file and line, and ends its worker', async () => {
    const lines = randomLines(11, 3000, true)
    lines.splice(2500, 0, '{"k": "x", "dec": "not a number"}')
    writeFileSync(join(dir, 'a.json'), lines.join('\n') + '\n')
    await expect(job('true', QUERY)).rejects.toThrow(/bad record at .*a\.json:2501 \(table 't'\): column 'dec'/)
    expect(decodeWorkersRunning()).toBe(0)
  })

  it('ends its worker when the job is cancelled while the worker reads ahead', async () => {
    writeFileSync(join(dir, 'a.json'), randomLines(12, 20_000, true).join('\n') + '\n')
    const stop = new AbortController()
    const printed = job('true', `INSERT INTO out SELECT k, i, s, dec FROM t`, stop.signal)
    for (let wait = 0; wait < 500 && decodeWorkersRunning() === 0; wait++) await new Promise(r => setTimeout(r, 5))
    expect(decodeWorkersRunning()).toBe(1)
    stop.abort()
    await printed
    expect(decodeWorkersRunning()).toBe(0)
  })
})
