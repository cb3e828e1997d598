// The exactly-once Kafka sink's sealed messages as bytes (connectors/kafka/sink/sealed-messages.ts):
// every message comes back as it was sealed (keys, values and partitions, nulls, multi-byte text, in
// several chunks), and bytes that are not such an encoding are a checkpoint error, not wrong messages.
import { describe, expect, it } from 'vitest'
import type { Message } from '../../connectors/kafka/sink/messages.js'
import { decodeSealedMessages, encodeSealedMessages } from '../../connectors/kafka/sink/sealed-messages.js'
import { errorOf } from './helpers.js'

const MESSAGES: Message[] = [
  [0, '{"k":"a"}', '{"k":"a","n":1}'],
  [3, null, 'no key'],
  [1, 'gone', null],
  [null, 'earlier version: no partition', 'v'],
  [2, '', ''],
  [2147483647, 'ünïcödé 😀 中文', '€'.repeat(1000)],
  [0, null, null],
]

describe('sealed Kafka messages', () => {
  it('decode to the messages that were encoded, in order', () => {
    expect(decodeSealedMessages(encodeSealedMessages(MESSAGES), 'test')).toEqual(MESSAGES)
    expect(decodeSealedMessages(encodeSealedMessages([]), 'test')).toEqual([])
  })

  it("keep a message's timestamp and headers (the table's metadata columns)", () => {
    const messages: Message[] = [[0, 'k', 'v', 1700000000123, { trace: 'é', empty: '' }], [1, null, 'w', null, { a: 'b' }], [2, 'k', null, -1, null], [
      null,
      'x',
      'y',
    ]]
    expect(decodeSealedMessages(encodeSealedMessages(messages), 'test')).toEqual(messages)
  })

  it('keep headers of bytes (a MAP<STRING, BYTES> column), apart from headers of text', () => {
    const bytes: Message[] = [
      [0, 'k', 'v', null, [['bin', Uint8Array.from([0xff, 0x00, 0xc3])], ['none', null], ['text', Uint8Array.from(Buffer.from('é'))]]],
      [1, null, 'w', 5, []],
      [2, 'k', 'x', null, { a: 'b' }],
    ]
    const back = decodeSealedMessages(encodeSealedMessages(bytes), 'test')
    expect(back).toEqual(bytes)
    expect(back[0]![4]).toBeInstanceOf(Array)
    expect(back[2]![4]).not.toBeInstanceOf(Array)
  })

  it('hold text of any width: three UTF-8 bytes per character throughout, and lone surrogates (as U+FFFD, as Kafka gets them)', () => {
    const wide: Message[] = Array.from({ length: 200 }, (_, i) => [i % 3, `€${i}`, '中'.repeat(100 + i)])
    expect(decodeSealedMessages(encodeSealedMessages(wide), 'test')).toEqual(wide)
    const lone: Message[] = [[0, 'a\uD800', '\uDC00b'], [1, null, '\uD83D']]
    expect(decodeSealedMessages(encodeSealedMessages(lone), 'test')).toEqual([[0, 'a\uFFFD', '\uFFFDb'], [1, null, '\uFFFD']])
  })

  it('decode when read from a slice of a larger buffer (as storage may return them)', () => {
    const bytes = encodeSealedMessages(MESSAGES)
    const larger = Buffer.alloc(bytes.length + 7)
    bytes.copy(larger, 3)
    expect(decodeSealedMessages(larger.subarray(3, 3 + bytes.length), 'test')).toEqual(MESSAGES)
  })

  it('split output too large for one string into chunks, and read them all back', () => {
    // Each value is 20M characters: two cannot share a chunk (32M characters at most).
    const big = 'x'.repeat(20_000_000)
    const messages: Message[] = [[0, 'a', big], [1, 'b', big], [2, 'c', 'small']]
    const bytes = encodeSealedMessages(messages)
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('WKM1')
    expect(bytes.indexOf('WKM1', 4, 'latin1')).toBeGreaterThan(20_000_000)
    const back = decodeSealedMessages(bytes, 'test')
    expect(back.map(m => [m[0], m[1], m[2]?.length])).toEqual([[0, 'a', 20_000_000], [1, 'b', 20_000_000], [2, 'c', 5]])
    expect(back[1]![2] === big).toBe(true)
  })

  it('concatenated encodings decode as one list (a commit that holds several checkpoints)', () => {
    const both = Buffer.concat([encodeSealedMessages(MESSAGES.slice(0, 3)), encodeSealedMessages(MESSAGES.slice(3))])
    expect(decodeSealedMessages(both, 'test')).toEqual(MESSAGES)
  })

  it('refuse bytes that are not sealed messages, saying where they come from', async () => {
    const bytes = encodeSealedMessages(MESSAGES)
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('{"checkpoint":3}'), /no chunk header at byte 0/],
      [bytes.subarray(0, bytes.length - 3), /text is cut short/],
      [bytes.subarray(0, 14), /ends inside message/],
      [Buffer.concat([bytes, Buffer.from('junk')]), /no chunk header at byte/],
    ]
    // A flag this version does not know (a field a later version added) is refused, not dropped.
    const unknownFlag = Buffer.from(bytes)
    unknownFlag[12] = unknownFlag[12]! | 64
    cases.push([unknownFlag, /fields this version does not know/])
    for (const [data, why] of cases) {
      const e = await errorOf(() => decodeSealedMessages(data, 'checkpoint 3'))
      expect(e.kind).toBe('checkpoint')
      expect(e.message).toContain(`the Kafka sink's sealed messages in 'checkpoint 3' cannot be read`)
      expect(e.message).toMatch(why)
    }
  })
})
