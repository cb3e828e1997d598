// Flink's ENCODE(string, charset) → BYTES and DECODE(bytes, charset) → STRING, with Java's
// String.getBytes / new String semantics for the six charsets every JVM has: a character the
// charset cannot hold encodes as '?' (one per code point), bytes that are not valid in it decode as
// U+FFFD. 'UTF-16' writes a big-endian byte order mark and reads one (big-endian without it).
import { WeirError } from '../../common/errors.js'
import { T } from '../../common/types.js'
import { checkArgs, literalValue, mkCall, type CallRex, type FunctionDef } from '../registry.js'

export const CHARSETS = ['US-ASCII', 'ISO-8859-1', 'UTF-8', 'UTF-16BE', 'UTF-16LE', 'UTF-16'] as const
type Charset = (typeof CHARSETS)[number]

const CHARSET_HELP = `the charset must be one of ${CHARSETS.map(c => `'${c}'`).join(', ')}`

/** The charset a name stands for (case-insensitive, as Java's Charset.forName), or undefined. */
export function charsetOf(name: string): Charset | undefined {
  const upper = name.trim().toUpperCase()
  return CHARSETS.find(c => c === upper)
}

const utf16be = new TextDecoder('utf-16be')
const utf16le = new TextDecoder('utf-16le')
const utf8 = new TextDecoder('utf-8')

/** Swaps each pair of bytes (UTF-16LE ↔ UTF-16BE). */
function swapped(b: Uint8Array): Buffer {
  const out = Buffer.from(b)
  for (let i = 0; i + 1 < out.length; i += 2) {
    const x = out[i]!
    out[i] = out[i + 1]!
    out[i + 1] = x
  }
  return out
}

/** The code points of `s`, a lone surrogate as itself. */
function* codePoints(s: string): Generator<number> {
  for (const ch of s) yield ch.codePointAt(0)!
}

const isSurrogate = (cp: number) => cp >= 0xd800 && cp < 0xe000

/** Java's String.getBytes(charset). */
export function encode(s: string, charset: Charset): Uint8Array {
  switch (charset) {
    case 'US-ASCII':
    case 'ISO-8859-1': {
      const max = charset === 'US-ASCII' ? 0x7f : 0xff
      const out: number[] = []
      for (const cp of codePoints(s)) out.push(cp <= max ? cp : 0x3f)
      return Uint8Array.from(out)
    }
    case 'UTF-8': {
      // A lone surrogate has no UTF-8 form: Java writes '?'.
      let text = ''
      for (const ch of s) text += ch.length === 1 && isSurrogate(ch.charCodeAt(0)) ? '?' : ch
      return new Uint8Array(Buffer.from(text, 'utf8'))
    }
    case 'UTF-16BE':
    case 'UTF-16LE':
    case 'UTF-16': {
      // A lone surrogate is replaced by U+FFFD, as Java's UTF-16 encoders do.
      let text = ''
      for (const ch of s) text += ch.length === 1 && isSurrogate(ch.charCodeAt(0)) ? '\uFFFD' : ch
      const le = Buffer.from(text, 'utf16le')
      if (charset === 'UTF-16LE') return new Uint8Array(le)
      const be = swapped(le)
      return new Uint8Array(charset === 'UTF-16' ? Buffer.concat([Buffer.from([0xfe, 0xff]), be]) : be)
    }
  }
}

/** Java's new String(bytes, charset). */
export function decode(b: Uint8Array, charset: Charset): string {
  switch (charset) {
    case 'US-ASCII': {
      let out = ''
      for (const x of b) out += x < 0x80 ? String.fromCharCode(x) : '\uFFFD'
      return out
    }
    case 'ISO-8859-1':
      return Buffer.from(b).toString('latin1')
    case 'UTF-8':
      return utf8.decode(b)
    case 'UTF-16BE':
      return utf16be.decode(b)
    case 'UTF-16LE':
      return utf16le.decode(b)
    case 'UTF-16':
      // A byte order mark picks the order and is dropped; without one, big-endian.
      if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return utf16le.decode(b.subarray(2))
      if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return utf16be.decode(b.subarray(2))
      return utf16be.decode(b)
  }
}

/** The charset of a call's second argument: checked once for a literal, per row otherwise. */
function charsetArg(call: CallRex): (name: string) => Charset {
  const fixed = literalValue(call.args[1])
  const check = (name: string): Charset => {
    const c = charsetOf(name)
    if (c === undefined) throw new WeirError('execution', `${call.op}: unsupported charset '${name}'`, { span: call.span, help: CHARSET_HELP })
    return c
  }
  if (typeof fixed === 'string') {
    const c = check(fixed)
    return () => c
  }
  return check
}

function charsetFunction(name: 'ENCODE' | 'DECODE'): FunctionDef {
  const signature = name === 'ENCODE' ? 'ENCODE(STRING, charset STRING) → BYTES' : 'DECODE(BYTES, charset STRING) → STRING'
  return {
    names: [name],
    signature,
    bind: (args, ctx) => {
      // A bare NULL to DECODE is NULL BYTES ('ANY' would make it a STRING).
      const typed = name === 'DECODE' && args[0]?.type.kind === 'NULL' ? [ctx.cast(args[0], T.bytes()), ...args.slice(1)] : args
      const [value, cs] = checkArgs(typed, [name === 'ENCODE' ? 'STRING' : 'ANY', 'STRING'], 2, ctx, signature)
      const v = value!
      if (name === 'DECODE') {
        if (v.type.kind !== 'BYTES') {
          throw ctx.error(`cannot apply 'DECODE' to a ${v.type.kind}: it decodes BYTES`,
            `expected ${signature}; for a string, ENCODE it first or CAST it to BYTES`)
        }
      }
      const fixed = literalValue(cs)
      if (typeof fixed === 'string' && charsetOf(fixed) === undefined) throw ctx.error(`${name}: unsupported charset '${fixed}'`, CHARSET_HELP)
      const nullable = v.type.nullable || cs!.type.nullable
      return mkCall(name, [v, cs!], name === 'ENCODE' ? T.bytes(nullable) : T.string(nullable), ctx.span)
    },
    impl: call => {
      const charset = charsetArg(call)
      return name === 'ENCODE'
        ? { fn: (s: string, c: string) => encode(s, charset(c)), nulls: 'strict' }
        : { fn: (b: Uint8Array, c: string) => decode(b, charset(c)), nulls: 'strict' }
    },
  }
}

export const CHARSET_FUNCTIONS: readonly FunctionDef[] = [charsetFunction('ENCODE'), charsetFunction('DECODE')]
