// CSV decoding (RFC 4180): columns by position, quoted fields with doubled quotes, delimiters and
// newlines inside quotes, an optional escape character, a null literal and '#' comment lines.
import type { Field } from '../../common/types.js'
import type { Row } from '../../core/batch.js'
import { ConvertError, converterFor, type Converter } from './convert.js'
import { MORE, RecordError, SKIP, type RecordDecoder } from './decoder.js'
import type { CsvConfig } from './options.js'

/**
 * Fields of one record; `quoted[i]` says whether field i was quoted (a quoted field is never the
 * null literal); `quoted` is null when no field was.
 */
export interface CsvFields {
  values: string[]
  quoted: boolean[] | null
}

/**
 * Splits `text` into fields, or returns null when a quoted field is still open at the end of the
 * text (the record continues on the next line).
 */
export function splitCsvRecord(text: string, config: CsvConfig): CsvFields | null {
  const { delimiter, quote, escape } = config
  // Fast path: nothing to unquote or unescape.
  if ((quote === null || text.indexOf(quote) === -1) && (escape === null || text.indexOf(escape) === -1)) {
    return { values: text.split(delimiter), quoted: null }
  }
  const values: string[] = []
  const quotedFlags: boolean[] = []
  let field = ''
  let quoted = false
  let inQuotes = false
  let atFieldStart = true
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text[i]!
    if (escape !== null && c === escape && i + 1 < n) {
      field += text[++i]
      atFieldStart = false
      continue
    }
    if (inQuotes) {
      if (c === quote) {
        if (text[i + 1] === quote) {
          field += quote
          i++
        } else inQuotes = false
      } else {
        field += c
      }
      continue
    }
    if (c === delimiter) {
      values.push(field)
      quotedFlags.push(quoted)
      field = ''
      quoted = false
      atFieldStart = true
      continue
    }
    if (c === quote && atFieldStart) {
      inQuotes = true
      quoted = true
      atFieldStart = false
      continue
    }
    // Text after a closing quote, or a quote inside an unquoted field, is kept literally.
    field += c
    atFieldStart = false
  }
  if (inQuotes) return null
  values.push(field)
  quotedFlags.push(quoted)
  return { values, quoted: quotedFlags }
}

export class CsvDecoder implements RecordDecoder {
  readonly ignoreOption = 'csv.ignore-parse-errors'
  private readonly converters: Converter[]
  private readonly isString: boolean[]
  private pending: string | null = null

  constructor(private readonly schema: readonly Field[], private readonly config: CsvConfig) {
    this.converters = schema.map(f => converterFor(f.type, { epoch: config.timestampEpoch, epochOption: 'csv.timestamp-format.epoch' }))
    this.isString = schema.map(f => f.type.kind === 'STRING')
  }

  decode(line: string): Row | typeof SKIP | typeof MORE {
    let text = line
    if (this.pending !== null) {
      text = this.pending + '\n' + line
      this.pending = null
    } else {
      if (line.length === 0 || (this.config.allowComments && line.charCodeAt(0) === 35 /* # */)) return SKIP
    }
    const fields = splitCsvRecord(text, this.config)
    if (fields === null) {
      this.pending = text
      return MORE
    }
    const n = this.schema.length
    if (fields.values.length !== n) {
      throw new RecordError(`expected ${n} field${n === 1 ? '' : 's'}, found ${fields.values.length}`)
    }
    const nullLiteral = this.config.nullLiteral
    const row = new Array<unknown>(n)
    for (let i = 0; i < n; i++) {
      const v = fields.values[i]!
      if (fields.quoted === null || !fields.quoted[i]) {
        // An unquoted empty field is NULL for every non-string type, whatever the null literal.
        if (v === nullLiteral || (v.length === 0 && !this.isString[i])) {
          row[i] = null
          continue
        }
      }
      try {
        row[i] = this.converters[i]!(v)
      } catch (e) {
        if (e instanceof ConvertError) throw new RecordError(`column '${this.schema[i]!.name}': ${e.message}`, this.schema[i]!.name, e.help)
        throw e
      }
    }
    return row
  }

  reset(): boolean {
    const had = this.pending !== null
    this.pending = null
    return had
  }
}
