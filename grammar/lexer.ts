// The SQL scanner: text → Chevrotain tokens. Hand-written for speed and for errors that say what is
// wrong (unterminated string, stray character) instead of a generic "unexpected character".
import type { IToken, TokenType } from 'chevrotain'
import { WeirError } from '../common/errors.js'
import type { SourceText } from './source.js'
import * as T from './tokens.js'

const enum Ch {
  Tab = 9,
  LF = 10,
  VT = 11,
  FF = 12,
  CR = 13,
  Space = 32,
  Bang = 33,
  DQuote = 34,
  Dollar = 36,
  Percent = 37,
  Quote = 39,
  LParen = 40,
  RParen = 41,
  Star = 42,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  D0 = 48,
  D9 = 57,
  Semi = 59,
  Lt = 60,
  Eq = 61,
  Gt = 62,
  A = 65,
  E = 69,
  Z = 90,
  LBracket = 91,
  RBracket = 93,
  Underscore = 95,
  Backquote = 96,
  a = 97,
  e = 101,
  z = 122,
  Pipe = 124,
}

function isDigit(c: number): boolean {
  return c >= Ch.D0 && c <= Ch.D9
}

function isAsciiWordStart(c: number): boolean {
  return (c >= Ch.a && c <= Ch.z) || (c >= Ch.A && c <= Ch.Z) || c === Ch.Underscore || c === Ch.Dollar
}

const LETTER = /\p{L}/u

/** Length in code units of the non-ASCII letter at `i`, or 0 if there is none. */
function unicodeLetterAt(text: string, i: number): number {
  const cp = text.codePointAt(i)!
  return LETTER.test(String.fromCodePoint(cp)) ? (cp > 0xffff ? 2 : 1) : 0
}

/**
 * Splits SQL into tokens, skipping whitespace and comments but keeping `/*+ … *\/` hints as
 * HintStart … HintEnd around ordinary tokens.
 *
 * @example lex(new SourceText("SELECT 'it''s'")) // [SELECT, StringLit("'it''s'")]
 */
export function lex(src: SourceText): IToken[] {
  const text = src.text
  const n = text.length
  const tokens: IToken[] = []
  let hintStart = -1
  let i = 0

  const push = (type: TokenType, start: number, end: number): void => {
    tokens.push({ image: text.slice(start, end), startOffset: start, endOffset: end - 1, tokenType: type, tokenTypeIdx: type.tokenTypeIdx! })
  }

  while (i < n) {
    const c = text.charCodeAt(i)
    const start = i

    if (c === Ch.Space || c === Ch.LF || c === Ch.Tab || c === Ch.CR || c === Ch.FF || c === Ch.VT || c === 0xa0 || c === 0xfeff) {
      i++
      continue
    }

    if (isAsciiWordStart(c) || (c > 127 && unicodeLetterAt(text, i) > 0)) {
      // Track the letters' case so most keywords are found without upper-casing the word.
      let cases = caseOf(c)
      i += c > 127 ? unicodeLetterAt(text, i) : 1
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d < 128) {
          if (isAsciiWordStart(d) || isDigit(d)) i++
          else break
          cases |= caseOf(d)
        } else {
          const len = unicodeLetterAt(text, i)
          if (len === 0) break
          i += len
          cases |= NON_ASCII
        }
      }
      push(wordType(text, start, i, cases), start, i)
      continue
    }

    if (isDigit(c) || (c === Ch.Dot && isDigit(text.charCodeAt(i + 1)))) {
      while (isDigit(text.charCodeAt(i))) i++
      if (text.charCodeAt(i) === Ch.Dot) {
        i++
        while (isDigit(text.charCodeAt(i))) i++
      }
      const e = text.charCodeAt(i)
      if (e === Ch.e || e === Ch.E) {
        const sign = text.charCodeAt(i + 1)
        const digitAt = sign === Ch.Plus || sign === Ch.Minus ? i + 2 : i + 1
        if (isDigit(text.charCodeAt(digitAt))) {
          i = digitAt
          while (isDigit(text.charCodeAt(i))) i++
        }
      }
      if (i < n && (isAsciiWordStart(text.charCodeAt(i)) || (text.charCodeAt(i) > 127 && unicodeLetterAt(text, i) > 0))) {
        let end = i
        while (end < n && (isAsciiWordStart(text.charCodeAt(end)) || isDigit(text.charCodeAt(end)))) end++
        throw WeirError.syntax(`invalid number '${text.slice(start, end)}'`, {
          span: src.span(start, end),
          help: 'names cannot start with a digit; quote them with backquotes, e.g. `1st`',
        })
      }
      push(T.NumberLit, start, i)
      continue
    }

    switch (c) {
      case Ch.Quote: {
        i = scanQuoted(text, i, Ch.Quote)
        if (i < 0) {
          throw WeirError.syntax('unterminated string literal', { span: src.span(start, start + 1), help: "close the string with '" })
        }
        push(T.StringLit, start, i)
        continue
      }
      case Ch.Backquote: {
        i = scanQuoted(text, i, Ch.Backquote)
        if (i < 0) {
          throw WeirError.syntax('unterminated quoted name', { span: src.span(start, start + 1), help: 'close the name with `' })
        }
        if (i - start === 2) throw WeirError.syntax('empty quoted name', { span: src.span(start, i), help: 'a name needs at least one character' })
        push(T.QuotedIdentifier, start, i)
        continue
      }
      case Ch.Minus:
        if (text.charCodeAt(i + 1) === Ch.Minus) {
          const eol = text.indexOf('\n', i)
          i = eol === -1 ? n : eol + 1
          continue
        }
        push(T.Minus, start, ++i)
        continue
      case Ch.Slash:
        if (text.charCodeAt(i + 1) === Ch.Star) {
          if (text.charCodeAt(i + 2) === Ch.Plus) {
            if (hintStart >= 0) {
              throw WeirError.syntax('a hint cannot contain another hint', { span: src.span(start, start + 3), help: 'close the first hint with */' })
            }
            hintStart = start
            i += 3
            push(T.HintStart, start, i)
            continue
          }
          const close = text.indexOf('*/', i + 2)
          if (close === -1) throw WeirError.syntax('unterminated comment', { span: src.span(start, start + 2), help: 'close the comment with */' })
          i = close + 2
          continue
        }
        push(T.Slash, start, ++i)
        continue
      case Ch.Star:
        if (hintStart >= 0 && text.charCodeAt(i + 1) === Ch.Slash) {
          hintStart = -1
          i += 2
          push(T.HintEnd, start, i)
          continue
        }
        push(T.Star, start, ++i)
        continue
      case Ch.LParen:
        push(T.LParen, start, ++i)
        continue
      case Ch.RParen:
        push(T.RParen, start, ++i)
        continue
      case Ch.LBracket:
        push(T.LBracket, start, ++i)
        continue
      case Ch.RBracket:
        push(T.RBracket, start, ++i)
        continue
      case Ch.Comma:
        push(T.Comma, start, ++i)
        continue
      case Ch.Semi:
        push(T.Semicolon, start, ++i)
        continue
      case Ch.Dot:
        push(T.Dot, start, ++i)
        continue
      case Ch.Plus:
        push(T.Plus, start, ++i)
        continue
      case Ch.Percent:
        push(T.Percent, start, ++i)
        continue
      case Ch.Eq:
        if (text.charCodeAt(i + 1) === Ch.Gt) {
          i += 2
          push(T.Arrow, start, i)
          continue
        }
        if (text.charCodeAt(i + 1) === Ch.Eq) {
          throw WeirError.syntax("unexpected '=='", { span: src.span(start, start + 2), help: "SQL compares with a single '='" })
        }
        push(T.Eq, start, ++i)
        continue
      case Ch.Lt: {
        const d = text.charCodeAt(i + 1)
        if (d === Ch.Eq) {
          i += 2
          push(T.LtEq, start, i)
          continue
        }
        if (d === Ch.Gt) {
          i += 2
          push(T.NotEq, start, i)
          continue
        }
        push(T.Lt, start, ++i)
        continue
      }
      case Ch.Gt:
        if (text.charCodeAt(i + 1) === Ch.Eq) {
          i += 2
          push(T.GtEq, start, i)
          continue
        }
        push(T.Gt, start, ++i)
        continue
      case Ch.Bang:
        if (text.charCodeAt(i + 1) === Ch.Eq) {
          i += 2
          push(T.NotEq, start, i)
          continue
        }
        throw WeirError.syntax("unexpected character '!'", { span: src.span(start, start + 1), help: 'negate with NOT, compare with <> or !=' })
      case Ch.Pipe:
        if (text.charCodeAt(i + 1) === Ch.Pipe) {
          i += 2
          push(T.Concat, start, i)
          continue
        }
        throw WeirError.syntax("unexpected character '|'", { span: src.span(start, start + 1), help: "concatenate strings with '||'" })
      case Ch.DQuote:
        throw WeirError.syntax(`unexpected character '"'`, {
          span: src.span(start, start + 1),
          help: "write strings in single quotes ('text') and names in backquotes (`name`)",
        })
      default: {
        const ch = String.fromCodePoint(text.codePointAt(i)!)
        throw WeirError.syntax(`unexpected character '${ch}'`, { span: src.span(start, start + ch.length) })
      }
    }
  }

  if (hintStart >= 0) throw WeirError.syntax('unterminated hint', { span: src.span(hintStart, hintStart + 3), help: 'close the hint with */' })
  return tokens
}

const LOWER = 1
const UPPER = 2
const NON_ASCII = 4

function caseOf(c: number): number {
  return c >= Ch.a && c <= Ch.z ? LOWER : c >= Ch.A && c <= Ch.Z ? UPPER : c > 127 ? NON_ASCII : 0
}

/** Keywords by their upper- and lower-case spelling; mixed-case words are upper-cased first. */
const KEYWORD_SPELLINGS = new Map<string, TokenType>()
let longestKeyword = 0
for (const [word, type] of T.KEYWORDS) {
  KEYWORD_SPELLINGS.set(word, type)
  KEYWORD_SPELLINGS.set(word.toLowerCase(), type)
  longestKeyword = Math.max(longestKeyword, word.length)
}

/** Keyword or identifier. TIMESTAMP / TIMESTAMP_LTZ / DATE / TIME followed by a string start a typed literal. */
function wordType(text: string, start: number, end: number, cases: number): TokenType {
  if (end - start > longestKeyword || (cases & NON_ASCII) !== 0) return T.Identifier
  const word = text.slice(start, end)
  // x'0aFF': a binary literal (the quote right after the x, as SQL writes it).
  if (end - start === 1 && (word === 'x' || word === 'X') && text.charCodeAt(end) === Ch.Quote) return T.LiteralPrefix
  const type = KEYWORD_SPELLINGS.get(cases === (LOWER | UPPER) ? word.toUpperCase() : word)
  if (type === undefined) return T.Identifier
  if (type === T.TIMESTAMP || type === T.DATE || type === T.TIMESTAMP_LTZ || type === T.TIME) {
    let j = end
    for (let c = text.charCodeAt(j); c === Ch.Space || c === Ch.LF || c === Ch.Tab || c === Ch.CR; c = text.charCodeAt(++j));
    if (text.charCodeAt(j) === Ch.Quote) return T.LiteralPrefix
  }
  return type
}

/** Scans a quoted string or name starting at `i`; a doubled quote escapes it. Returns the end offset, or -1 if unterminated. */
function scanQuoted(text: string, i: number, quote: number): number {
  const q = String.fromCharCode(quote)
  let j = i + 1
  for (;;) {
    const close = text.indexOf(q, j)
    if (close === -1) return -1
    if (text.charCodeAt(close + 1) === quote) j = close + 2
    else return close + 1
  }
}

/** The value of a string literal or quoted name token: quotes removed, doubled quotes undone. */
export function unquote(image: string): string {
  const q = image[0]!
  const inner = image.slice(1, -1)
  return inner.includes(q) ? inner.split(q + q).join(q) : inner
}
