// JSON text as Flink's JSON functions read and write it. Flink parses with Jackson: object members
// keep their order, an integer is an integer of any size, and any other number is a Java double, so
// `1.50` is printed back as `1.5` and `1e2` as `100.0`. JSON.parse would reorder integer-like keys
// and lose whether a number was written with a fraction, so this is a small parser of its own.

import { formatDouble } from '../../common/values.js'

/** A JSON number, kept as written; `integer` when it has no fraction or exponent. */
export class JsonNumber {
  constructor(readonly text: string, readonly integer: boolean) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | Map<string, JsonValue>

/** Thrown for text that is not JSON (the JSON functions turn it into their ON ERROR behaviour). */
export class JsonSyntaxError extends Error {}

/** Parses JSON text (RFC 8259, whitespace around it allowed). */
export function parseJson(text: string): JsonValue {
  const p = new Parser(text)
  p.space()
  const v = p.value()
  p.space()
  if (p.at < text.length) p.fail('unexpected text after the value')
  return v
}

class Parser {
  at = 0
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new JsonSyntaxError(`${what} at character ${this.at + 1}`)
  }

  space(): void {
    const s = this.s
    while (this.at < s.length) {
      const c = s.charCodeAt(this.at)
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break
      this.at++
    }
  }

  value(): JsonValue {
    const s = this.s
    const c = s[this.at]
    switch (c) {
      case '{':
        return this.object()
      case '[':
        return this.array()
      case '"':
        return this.string()
      case 't':
        return this.word('true', true)
      case 'f':
        return this.word('false', false)
      case 'n':
        return this.word('null', null)
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number()
        return this.fail(c === undefined ? 'unexpected end of text' : `unexpected '${c}'`)
    }
  }

  private word<T>(w: string, v: T): T {
    if (!this.s.startsWith(w, this.at)) this.fail(`unexpected '${this.s[this.at]}'`)
    this.at += w.length
    return v
  }

  private number(): JsonNumber {
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y
    m.lastIndex = this.at
    const r = m.exec(this.s)
    if (r === null) return this.fail('bad number')
    this.at += r[0].length
    return new JsonNumber(r[0], r[1] === undefined && r[2] === undefined)
  }

  private string(): string {
    const s = this.s
    let out = ''
    let from = ++this.at
    for (;;) {
      if (this.at >= s.length) this.fail('unterminated string')
      const c = s.charCodeAt(this.at)
      if (c === 34) break
      if (c < 32) this.fail('control character in a string')
      if (c !== 92) {
        this.at++
        continue
      }
      out += s.slice(from, this.at)
      const e = s[this.at + 1]
      this.at += 2
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e
          break
        case 'b':
          out += '\b'
          break
        case 'f':
          out += '\f'
          break
        case 'n':
          out += '\n'
          break
        case 'r':
          out += '\r'
          break
        case 't':
          out += '\t'
          break
        case 'u': {
          const hex = s.slice(this.at, this.at + 4)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape')
          out += String.fromCharCode(parseInt(hex, 16))
          this.at += 4
          break
        }
        default:
          this.at -= 2
          this.fail('bad escape')
      }
      from = this.at
    }
    out += s.slice(from, this.at)
    this.at++
    return out
  }

  private array(): JsonValue[] {
    const out: JsonValue[] = []
    this.at++
    this.space()
    if (this.s[this.at] === ']') {
      this.at++
      return out
    }
    for (;;) {
      this.space()
      out.push(this.value())
      this.space()
      const c = this.s[this.at++]
      if (c === ']') return out
      if (c !== ',') this.fail(`expected ',' or ']'`)
    }
  }

  private object(): Map<string, JsonValue> {
    const out = new Map<string, JsonValue>()
    this.at++
    this.space()
    if (this.s[this.at] === '}') {
      this.at++
      return out
    }
    for (;;) {
      this.space()
      if (this.s[this.at] !== '"') this.fail('expected a member name')
      const k = this.string()
      this.space()
      if (this.s[this.at++] !== ':') this.fail(`expected ':'`)
      this.space()
      out.set(k, this.value())
      this.space()
      const c = this.s[this.at++]
      if (c === '}') return out
      if (c !== ',') this.fail(`expected ',' or '}'`)
    }
  }
}

/** A number's text as Jackson reads it and Java prints it: an integer's digits, else a double. */
export function numberText(n: JsonNumber): string {
  return n.integer ? BigInt(n.text).toString() : formatDouble(Number(n.text))
}

/** Compact JSON of a value, as Jackson writes it (members in their order, numbers as numberText). */
export function writeJson(v: JsonValue): string {
  if (v === null) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'string') return JSON.stringify(v)
  if (v instanceof JsonNumber) return numberText(v)
  if (Array.isArray(v)) return `[${v.map(writeJson).join(',')}]`
  let out = '{'
  let first = true
  for (const [k, x] of v) {
    out += `${first ? '' : ','}${JSON.stringify(k)}:${writeJson(x)}`
    first = false
  }
  return `${out}}`
}
