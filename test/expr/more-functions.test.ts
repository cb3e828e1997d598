// The built-in functions of Flink added in expr/functions/{text,printf,hash,inspect}.ts and the
// hyperbolic / radix ones in math.ts: each against the value Flink documents (quoted), NULLs,
// edge cases of the Java implementations, and the bind-time errors.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { callableFunctionNames } from '../../expr/builtins.js'
import { apply, call, col, errorOf, lit, num, run, span, str } from './helpers.js'

const S = T.string()
const I = T.int()
const B = T.bigint()
const D = T.double()
const s1 = (name: string, v: unknown) => apply(name, [S], [v])
const s2 = (name: string, a: unknown, b: unknown) => apply(name, [S, S], [a, b])

describe('STARTSWITH, ENDSWITH, INSTR', () => {
  it('gives the documented values', () => {
    // Flink's tests: STARTSWITH(f1, 'ww') with f1 = 'www.apache.org' is TRUE; STARTSWITH(f3, '中') with f3 = 'in中文' is FALSE.
    expect(s2('STARTSWITH', 'www.apache.org', 'ww')).toBe(true)
    expect(s2('STARTSWITH', 'www.apache.org', '.')).toBe(false)
    expect(s2('STARTSWITH', 'in中文', 'in中')).toBe(true)
    expect(s2('STARTSWITH', 'in中文', '中')).toBe(false)
    expect(s2('ENDSWITH', 'www.apache.org', 'org')).toBe(true)
    expect(s2('ENDSWITH', 'in中文', 'n中文')).toBe(true)
    expect(s2('ENDSWITH', 'in中文', '中')).toBe(false)
    // An empty prefix or suffix is always there; an empty string starts with nothing else.
    expect(s2('STARTSWITH', 'abc', '')).toBe(true)
    expect(s2('ENDSWITH', '', '')).toBe(true)
    expect(s2('STARTSWITH', '', 'abc')).toBe(false)
    expect(s2('STARTSWITH', null, 'abc')).toBe(null)
    expect(s2('ENDSWITH', 'abc', null)).toBe(null)
  })

  it('compares UTF-8 bytes: half of a surrogate pair is no prefix', () => {
    // Flink's tests: STARTSWITH('😀', '\uD83D') and ENDSWITH('😀', '\uDE00') are FALSE.
    expect(s2('STARTSWITH', '😀', '\uD83D')).toBe(false)
    expect(s2('ENDSWITH', '😀', '\uDE00')).toBe(false)
    expect(s2('ENDSWITH', '😀', '😀')).toBe(true)
    expect(s2('STARTSWITH', '😀x', '😀')).toBe(true)
    expect(s2('ENDSWITH', 'x😀', '😀')).toBe(true)
    // A lone surrogate is '?' in Java's bytes: it matches '?' and another lone surrogate.
    expect(s2('STARTSWITH', 'a\uD800b', 'a?')).toBe(true)
    expect(s2('ENDSWITH', 'a?', '\uDE00')).toBe(true)
    expect(s2('STARTSWITH', '\uD800', '\uDC00')).toBe(true)
    expect(s2('STARTSWITH', 'a?', 'a\uD800')).toBe(true)
    expect(s2('STARTSWITH', 'ab', 'a?')).toBe(false)
  })

  it('INSTR is 1-based, 0 when absent', () => {
    // Flink: "Returns the position of the first occurrence of string2 in string1. Returns NULL if any of arguments is NULL."
    expect(s2('INSTR', 'hello', 'l')).toBe(3)
    expect(s2('INSTR', 'hello', 'z')).toBe(0)
    expect(s2('INSTR', 'hello', '')).toBe(1)
    expect(s2('INSTR', null, 'l')).toBe(null)
    expect(call('INSTR', col(0, T.string(false)), str('a')).type).toEqual(T.int(false))
  })

  it('INSTR with a start position and an occurrence, backwards from a negative start (Flink SqlFunctionUtils.instr)', () => {
    const instr = (...v: unknown[]) => apply('INSTR', [S, S, I, I].slice(0, v.length), v)
    expect(instr('hello world hello', 'hello', 2)).toBe(13)
    expect(instr('abcabc', 'bc', 1, 2)).toBe(5)
    expect(instr('abcabc', 'bc', 1, 3)).toBe(0)
    expect(instr('abcabc', 'bc', 0)).toBe(0)
    expect(instr('abcabc', 'bc', 9)).toBe(0)
    expect(instr('abcabc', 'bc', -1)).toBe(5)
    expect(instr('abcabc', 'bc', -1, 2)).toBe(2)
    expect(instr('abcabc', 'bc', -3)).toBe(2)
    expect(instr('a😀b😀', '😀', -1)).toBe(5)
    expect(instr('abc', '', 2, 3)).toBe(1)
    expect(instr('abc', 'b', null)).toBe(null)
    expect(() => instr('abc', 'b', 1, 0)).toThrow('INSTR: the occurrence must be positive, got 0')
  })
})

describe('REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR', () => {
  it('count, position and first match', () => {
    // Flink: REGEXP_COUNT('ababab', 'ab') returns 3; REGEXP_INSTR('hello world', 'o') returns 5.
    expect(s2('REGEXP_COUNT', 'ababab', 'ab')).toBe(3)
    expect(s2('REGEXP_COUNT', 'abc', 'x')).toBe(0)
    // Java counts the empty match at every position, the end included.
    expect(s2('REGEXP_COUNT', 'abc', '')).toBe(4)
    expect(s2('REGEXP_INSTR', 'hello world', 'o')).toBe(5)
    expect(s2('REGEXP_INSTR', 'hello world', 'x')).toBe(0)
    expect(s2('REGEXP_INSTR', 'abc', '\\d')).toBe(0)
    expect(s2('REGEXP_SUBSTR', 'hello 123 and 456', '[0-9]+')).toBe('123')
    expect(s2('REGEXP_SUBSTR', 'hello', '[0-9]+')).toBe(null)
    expect(s2('REGEXP_SUBSTR', 'Hello', '(?i)h.l')).toBe('Hel')
    for (const f of ['REGEXP_COUNT', 'REGEXP_INSTR', 'REGEXP_SUBSTR']) {
      expect(s2(f, null, 'a')).toBe(null)
      expect(s2(f, 'a', null)).toBe(null)
      // An invalid pattern from a column gives NULL (Flink catches the PatternSyntaxException).
      expect(s2(f, 'a', '(a')).toBe(null)
    }
  })

  it('refuses an invalid literal pattern where it is written', () => {
    for (const f of ['REGEXP_COUNT', 'REGEXP_INSTR', 'REGEXP_SUBSTR']) {
      const e = errorOf(() => call(f, col(0, S), str('(a')))
      expect(e.message).toMatch(/^invalid regular expression '\(a'/)
      expect(e.span).toEqual(span)
    }
  })
})

describe('TRANSLATE', () => {
  it('maps characters one to one, drops those without a counterpart', () => {
    // Flink: TRANSLATE('AaBbCc', 'abc', '123') returns A1B2C3; with '1' returns A1BC; with '' returns ABC;
    // TRANSLATE('www.apache.org', 'wapcheorg', ' APCHEcom') returns '   .APACHE.com'.
    const tr = (...v: unknown[]) => apply('TRANSLATE', [S, S, S], v)
    expect(tr('AaBbCc', 'abc', '123')).toBe('A1B2C3')
    expect(tr('AaBbCc', 'abc', '1')).toBe('A1BC')
    expect(tr('AaBbCc', 'abc', '')).toBe('ABC')
    expect(tr('www.apache.org', 'wapcheorg', ' APCHEcom')).toBe('   .APACHE.com')
    // Flink's tests: TRANSLATE('www.apache.org', 'abc', '123') = 'www.1p13he.org'; code points, not UTF-16 units.
    expect(tr('www.apache.org', 'abc', '123')).toBe('www.1p13he.org')
    expect(tr('www😀.😀org', '😀w', '笑α')).toBe('ααα笑.笑org')
    // The first mapping of a repeated character wins.
    expect(tr('aaa', 'aa', 'xy')).toBe('xxx')
    // Not strict, as Flink's: NULL input is NULL, NULL from gives the input, NULL to removes.
    expect(tr(null, 'a', 'b')).toBe(null)
    expect(tr('abc', null, 'x')).toBe('abc')
    expect(tr('abc', 'b', null)).toBe('ac')
    expect(call('TRANSLATE', col(0, T.string(false)), col(1, S), col(2, S)).type).toEqual(T.string(false))
  })
})

describe('base64, CHR, URL encoding', () => {
  it('TO_BASE64 / FROM_BASE64', () => {
    // Flink: TO_BASE64('hello world') returns "aGVsbG8gd29ybGQ="; FROM_BASE64('aGVsbG8gd29ybGQ=') returns "hello world".
    expect(s1('TO_BASE64', 'hello world')).toBe('aGVsbG8gd29ybGQ=')
    expect(s1('FROM_BASE64', 'aGVsbG8gd29ybGQ=')).toBe('hello world')
    expect(s1('TO_BASE64', 'é😀')).toBe('w6nwn5iA')
    expect(s1('FROM_BASE64', 'w6nwn5iA')).toBe('é😀')
    expect(s1('TO_BASE64', '')).toBe('')
    expect(s1('FROM_BASE64', '')).toBe('')
    // Java's decoder takes unpadded input.
    expect(s1('FROM_BASE64', 'aGk')).toBe('hi')
    expect(s1('TO_BASE64', null)).toBe(null)
    expect(s1('FROM_BASE64', null)).toBe(null)
  })

  it('FROM_BASE64 of invalid input fails the row with what and where (Java throws too)', () => {
    for (const bad of ['a$b=', 'abcde', 'ab=c']) {
      let e: unknown
      try {
        s1('FROM_BASE64', bad)
      } catch (x) {
        e = x
      }
      expect(e).toBeInstanceOf(WeirError)
      expect((e as WeirError).message).toBe(`FROM_BASE64: '${bad}' is not valid base64`)
      expect((e as WeirError).span).toEqual(span)
    }
  })

  it('CHR takes the low 8 bits', () => {
    // Flink: chr(97) returns a, chr(353) returns a.
    expect(apply('CHR', [I], [97])).toBe('a')
    expect(apply('CHR', [I], [353])).toBe('a')
    expect(apply('CHR', [B], [2n ** 60n + 98n])).toBe('b')
    expect(apply('CHR', [I], [0])).toBe('\u0000')
    expect(apply('CHR', [I], [255])).toBe('ÿ')
    expect(apply('CHR', [I], [-1])).toBe('')
    expect(apply('CHR', [I], [null])).toBe(null)
    expect(errorOf(() => call('CHR', str('a'))).message).toBe(`cannot apply 'CHR' to (CHAR(1))`)
  })

  it('URL_ENCODE / URL_DECODE as Java URLEncoder / URLDecoder (UTF-8)', () => {
    // Flink: URL_ENCODE('http://www.apache.org/?a=b c') gives 'http%3A%2F%2Fwww.apache.org%2F%3Fa%3Db+c' (space as '+').
    expect(s1('URL_ENCODE', 'http://www.apache.org/?a=b c')).toBe('http%3A%2F%2Fwww.apache.org%2F%3Fa%3Db+c')
    expect(s1('URL_ENCODE', 'a.b-c*d_e~f')).toBe('a.b-c*d_e%7Ef')
    expect(s1('URL_ENCODE', 'é😀')).toBe('%C3%A9%F0%9F%98%80')
    expect(s1('URL_DECODE', 'http%3A%2F%2Fwww.apache.org%2F%3Fa%3Db+c')).toBe('http://www.apache.org/?a=b c')
    expect(s1('URL_DECODE', '%C3%A9%F0%9F%98%80')).toBe('é😀')
    expect(s1('URL_DECODE', 'a%2bb')).toBe('a+b')
    // A broken escape is an IllegalArgumentException in Java: NULL in Flink.
    expect(s1('URL_DECODE', 'a%2')).toBe(null)
    expect(s1('URL_DECODE', 'a%zz')).toBe(null)
    expect(s1('URL_ENCODE', null)).toBe(null)
    expect(s1('URL_DECODE', null)).toBe(null)
  })
})

describe('PARSE_URL', () => {
  const url = 'http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1'
  const parse = (...v: unknown[]) => apply('PARSE_URL', [S, S, S].slice(0, v.length), v)

  it('gives the documented parts', () => {
    // Flink: parse_url('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST') returns 'facebook.com';
    // parse_url(…, 'QUERY', 'k1') returns 'v1'.
    expect(parse(url, 'HOST')).toBe('facebook.com')
    expect(parse(url, 'QUERY', 'k1')).toBe('v1')
    expect(parse(url, 'QUERY', 'k2')).toBe('v2')
    expect(parse(url, 'QUERY', 'k3')).toBe(null)
    expect(parse(url, 'PATH')).toBe('/path1/p.php')
    expect(parse(url, 'QUERY')).toBe('k1=v1&k2=v2')
    expect(parse(url, 'REF')).toBe('Ref1')
    expect(parse(url, 'PROTOCOL')).toBe('http')
    expect(parse(url, 'FILE')).toBe('/path1/p.php?k1=v1&k2=v2')
    expect(parse(url, 'AUTHORITY')).toBe('facebook.com')
    expect(parse(url, 'USERINFO')).toBe(null)
  })

  it('user info, ports, missing parts and refusals as java.net.URL', () => {
    const u = 'https://bob:pw@example.com:8443/a?x=1&y=&x=2'
    expect(parse(u, 'USERINFO')).toBe('bob:pw')
    expect(parse(u, 'HOST')).toBe('example.com')
    expect(parse(u, 'AUTHORITY')).toBe('bob:pw@example.com:8443')
    expect(parse(u, 'QUERY', 'x')).toBe('1')
    expect(parse(u, 'QUERY', 'y')).toBe('')
    expect(parse('http://example.com', 'PATH')).toBe('')
    expect(parse('http://example.com', 'QUERY')).toBe(null)
    expect(parse('http://example.com', 'REF')).toBe(null)
    expect(parse('http://[::1]:80/p', 'HOST')).toBe('[::1]')
    // The key is matched literally, not as a pattern.
    expect(parse('http://h/?a.b=1&axb=2', 'QUERY', 'a.b')).toBe('1')
    // Unknown protocol (MalformedURLException), unknown part name, a key with another part: NULL.
    expect(parse('foo://example.com/', 'HOST')).toBe(null)
    expect(parse('not a url', 'HOST')).toBe(null)
    expect(parse(url, 'host')).toBe(null)
    expect(parse(url, 'HOST', 'k1')).toBe(null)
    expect(parse(null, 'HOST')).toBe(null)
    expect(parse(url, null)).toBe(null)
    expect(parse(url, 'QUERY', null)).toBe(null)
  })
})

describe('ELT', () => {
  it('picks the index-th expression, NULL outside 1..n', () => {
    // Flink: ELT(1, 'scala', 'java') returns 'scala'; ELT(2, 'a', 'b') returns 'b'; ELT(0, …) and ELT(3, 'a', 'b') are NULL.
    const elt = (...v: unknown[]) => apply('ELT', [I, ...v.slice(1).map(() => S)], v)
    expect(elt(1, 'scala', 'java')).toBe('scala')
    expect(elt(2, 'a', 'b')).toBe('b')
    expect(elt(0, 'a', 'b')).toBe(null)
    expect(elt(3, 'a', 'b')).toBe(null)
    expect(elt(null, 'a', 'b')).toBe(null)
    expect(elt(2, 'a', null)).toBe(null)
    expect(apply('ELT', [B, S, S], [9223372036854775807n, 'ab', 'b'])).toBe(null)
    // The expressions share a common type.
    const r = call('ELT', num('2'), num('1'), num('2.5'))
    expect(r.type.kind).toBe('DECIMAL')
    expect(run(r)).toBe(25n)
    expect(call('ELT', col(0, T.int(false)), str('a')).type.nullable).toBe(true)
  })

  it('refuses a negative literal index, a non-integer index and mixed types', () => {
    // Flink: ELT(-1, 'a') fails validation with "Index must be an integer starting from '0', but was '-1'."
    expect(errorOf(() => call('ELT', num('-1'), str('a'))).message).toBe('ELT index must be an integer starting from 0, but was -1')
    expect(errorOf(() => call('ELT', str('1'), str('a'))).message).toBe(`'ELT' needs an integer index, got CHAR(1)`)
    expect(errorOf(() => call('ELT', num('1'))).message).toBe(`'ELT' takes at least 2 arguments but was given 1`)
    expect(errorOf(() => call('ELT', num('1'), str('a'), lit(true, T.boolean(false)))).message).toMatch(/^ELT expressions have incompatible types/)
  })
})

describe('PRINTF', () => {
  const printf = (fmt: unknown, types: readonly (typeof S)[], values: readonly unknown[]) => apply('PRINTF', [S, ...types], [fmt, ...values])

  it("formats as Java's String.format", () => {
    // Flink's tests: PRINTF('%08d', 1024) = '00001024'; PRINTF('%.1f', 10.24) = '10.2'; PRINTF('%s %s', 1, 2, 3) = '1 2';
    // PRINTF('empty') = 'empty'; PRINTF('%d %s', NULL, NULL) = 'null null'; PRINTF('%b', TRUE) = 'true'.
    expect(printf('%08d', [I], [1024])).toBe('00001024')
    expect(printf('%.1f', [D], [10.24])).toBe('10.2')
    expect(printf('%s %s', [I, I, I], [1, 2, 3])).toBe('1 2')
    expect(printf('empty', [], [])).toBe('empty')
    expect(printf('%d %s', [I, S], [null, null])).toBe('null null')
    expect(printf('%b', [T.boolean()], [true])).toBe('true')
    // Flink's docs: PRINTF('Hello, %s! You have %d new messages.', 'Alice', 5).
    expect(printf('Hello, %s! You have %d new messages.', [S, I], ['Alice', 5])).toBe('Hello, Alice! You have 5 new messages.')
    expect(
      printf('%5d|%-5d|%+d|% d|%x|%X|%5.2f|%%|%3s|%-3s|%.2s|%S', [I, I, I, I, I, B, D, S, S, S, S], [42, 42, 7, 7, -1, -255n, 3.14159, 'a', 'b', 'xyz', 'up']),
    )
      .toBe('   42|42   |+7| 7|ffffffff|FFFFFFFFFFFFFF01| 3.14|%|  a|b  |xy|UP')
    expect(printf('%d', [B], [9223372036854775807n])).toBe('9223372036854775807')
    expect(printf('%06d', [I], [-42])).toBe('-00042')
    // Java rounds the shortest decimal form HALF_UP: 0.125 → 0.13, 1.005 → 1.01; the default precision is 6.
    expect(printf('%.2f %.2f %f %.0f', [D, D, D, D], [0.125, 1.005, -0.0001, 2.5])).toBe('0.13 1.01 -0.000100 3')
    expect(printf('%f', [D], [NaN])).toBe('NaN')
    expect(printf('%.1f', [D], [-Infinity])).toBe('-Infinity')
    expect(printf('%b %b', [S, S], [null, 'x'])).toBe('false true')
    expect(printf('%S|%X|%.2s|%6d|%-6s|', [S, I, S, I, S], [null, null, null, null, null])).toBe('NULL|NULL|nu|  null|null  |')
    // %s prints Flink's internal values: DECIMAL digits, a DATE's epoch days, TimestampData as LocalDateTime.
    expect(printf('%s', [T.decimal(4, 2)], [1024n])).toBe('10.24')
    expect(printf('%s', [T.date()], [19934])).toBe('19934')
    expect(printf('%s', [T.timestamp(3)], [Date.UTC(2024, 6, 30, 10, 24, 0, 256)])).toBe('2024-07-30T10:24:00.256')
    expect(printf('%s', [T.timestamp(3)], [Date.UTC(2024, 6, 30, 10, 24)])).toBe('2024-07-30T10:24')
    // Java's Double.toString, as CAST prints a DOUBLE too.
    expect(printf('%s|%s|%s|%s|%s|%s', [D, D, D, D, D, D], [1e7, 1234.5, 0.001, 1.5e-4, -0, 1e21])).toBe('1.0E7|1234.5|0.001|1.5E-4|-0.0|1.0E21')
    expect(printf('a%nb', [], [])).toBe('a\nb')
    expect(printf(null, [I], [1])).toBe(null)
  })

  it('refuses a literal format Java would refuse, at bind time', () => {
    const bad = (fmt: string, ...args: ReturnType<typeof col>[]) => errorOf(() => call('PRINTF', str(fmt), ...args))
    expect(bad('%s').message).toBe(`PRINTF format '%s': '%s' has no argument (the format needs more than 0)`)
    expect(bad('%q', col(0, I)).message).toBe(`PRINTF format '%q': the conversion '%q' is not supported`)
    expect(bad('%d', col(0, D)).message).toBe(`PRINTF format '%d': '%d' cannot format argument 2 of type DOUBLE`)
    expect(bad('%f', col(0, I)).message).toBe(`PRINTF format '%f': '%f' cannot format argument 2 of type INT`)
    expect(bad('%.2d', col(0, I)).message).toBe(`PRINTF format '%.2d': '%.2d' takes no precision`)
    expect(bad('%-d', col(0, I)).message).toBe(`PRINTF format '%-d': '%-d' needs a width for the flags '-'`)
    expect(bad('%,d', col(0, I)).message).toMatch(/uses a flag or argument index PRINTF does not support/)
    expect(bad('%1$s', col(0, I)).message).toMatch(/uses a flag or argument index PRINTF does not support/)
    expect(bad('%+s', col(0, S)).message).toBe(`PRINTF format '%+s': '%+s' combines %s with the flags '+'`)
    expect(bad('abc%').message).toBe(`PRINTF format 'abc%': '%' has no conversion`)
    const e = bad('%e', col(0, D))
    expect(e.span).toEqual(span)
    expect(e.help).toMatch(/^PRINTF supports %s/)
    expect(errorOf(() => call('PRINTF', col(0, I))).message).toBe('PRINTF needs a STRING format, got INT')
    expect(errorOf(() => call('PRINTF')).message).toBe(`'PRINTF' takes at least 1 argument but was given 0`)
  })

  it('a format from a column that Java refuses fails the row, naming the format', () => {
    let e: unknown
    try {
      printf('%d', [D], [1.5])
    } catch (x) {
      e = x
    }
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toBe(`PRINTF format '%d': '%d' cannot format argument 2 of type DOUBLE`)
  })
})

describe('math: hyperbolic, COT, E, BIN, HEX', () => {
  it('gives the documented values', () => {
    const d1 = (name: string, v: unknown) => apply(name, [D], [v])
    expect(d1('SINH', 1)).toBe(Math.sinh(1))
    expect(d1('COSH', 0)).toBe(1)
    expect(d1('TANH', 0.5)).toBe(Math.tanh(0.5))
    expect(d1('COT', 1)).toBe(1 / Math.tan(1))
    expect(d1('COT', 0)).toBe(Infinity)
    expect(apply('SINH', [I], [2])).toBe(Math.sinh(2))
    expect(apply('COSH', [T.decimal(3, 1)], [15n])).toBe(Math.cosh(1.5))
    expect(d1('TANH', null)).toBe(null)
    expect(run(call('E'))).toBe(Math.E)
    expect(call('E').type).toEqual(T.double(false))
    expect(errorOf(() => call('E', num('1'))).message).toBe(`'E' takes 0 arguments but was given 1`)
    // Flink: 4.bin() returns "100" and 12.bin() returns "1100".
    expect(apply('BIN', [I], [4])).toBe('100')
    expect(apply('BIN', [I], [12])).toBe('1100')
    expect(apply('BIN', [I], [0])).toBe('0')
    // Java's Long.toBinaryString: a negative number in 64-bit two's complement.
    expect(apply('BIN', [I], [-1])).toBe('1'.repeat(64))
    expect(apply('BIN', [B], [2n ** 62n])).toBe(`1${'0'.repeat(62)}`)
    // Flink: a numeric 20 leads to "14", a numeric 100 leads to "64", a string "hello,world" leads to "68656C6C6F2C776F726C64".
    expect(apply('HEX', [I], [20])).toBe('14')
    expect(apply('HEX', [I], [100])).toBe('64')
    expect(apply('HEX', [S], ['hello,world'])).toBe('68656C6C6F2C776F726C64')
    expect(apply('HEX', [I], [-1])).toBe('FFFFFFFFFFFFFFFF')
    expect(apply('HEX', [B], [-9223372036854775808n])).toBe('8000000000000000')
    expect(apply('HEX', [S], ['é'])).toBe('C3A9')
    expect(apply('HEX', [S], [null])).toBe(null)
    expect(apply('BIN', [I], [null])).toBe(null)
    expect(errorOf(() => call('HEX', col(0, D))).message).toBe(`cannot apply 'HEX' to (DOUBLE)`)
    expect(errorOf(() => call('BIN', col(0, S))).message).toBe(`cannot apply 'BIN' to (STRING)`)
  })
})

describe('hash functions', () => {
  it('hex digests of the UTF-8 bytes, lower-case', () => {
    // Flink: MD5('') = 'd41d8cd98f00b204e9800998ecf8427e'; SHA1('') = 'da39a3ee5e6b4b0d3255bfef95601890afd80709'.
    expect(s1('MD5', '')).toBe('d41d8cd98f00b204e9800998ecf8427e')
    expect(s1('SHA1', '')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709')
    expect(s1('MD5', 'hello')).toBe('5d41402abc4b2a76b9719d911017c592')
    expect(s1('SHA224', 'abc')).toBe('23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7')
    expect(s1('SHA256', 'abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(s1('SHA384', 'abc')).toBe('cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7')
    expect(s1('SHA512', 'abc')).toBe(
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    )
    expect(s1('SHA256', null)).toBe(null)
    // Java encodes a lone surrogate as '?': the digest, HEX and base64 of '\uD800' are those of '?'.
    expect(s1('MD5', '\uD800')).toBe(s1('MD5', '?'))
    expect(s1('HEX', 'a\uDC00')).toBe('613F')
    expect(s1('TO_BASE64', '\uD800')).toBe('Pw==')
    expect(s1('MD5', '😀')).not.toBe(s1('MD5', '?'))
  })

  it('SHA2 picks the length; a literal length outside the four is refused', () => {
    const sha2 = (s: unknown, n: unknown) => apply('SHA2', [S, I], [s, n])
    for (const [n, f] of [[224, 'SHA224'], [256, 'SHA256'], [384, 'SHA384'], [512, 'SHA512']] as const) expect(sha2('abc', n)).toBe(s1(f, 'abc'))
    expect(sha2(null, 256)).toBe(null)
    expect(sha2('abc', null)).toBe(null)
    const e = errorOf(() => call('SHA2', str('abc'), num('100')))
    expect(e.message).toBe('SHA2 does not support the hash length 100')
    expect(e.help).toBe('the length must be 224, 256, 384 or 512')
    expect(() => sha2('abc', 100)).toThrow('SHA2: unsupported hash length 100')
    expect(errorOf(() => call('MD5', col(0, I))).message).toBe(`cannot apply 'MD5' to (INT)`)
  })
})

describe('IS_ALPHA, IS_DIGIT, IS_DECIMAL, TYPEOF', () => {
  it('test a string, never NULL', () => {
    expect(s1('IS_ALPHA', 'abcXYZ')).toBe(true)
    expect(s1('IS_ALPHA', 'héllo')).toBe(true)
    expect(s1('IS_ALPHA', 'ab1')).toBe(false)
    expect(s1('IS_ALPHA', '')).toBe(false)
    expect(s1('IS_ALPHA', null)).toBe(false)
    expect(apply('IS_ALPHA', [I], [1])).toBe(false)
    expect(s1('IS_DIGIT', '0123')).toBe(true)
    expect(s1('IS_DIGIT', '12.3')).toBe(false)
    expect(s1('IS_DIGIT', '-1')).toBe(false)
    expect(s1('IS_DIGIT', '')).toBe(false)
    expect(s1('IS_DIGIT', null)).toBe(false)
    expect(apply('IS_DIGIT', [I], [-5])).toBe(true)
    expect(apply('IS_DIGIT', [D], [1.5])).toBe(false)
    for (const yes of ['1', '-12', '+3', '1.5', '.5', '5.', '1e10', '1.5E-3', ' 7 ', 'NaN', '-Infinity', '1.5f', '2d', '0x1p3']) {
      expect([yes, s1('IS_DECIMAL', yes)]).toEqual([yes, true])
    }
    for (const no of ['', 'abc', '1,5', '0x10', '1e', '.', 'inf', '--1', null]) expect([no, s1('IS_DECIMAL', no)]).toEqual([no, false])
    expect(apply('IS_DECIMAL', [D], [1.5])).toBe(true)
    expect(apply('IS_DECIMAL', [T.decimal(5, 2)], [1n])).toBe(true)
    expect(apply('IS_DECIMAL', [T.boolean()], [true])).toBe(false)
    expect(call('IS_DIGIT', col(0, S)).type).toEqual(T.boolean(false))
  })

  it("TYPEOF names the argument's type", () => {
    // Flink: TYPEOF(1) is 'INT NOT NULL'; a nullable column's type has no NOT NULL.
    expect(run(call('TYPEOF', num('1')))).toBe('INT NOT NULL')
    expect(run(call('TYPEOF', col(0, I)))).toBe('INT')
    expect(run(call('TYPEOF', col(0, T.decimal(10, 2, false))))).toBe('DECIMAL(10, 2) NOT NULL')
    expect(run(call('TYPEOF', col(0, T.timestamp(3, true, 'rowtime'))))).toBe('TIMESTAMP(3) *ROWTIME*')
    expect(run(call('TYPEOF', col(0, S), lit(true, T.boolean(false))))).toBe('STRING')
    expect(call('TYPEOF', col(0, S)).type).toEqual(T.string(false))
    expect(errorOf(() => call('TYPEOF', col(0, S), col(1, T.boolean()))).message).toBe(
      `'TYPEOF' needs a BOOLEAN literal as forceSerializable, got BOOLEAN`,
    )
  })
})

describe('wrong arity and types', () => {
  it("get the binder's usual message and the expected signature", () => {
    const arity = errorOf(() => call('STARTSWITH', str('a')))
    expect(arity.message).toBe(`'STARTSWITH' takes 2 arguments but was given 1`)
    expect(arity.help).toBe('STARTSWITH(STRING, prefix)')
    const types = errorOf(() => call('TRANSLATE', col(0, S), col(1, I), str('x')))
    expect(types.message).toBe(`cannot apply 'TRANSLATE' to (STRING, INT, CHAR(1))`)
    expect(types.help).toBe('expected TRANSLATE(STRING, fromStr, toStr)')
    expect(types.span).toEqual(span)
    expect(errorOf(() => call('PARSE_URL', str('http://a'))).message).toBe(`'PARSE_URL' takes 2 to 3 arguments but was given 1`)
    expect(errorOf(() => call('URL_ENCODE', col(0, I))).message).toBe(`cannot apply 'URL_ENCODE' to (INT)`)
    expect(errorOf(() => call('SHA2', str('a'))).message).toBe(`'SHA2' takes 2 arguments but was given 1`)
    expect(errorOf(() => call('SINH', str('a'))).message).toBe(`cannot apply 'SINH' to (CHAR(1))`)
    expect(errorOf(() => call('IS_ALPHA')).message).toBe(`'IS_ALPHA' takes 1 argument but was given 0`)
    expect(errorOf(() => call('TYPEOF')).message).toBe(`'TYPEOF' takes 1 to 2 arguments but was given 0`)
    expect(errorOf(() => call('INSTR', str('a'), str('b'), str('c'))).message).toBe(`cannot apply 'INSTR' to (CHAR(1), CHAR(1), CHAR(1))`)
  })
})

describe('SHOW FUNCTIONS', () => {
  it('lists every new function', () => {
    const names = callableFunctionNames()
    for (
      const f of ['STARTSWITH', 'ENDSWITH', 'INSTR', 'REGEXP_COUNT', 'REGEXP_INSTR', 'REGEXP_SUBSTR', 'TRANSLATE', 'TO_BASE64', 'FROM_BASE64', 'CHR', 'PRINTF',
        'URL_ENCODE', 'URL_DECODE', 'PARSE_URL', 'ELT', 'SINH', 'COSH', 'TANH', 'COT', 'E', 'BIN', 'HEX', 'MD5', 'SHA1', 'SHA224', 'SHA256', 'SHA384', 'SHA512',
        'SHA2', 'IS_ALPHA', 'IS_DIGIT', 'IS_DECIMAL', 'TYPEOF']
    ) expect(names).toContain(f)
  })
})
