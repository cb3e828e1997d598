// JSON-lines decoding: one object per line, fields matched to columns by name (exact, then
// case-insensitive). DECIMAL columns are read from the number's source text, never through a double,
// and so are integers that a double does not hold exactly (beyond 2^53).
import { parseKeepingDigits } from './exact-json.js'
import type { Field } from '../../common/types.js'
import type { Row } from '../../core/batch.js'
import { ConvertError, converterFor, type Converter } from './convert.js'
import { RecordError, SKIP, type RecordDecoder } from './decoder.js'
import type { JsonConfig } from './options.js'
import { truncateNumberText } from '../../common/int64.js'
import { isIntegral } from '../../common/types.js'

/** The path of a line's own object (decodeObject). */
const TOP_LEVEL: readonly string[] = []

export class JsonDecoder implements RecordDecoder {
  readonly ignoreOption: string
  private readonly names: string[]
  private readonly lowerNames: string[]
  private readonly converters: Converter[]
  readonly isDecimal: boolean[]
  private readonly hasDecimal: boolean
  private readonly hasNested: boolean
  readonly isInteger: boolean[]
  /** STRING columns: their converter keeps a string as it is. */
  readonly isString: boolean[]
  /** TIMESTAMP / TIMESTAMP_LTZ columns of precision ≥ 3: text 'yyyy-MM-dd HH:mm:ss[.SSS]' converts to its epoch ms as is (fastTimestamp). */
  readonly isMillisTimestamp: boolean[]
  /** Columns named like an Object.prototype member ('constructor', '__proto__'…), looked up as own properties only. */
  private readonly inherited: boolean[]

  /** `prefix`: the format whose options configure it ('debezium-json' reads its rows with it), for messages. */
  constructor(schema: readonly Field[], private readonly config: JsonConfig, prefix = 'json') {
    this.ignoreOption = `${prefix}.ignore-parse-errors`
    this.names = schema.map(f => f.name)
    this.lowerNames = schema.map(f => f.name.toLowerCase())
    this.converters = schema.map(f =>
      converterFor(f.type, { epoch: config.timestampEpoch, epochOption: `${prefix}.timestamp-format.epoch`, wholeSecondTimes: true })
    )
    this.isDecimal = schema.map(f => f.type.kind === 'DECIMAL')
    this.hasDecimal = this.isDecimal.includes(true)
    this.hasNested = schema.some(f => f.type.kind === 'ROW' || f.type.kind === 'ARRAY' || f.type.kind === 'MAP')
    this.isInteger = schema.map(f => isIntegral(f.type))
    this.isString = schema.map(f => f.type.kind === 'STRING')
    this.isMillisTimestamp = schema.map(f => (f.type.kind === 'TIMESTAMP' || f.type.kind === 'TIMESTAMP_LTZ') && f.type.precision >= 3)
    this.inherited = this.names.map(n => n in Object.prototype)
  }

  decode(line: string): Row | typeof SKIP {
    if (isBlank(line)) return SKIP
    let obj: unknown
    try {
      // Nested columns' numbers keep their digits (exact-json.ts); flat ones are read from the line.
      obj = this.hasNested ? parseKeepingDigits(line) : JSON.parse(line)
    } catch (e) {
      throw new RecordError(`invalid JSON (${(e as Error).message})`)
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw new RecordError(`expected a JSON object, found ${Array.isArray(obj) ? 'an array' : JSON.stringify(obj)}`)
    }
    return this.decodeObject(obj as Record<string, unknown>, line, TOP_LEVEL)
  }

  /**
   * The row of a parsed JSON object: `record` is at `path` (keys from the top, [] for the line
   * itself) in `text`, the text it was parsed from, which exact numbers are read from.
   */
  decodeObject(record: Record<string, unknown>, text: string, path: readonly string[]): Row {
    const n = this.names.length
    const row = new Array<unknown>(n)
    for (let i = 0; i < n; i++) {
      let key = this.names[i]!
      let v = this.inherited[i] && !Object.hasOwn(record, key) ? undefined : record[key]
      if (v === undefined) {
        const found = this.findInsensitive(record, i)
        if (found !== undefined) {
          key = found
          v = record[key]
        } else if (this.config.failOnMissingField) this.missing(i)
      }
      if (v === undefined || v === null) {
        row[i] = null
        continue
      }
      if (typeof v === 'number') {
        if (this.hasDecimal && this.isDecimal[i]) v = numberTextOf(text, key, path) ?? v
        // At 2^53 and beyond JSON.parse may have rounded it: the exact integer comes from the text
        // (only then, so the common case costs nothing).
        else if (this.isInteger[i] && !(v < 9007199254740992 && v > -9007199254740992)) {
          const digits = numberTextOf(text, key, path)
          v = (digits === undefined ? null : truncateNumberText(digits)) ?? v
        }
      }
      row[i] = this.convert(i, v)
    }
    return row
  }

  /** Column `i`'s value from `v`, its field's JSON value (not null; a number's exact text already taken). */
  convert(i: number, v: unknown): unknown {
    try {
      return this.converters[i]!(v)
    } catch (e) {
      if (e instanceof ConvertError) throw new RecordError(`column '${this.names[i]}': ${e.message}`, this.names[i], e.help)
      throw e
    }
  }

  /** Column `i`'s field is missing and 'json.fail-on-missing-field' is set. */
  missing(i: number): never {
    const key = this.names[i]!
    throw new RecordError(`field '${key}' is missing`, key)
  }

  reset(): boolean {
    return false
  }

  private findInsensitive(record: Record<string, unknown>, column: number): string | undefined {
    const want = this.lowerNames[column]!
    for (const k in record) if (k.toLowerCase() === want) return k
    return undefined
  }
}

export function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 13) return false
  }
  return true
}

/**
 * The source text of the number that is the value of `key` directly inside the object at `path`
 * (keys from the top-level object) of a line JSON.parse has accepted, or undefined.
 */
export function numberTextOf(line: string, key: string, path: readonly string[] = []): string | undefined {
  let text: string | undefined = line
  for (const k of path) {
    text = valueTextOf(text, k)
    if (text === undefined) return undefined
  }
  const found = valueTextOf(text, key)
  if (found === undefined) return undefined
  const c = found.charCodeAt(0)
  return c === 45 /* - */ || (c >= 48 && c <= 57) ? found : undefined
}

/**
 * The source text of the value of `key` directly inside the top-level object of `text`, which
 * JSON.parse has accepted (so the scan can assume valid JSON), or undefined. The last occurrence
 * wins, as in JSON.parse.
 */
export function valueTextOf(text: string, key: string): string | undefined {
  let found: string | undefined
  let i = skipWs(text, 0)
  if (text.charCodeAt(i) !== 123 /* { */) return undefined
  i++
  for (;;) {
    i = skipWs(text, i)
    if (text.charCodeAt(i) !== 34 /* " */) return found // '}' or end
    const keyEnd = skipString(text, i)
    const rawKey = text.slice(i + 1, keyEnd - 1)
    const matches = rawKey === key || (rawKey.indexOf('\\') !== -1 && JSON.parse(`"${rawKey}"`) === key)
    i = skipWs(text, keyEnd) + 1 // past ':'
    i = skipWs(text, i)
    const start = i
    i = skipValue(text, i)
    if (matches) found = text.slice(start, i)
    i = skipWs(text, i)
    if (text.charCodeAt(i) !== 44 /* , */) return found
    i++
  }
}

function skipWs(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i)
    if (c === 32 || c === 9 || c === 10 || c === 13) i++
    else return i
  }
}

/** Index just past the string starting at `i` (which is a '"'). */
function skipString(s: string, i: number): number {
  for (;;) {
    const q = s.indexOf('"', i + 1)
    if (q === -1) return s.length
    // The quote is escaped when an odd number of backslashes precede it.
    let b = q - 1
    while (s.charCodeAt(b) === 92 /* \ */) b--
    if ((q - 1 - b) % 2 === 0) return q + 1
    i = q
  }
}

function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c === 34) return skipString(s, i)
  if (c === 123 || c === 91) {
    let depth = 0
    for (;;) {
      const d = s.charCodeAt(i)
      if (Number.isNaN(d)) return i
      if (d === 34) {
        i = skipString(s, i)
        continue
      }
      if (d === 123 || d === 91) depth++
      else if (d === 125 || d === 93) {
        depth--
        if (depth === 0) return i + 1
      }
      i++
    }
  }
  // number or literal: up to the next delimiter
  for (;;) {
    const d = s.charCodeAt(i)
    if (Number.isNaN(d) || d === 44 || d === 125 || d === 93 || d === 32 || d === 9 || d === 10 || d === 13) return i
    i++
  }
}
