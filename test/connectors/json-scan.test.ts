// The JSON scanner that reads only a job's columns from a record's bytes (json-scan.ts) against
// JsonDecoder, its reference: on random records, valid and broken, it gives the decoder's row (NULL
// for columns not read), the decoder's error, or FALLBACK (the caller then asks the decoder) — never a
// row for a record JSON.parse rejects.
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../common/random.js'
import { T, type DataType, type Field } from '../../common/types.js'
import { RecordError, SKIP } from '../../connectors/filesystem/decoder.js'
import { JsonDecoder } from '../../connectors/filesystem/json-decoder.js'
import { FALLBACK, JsonFieldScanner } from '../../connectors/filesystem/json-scan.js'
import type { JsonConfig } from '../../connectors/filesystem/options.js'

const SCHEMA: Field[] = [
  { name: 'auction', type: T.bigint() },
  { name: 'n', type: T.int() },
  { name: 'price', type: T.double() },
  { name: 'amount', type: T.decimal(20, 3) },
  { name: 'url', type: T.string() },
  { name: 'dateTime', type: T.timestamp(3) },
  { name: 'ok', type: T.boolean() },
  { name: 'prix€', type: T.string() },
  { name: 'constructor', type: T.bigint() },
]
const NULL_TYPE: DataType = { kind: 'NULL', nullable: true }

function config(failOnMissingField: boolean): JsonConfig {
  return { ignoreParseErrors: false, failOnMissingField, timestampStandard: 'SQL', timestampEpoch: null }
}

type Outcome = { row: unknown[] } | { error: string } | { fallback: true } | { skip: true }

function viaDecoder(schema: Field[], cfg: JsonConfig, text: string): Outcome {
  try {
    const r = new JsonDecoder(schema, cfg).decode(text)
    return r === SKIP ? { skip: true } : { row: r as unknown[] }
  } catch (e) {
    if (e instanceof RecordError) return { error: e.message }
    throw e
  }
}

function viaScanner(read: boolean[], cfg: JsonConfig, text: string | Buffer, pad = 1): Outcome {
  const decoder = new JsonDecoder(SCHEMA, cfg)
  const scanner = new JsonFieldScanner(decoder, SCHEMA.map(f => f.name), read, cfg.failOnMissingField)
  // Somewhere inside a larger buffer, as a Kafka record batch holds it (at any alignment: the scanner reads words).
  const head = Buffer.from('x'.repeat(pad) + '{"')
  const bytes = Buffer.concat([head, Buffer.from(text), Buffer.from('}"')])
  try {
    const r = scanner.decode(bytes, head.length, bytes.length - 2)
    return r === FALLBACK ? { fallback: true } : { row: r as unknown[] }
  } catch (e) {
    if (e instanceof RecordError) return { error: e.message }
    throw e
  }
}

/** What the scanner must give: the decoder's outcome over the schema with unread columns typed NULL (always NULL). */
function expected(read: boolean[], cfg: JsonConfig, text: string): Outcome {
  return viaDecoder(SCHEMA.map((f, i) => (read[i] ? f : { ...f, type: NULL_TYPE })), cfg, text)
}

function parses(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text)
    return v !== null && typeof v === 'object' && !Array.isArray(v)
  } catch {
    return false
  }
}

/** A random record: schema fields (some missing, some repeated, some of the wrong type) and other keys, in random order and spacing. */
function randomRecord(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const ws = (): string => (rand() < 0.8 ? '' : pick([' ', '\n', '\t', '\r\n  ']))
  const str = (): string =>
    JSON.stringify(pick(['', 'abc', 'https://www.nexmark.com/item.htm?query=1', 'é€😀', 'a"b\\c', 'tab\there', '\u0001', '2015-07-15 00:00:00.000']))
      .replace(/é/g, rand() < 0.5 ? '\\u00e9' : 'é')
  const num = (): string =>
    pick(['0', '-0', '7', '-12', '1004', '9007199254740993', '-9007199254740995', '123456789012345678901', '1.5', '-2.25e3', '1E2', '0.001', '999999999999999',
      '-999999999999999', '1000000000000000'])
  const value = (): string => {
    const r = rand()
    if (r < 0.4) return num()
    if (r < 0.7) return str()
    if (r < 0.8) return pick(['true', 'false', 'null'])
    if (r < 0.9) return pick(['{}', '[]', '{"a":[1,{"b":"}"}]}', '[1, "]", null]', `{"x":${str()}}`])
    return pick(['"2015-07-15 00:00:00.010"', '"2015-13-45 00:00:00"', '12.345', '"12.5"'])
  }
  const keys = [...SCHEMA.map(f => f.name), 'bidder', 'extra', 'Auction', 'PRICE', 'a\\u0062', '__proto__', 'URL\\u0000']
  const parts: string[] = []
  const count = Math.floor(rand() * 12)
  for (let i = 0; i < count; i++) {
    const k = rand() < 0.85 ? pick(SCHEMA).name : pick(keys)
    parts.push(`${ws()}${JSON.stringify(k).replace(/\\\\u/g, '\\u')}${ws()}:${ws()}${value()}${ws()}`)
  }
  return `${ws()}{${parts.join(',')}}${ws()}`
}

const EDIT_BYTES = Buffer.from(' {}[]",:\\-.0e1tfnu\u0000\u001f\u007f', 'latin1')

/** A record's bytes broken (or not) by one edit: a byte dropped, inserted or replaced (some not UTF-8), or the end cut off. */
function mutate(bytes: Buffer, rand: () => number): Buffer {
  const at = Math.floor(rand() * (bytes.length + 1))
  const b = Buffer.from([rand() < 0.8 ? EDIT_BYTES[Math.floor(rand() * EDIT_BYTES.length)]! : 0x80 + Math.floor(rand() * 128)])
  switch (Math.floor(rand() * 4)) {
    case 0:
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)])
    case 1:
      return Buffer.concat([bytes.subarray(0, at), b, bytes.subarray(at)])
    case 2:
      return Buffer.concat([bytes.subarray(0, at), b, bytes.subarray(at + 1)])
    default:
      return bytes.subarray(0, at)
  }
}

describe('JSON field scanner', () => {
  it('reads the bench bid exactly as the decoder does, without falling back', () => {
    const bid = '{"auction":1004,"n":1009,"price":7057575,"url":"https://www.nexmark.com/sswx/kcy/kuo/item.htm?query=1&channel_id=447217664",' +
      '"dateTime":"2015-07-15 00:00:00.000","amount":12.5,"ok":true,"prix€":"é€","constructor":3}'
    const all = SCHEMA.map(() => true)
    expect(viaScanner(all, config(false), bid)).toEqual(expected(all, config(false), bid))
    const some = SCHEMA.map(f => f.name === 'auction' || f.name === 'dateTime')
    const r = viaScanner(some, config(false), bid)
    expect(r).toEqual({ row: [1004, null, null, null, null, Date.UTC(2015, 6, 15), null, null, null] })
  })

  it('leaves unread columns unconverted: a value of the wrong type there is no error', () => {
    const text = '{"auction": 1, "price": "not a number", "ok": 3}'
    const read = SCHEMA.map(f => f.name === 'auction')
    expect(viaScanner(read, config(false), text)).toEqual({ row: [1, null, null, null, null, null, null, null, null] })
    expect(viaScanner(SCHEMA.map(() => true), config(false), text)).toEqual(viaDecoder(SCHEMA, config(false), text))
    expect(viaDecoder(SCHEMA, config(false), text)).toMatchObject({ error: expect.stringContaining("column 'price'") })
  })

  it('keeps exact integers beyond 2^53, DECIMALs from their text, and a missing field an error when asked', () => {
    const text = '{"auction": 9007199254740993, "amount": 0.1, "n": 2.9}'
    const all = SCHEMA.map(() => true)
    const r = viaScanner(all, config(false), text)
    expect(r).toEqual(expected(all, config(false), text))
    expect((r as { row: unknown[] }).row[0]).toBe(9007199254740993n)
    expect(viaScanner(all, config(true), text)).toEqual({ error: "field 'price' is missing" })
  })

  it('falls back on keys that match a column only case-insensitively, and on what JSON.parse rejects', () => {
    const all = SCHEMA.map(() => true)
    for (const text of ['{"AUCTION": 1}', '{"auction": 1,}', '{"auction": 01}', '{"auction": 1} x', '[1]', '', '{"url": "a\u0001"}', '{"a\\u0075ction": 1}']) {
      expect(viaScanner(all, config(false), text), text).toEqual({ fallback: true })
    }
  })

  it('finds a quote, backslash, control or non-ASCII byte at any position and alignment in a long string', () => {
    // Plain bytes are skipped four at a time from a word boundary on: each special byte must still stop it.
    const specials = ['"', '\\', '\\n', '\u0000', '\u001f', '\u007f', 'é', '😀', ' ']
    const checked = SCHEMA.map(f => f.name === 'url' || f.name === 'auction')
    for (const special of specials) {
      for (let at = 0; at <= 13; at++) {
        for (let pad = 0; pad < 4; pad++) {
          const content = 'x'.repeat(at) + special + 'y'.repeat(13 - at)
          for (const text of [`{"url":"${content}","auction":1}`, `{"bidder":"${content}","auction":2}`]) {
            const got = viaScanner(checked, config(false), text, pad)
            if ('fallback' in got) continue
            expect(parses(text), text).toBe(true)
            expect(got, text).toEqual(expected(checked, config(false), text))
          }
        }
      }
    }
    // Raw control bytes and lone quotes inside a string make the record invalid: never a row.
    for (const bad of ['\u0001', '\t', '"']) {
      for (let at = 0; at <= 9; at++) {
        const text = `{"url":"${'x'.repeat(at)}${bad}${'y'.repeat(9 - at)}","auction":1}`
        for (let pad = 0; pad < 4; pad++) expect('row' in viaScanner(checked, config(false), text, pad), JSON.stringify(text)).toBe(false)
      }
    }
  })

  it('keeps agreeing over records in a row, whose key order it learns: same order, other orders, keys like a column name', () => {
    // One scanner for all records (as a reader has): each key is first compared with the name of the
    // column that followed the previous key last time, so orders that change and keys that only
    // begin like a name (or a name begins like them) must still find their column, or none.
    const rand = seededRandom(23)
    const cfg = config(false)
    const read = SCHEMA.map(f => f.name !== 'ok')
    const decoder = new JsonDecoder(SCHEMA, cfg)
    const scanner = new JsonFieldScanner(decoder, SCHEMA.map(f => f.name), read, cfg.failOnMissingField)
    const usual = '{"auction":1,"n":2,"price":3.5,"url":"u","dateTime":"2015-07-15 00:00:00.000","ok":true,"amount":1.25,"prix€":"p","constructor":4}'
    const lookalikes = ['auctio', 'auctionX', 'u', 'urlx', 'ur', 'nn', 'n ', 'dateTim', 'prix', 'prix€€', 'constructo']
    let rows = 0
    for (let i = 0; i < 20_000; i++) {
      const x = rand()
      let text: string
      if (x < 0.5) text = usual
      else if (x < 0.7) {
        // The usual record with a key swapped for a lookalike, or two fields swapped.
        const fields = usual.slice(1, -1).split(/,(?=")/)
        const at = Math.floor(rand() * fields.length)
        if (rand() < 0.5) fields[at] = fields[at]!.replace(/^"[^"]*"/, JSON.stringify(lookalikes[Math.floor(rand() * lookalikes.length)]))
        else fields.splice(Math.floor(rand() * fields.length), 0, ...fields.splice(at, 1))
        text = `{${fields.join(',')}}`
      } else text = randomRecord(rand)
      const bytes = Buffer.from('  ' + text)
      let got: Outcome
      try {
        const r = scanner.decode(bytes, 2, bytes.length)
        got = r === FALLBACK ? { fallback: true } : { row: r as unknown[] }
      } catch (e) {
        if (!(e instanceof RecordError)) throw e
        got = { error: e.message }
      }
      if ('fallback' in got) continue
      expect(got, text).toEqual(expected(read, cfg, text))
      if ('row' in got) rows++
    }
    expect(rows).toBeGreaterThan(12_000)
  })

  it('agrees with the decoder on random records, broken or not, with random columns read', () => {
    const rand = seededRandom(17)
    let scanned = 0
    let rows = 0
    for (let i = 0; i < 20_000; i++) {
      let bytes: Buffer = Buffer.from(randomRecord(rand))
      if (rand() < 0.5) bytes = mutate(bytes, rand)
      // What the Kafka source gives the decoder: the value's bytes as UTF-8 text.
      const text = bytes.toString('utf8')
      const read = SCHEMA.map(() => rand() < 0.6)
      const cfg = config(rand() < 0.2)
      const got = viaScanner(read, cfg, bytes, Math.floor(rand() * 8))
      if ('fallback' in got) continue
      scanned++
      // Never a row or a value error for text JSON.parse rejects.
      expect(parses(text), text).toBe(true)
      expect(got, text).toEqual(expected(read, cfg, text))
      if ('row' in got) rows++
    }
    // Most records JSON.parse accepts take the scanner's path (rows and value errors alike).
    expect(scanned).toBeGreaterThan(8_000)
    expect(rows).toBeGreaterThan(2_000)
  })

  it('makes the strings of a record with several STRING columns from one slice: each its own value, also after a bad record', () => {
    // A record's ASCII strings are substrings of one slice of its bytes (json-scan.ts sliceRecord): a
    // wrong offset, a slice left from an earlier record (one whose timestamp failed after its strings
    // were made) or a non-ASCII or escaped value mixed in must show as a value unlike the decoder's.
    const schema: Field[] = [
      { name: 'a', type: T.string() },
      { name: 'n', type: T.bigint() },
      { name: 'b', type: T.string() },
      { name: 't', type: T.timestamp(3) },
      { name: 'c', type: T.string() },
    ]
    const cfg = config(false)
    const decoder = new JsonDecoder(schema, cfg)
    const scanner = new JsonFieldScanner(decoder, schema.map(f => f.name), schema.map(() => true), false)
    const rand = seededRandom(41)
    const word = (): string => {
      const x = rand()
      const base = rand().toString(36).slice(2, 2 + Math.floor(rand() * 30))
      return x < 0.6 ? base : x < 0.75 ? base + 'é€' : x < 0.9 ? base + '\\"q\\n' : ''
    }
    const value = (): string => {
      const x = rand()
      return x < 0.8 ? `"${word()}"` : x < 0.9 ? 'null' : '7'
    }
    const lines: string[] = []
    for (let i = 0; i < 5_000; i++) {
      const fields = [`"a":${value()}`, `"n":${Math.floor(rand() * 1e6)}`, `"b":${value()}`,
        `"t":${rand() < 0.2 ? '"not a time"' : '"2015-07-15 00:00:01.000"'}`, `"c":${value()}`]
      lines.push(`{${fields.filter(() => rand() < 0.9).join(',')}}`)
    }
    // One buffer for all records, as a reader's block holds its lines.
    const block = Buffer.from(lines.join('\n'))
    let at = 0
    let rows = 0
    let errors = 0
    for (const line of lines) {
      const end = at + Buffer.byteLength(line)
      let got: Outcome
      try {
        const r = scanner.decode(block, at, end)
        got = r === FALLBACK ? { fallback: true } : { row: r as unknown[] }
      } catch (e) {
        if (!(e instanceof RecordError)) throw e
        got = { error: e.message }
      }
      at = end + 1
      if ('fallback' in got) continue
      expect(got, line).toEqual(viaDecoder(schema, cfg, line))
      if ('row' in got) rows++
      else errors++
    }
    expect(rows).toBeGreaterThan(3_000)
    expect(errors).toBeGreaterThan(500)
  })
})
