// Value conversion for file formats: the fast timestamp and decimal paths agree with the general
// parsers in common/values.ts, and reject what those reject.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { parseDecimal, parseTimestamp } from '../../common/values.js'
import { ConvertError, converterFor, fastDecimal, fastTimestamp, fastTimestampBytes } from '../../connectors/filesystem/convert.js'
import { numberTextOf } from '../../connectors/filesystem/json-decoder.js'
import { mulberry32 } from '../../common/random.js'

describe('fast paths', () => {
  it('parses timestamps exactly as parseTimestamp does', () => {
    const rand = mulberry32(5)
    for (let i = 0; i < 20_000; i++) {
      const ms = Math.floor((rand() / 2 ** 32) * 2 ** 43) - 2 ** 41
      const iso = new Date(ms).toISOString() // yyyy-MM-ddTHH:mm:ss.SSSZ
      if (!/^\d{4}-/.test(iso)) continue
      const text = iso.slice(0, 23).replace('T', i % 2 === 0 ? ' ' : 'T')
      expect(fastTimestamp(text)).toBe(ms)
      expect(fastTimestamp(text.slice(0, 21))).toBe(parseTimestamp(text.slice(0, 21)))
      expect(fastTimestamp(text.slice(0, 19))).toBe(parseTimestamp(text.slice(0, 19)))
    }
    for (const bad of ['2023-02-29 00:00:00', '2024-13-01 00:00:00', '2024-01-01 24:00:00', '2024-01-01 00:00:00.', '2024-01-01x00:00:00',
      '2024-04-31 00:00:00'])
    {
      expect(fastTimestamp(bad)).toBeNull()
      expect(parseTimestamp(bad)).toBeNull()
    }
    expect(fastTimestamp('2024-02-29 23:59:59.999')).toBe(parseTimestamp('2024-02-29 23:59:59.999'))
  })

  it('reads timestamps from bytes exactly as from text, anywhere in a buffer', () => {
    const rand = mulberry32(6)
    const texts = ['2023-02-29 00:00:00', '2024-13-01 00:00:00', '2024-01-01 24:00:00', '2024-01-01 00:00:00.', '2024-01-01x00:00:00', '2024-04-31 00:00:00',
      '2024-02-29 23:59:59.999', '2024-01-01 00:00:0a', '2024-01-01 00:00:00.1a', '2024-01-01', '']
    for (let i = 0; i < 5_000; i++) {
      const ms = Math.floor((rand() / 2 ** 32) * 2 ** 43) - 2 ** 41
      const iso = new Date(ms).toISOString()
      if (/^\d{4}-/.test(iso)) texts.push(iso.slice(0, 19 + (i % 5)).replace('T', i % 2 === 0 ? ' ' : 'T'))
    }
    // Timestamps of one date in a row (the date's day number is kept from one to the next), valid or not.
    for (const text of texts.slice(11, 600)) {
      for (const time of [' 23:59:59', ' 24:00:00', 'T00:00:00.5', ' 12:60:00', ' 00:00:00.123']) texts.push(text.slice(0, 10) + time)
      texts.push(text.slice(0, 8) + '31 00:00:00', text.slice(0, 8) + '30 00:00:00', text.slice(0, 5) + '02-29 00:00:00')
    }
    for (const [i, text] of texts.entries()) {
      const pad = i % 7
      const bytes = Buffer.from('"'.repeat(pad) + text + '9"')
      expect(fastTimestampBytes(bytes, pad, pad + text.length), text).toBe(fastTimestamp(text))
    }
  })

  it('reads timestamps of one second in a row exactly as from text (the second is kept from one to the next)', () => {
    const texts: string[] = []
    for (const second of ['2015-07-15 00:00:00', '2015-07-15T00:00:00', '2015-07-15 00:00:01', '2024-02-29 23:59:59', '2023-02-29 23:59:59',
      '2015-07-15 00:00:0x', '2015-07-15 00:00:60'])
    {
      for (const tail of ['', '.', '.0', '.5', '.12', '.123', '.1234', '.1a', '.a', 'x', '.999', '9', '.00']) texts.push(second + tail)
    }
    for (const [i, text] of [...texts, ...texts.reverse()].entries()) {
      const bytes = Buffer.from('x'.repeat(i % 5) + text + '"')
      expect(fastTimestampBytes(bytes, i % 5, i % 5 + text.length), text).toBe(fastTimestamp(text))
    }
  })

  it('parses plain decimals exactly as parseDecimal does, and defers the rest', () => {
    for (const [text, scale] of [['123.45', 2], ['-0.5', 3], ['7', 0], ['0.1', 4], ['999999999999999', 0], ['12.', 2]] as const) {
      expect(fastDecimal(text, scale)).toBe(parseDecimal(text, scale))
    }
    for (const [text, scale] of [['1.234', 2], ['1e5', 2], ['1234567890123456', 0], ['', 2], ['-', 0], ['1.2.3', 2], ['+1', 0]] as const) {
      expect(fastDecimal(text, scale)).toBeNull()
    }
  })

  it('finds the source text of a top-level number', () => {
    const line = '{"s": "\\"price\\": 1", "nested": {"price": 2}, "pr\\u0069ce2": 3, "price" : -12.50e0 , "x": [1]}'
    expect(numberTextOf(line, 'price')).toBe('-12.50e0')
    expect(numberTextOf(line, 'price2')).toBe('3')
    expect(numberTextOf(line, 'x')).toBeUndefined()
    expect(numberTextOf(line, 'missing')).toBeUndefined()
  })

  it('converts per column type and says what it expected', () => {
    expect(converterFor(T.int())('42')).toBe(42)
    expect(converterFor(T.boolean())('TRUE')).toBe(true)
    expect(converterFor(T.timestamp(0))('2024-01-01 00:00:01.999')).toBe(parseTimestamp('2024-01-01 00:00:01'))
    expect(converterFor(T.string())({ a: 1 })).toBe('{"a":1}')
    expect(() => converterFor(T.double())('x1')).toThrow(ConvertError)
    expect(() => converterFor(T.date())('2024-1-1x')).toThrow(/DATE/)
  })
})
