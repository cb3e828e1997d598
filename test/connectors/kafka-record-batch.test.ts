// The Kafka sink's record batch encoder (connectors/kafka/produce/record-batch.ts) without a broker:
// the exact bytes of a small batch (v2 header, zig-zag varint record, CRC-32C over attributes..end),
// CRC-32C against its standard check value and kafkajs' own implementation, and batches read back by
// Weir's fetch-side reader (keys, tombstones, headers, timestamps before and after the first, gzip).
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { RecordCursor } from '../../connectors/kafka/fetch/record-batches.js'
import { crc32c } from '../../connectors/kafka/produce/crc32c.js'
import { BatchBuilder } from '../../connectors/kafka/produce/record-batch.js'

const require = createRequire(import.meta.url)
const kafkajsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C/index.js') as (b: Buffer) => number

describe('crc32c', () => {
  it('gives the standard check value and agrees with kafkajs on every length and offset', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283)
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 151 + 7) & 0xff))
    for (let start = 0; start < 9; start++) {
      for (let end = start; end <= bytes.length; end += 13) expect(crc32c(bytes, start, end)).toBe(kafkajsCrc32c(bytes.subarray(start, end)))
    }
  })
})

describe('BatchBuilder', () => {
  it('writes the v2 layout: header, producer id/epoch/sequence, transactional bit, one varint record, CRC-32C', () => {
    const b = new BatchBuilder(3, 1024)
    expect(b.add('k', 'v', 1000)).toBe(true)
    const { bytes, partition, count } = b.seal({ producerId: 5, producerEpoch: 2, transactional: true }, 7, 'none')
    expect([partition, count]).toEqual([3, 1])
    const hex = bytes.toString('hex')
    const expected = [
      '0000000000000000', // base offset
      '0000003a', // batch length: 58 bytes follow
      'ffffffff', // partition leader epoch
      '02', // magic
      'CRC_____',
      '0010', // attributes: transactional, no codec, create time
      '00000000', // last offset delta
      '00000000000003e8', // base timestamp 1000
      '00000000000003e8', // max timestamp
      '0000000000000005', // producer id
      '0002', // producer epoch
      '00000007', // base sequence
      '00000001', // records
      '10', // record length 8 (zig-zag 16)
      '00', // attributes
      '00', // timestamp delta 0
      '00', // offset delta 0
      '026b', // key length 1, 'k'
      '0276', // value length 1, 'v'
      '00', // no headers
    ].join('')
    expect(hex.slice(0, 34) + 'CRC_____' + hex.slice(42)).toBe(expected)
    expect(bytes.readUInt32BE(17)).toBe(kafkajsCrc32c(bytes.subarray(21)))
  })

  it('writes null keys and values as length -1, and -1 ids for a producer without idempotence', () => {
    const b = new BatchBuilder(0, 1024)
    b.add(null, null, 5)
    const { bytes } = b.seal({ producerId: -1, producerEpoch: -1, transactional: false }, -1, 'none')
    expect(bytes.readInt16BE(21)).toBe(0)
    expect(bytes.readBigInt64BE(43)).toBe(-1n)
    expect(bytes.readInt16BE(51)).toBe(-1)
    expect(bytes.readInt32BE(53)).toBe(-1)
    expect(bytes.subarray(61).toString('hex')).toBe('0c' + '00' + '00' + '00' + '01' + '01' + '00')
  })

  for (const compression of ['none', 'gzip'] as const) {
    it(`reads back through Weir's fetch-side reader (${compression})`, () => {
      const b = new BatchBuilder(1, 1 << 20)
      const t0 = 1_700_000_000_000
      const records = Array.from({ length: 500 }, (_, i) => ({
        key: i % 7 === 0 ? null : `key-${i}-é`,
        value: i % 5 === 0 ? null : JSON.stringify({ i, s: 'x'.repeat(i % 200) }),
        // Before and after the first record's, and one far off (a varlong beyond 32 bits).
        timestamp: i === 499 ? t0 + 2 ** 40 : t0 + ((i * 37) % 1000) - 500,
        headers: i % 3 === 0 ? [['h', `v${i}`], ['n', null], ['h', Buffer.from([0, 255])]] as const : undefined,
      }))
      for (const r of records) expect(b.add(r.key, r.value, r.timestamp, r.headers)).toBe(true)
      const { bytes } = b.seal({ producerId: 9, producerEpoch: 0, transactional: false }, 0, compression)
      expect(bytes.readInt16BE(21) & 7).toBe(compression === 'gzip' ? 1 : 0)
      expect(bytes.readUInt32BE(17)).toBe(kafkajsCrc32c(bytes.subarray(21)))
      const cursor = new RecordCursor(bytes, 0, bytes.length, 0, null, { topic: 't', partition: 1 })
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!
        expect(cursor.next()).toBe(true)
        expect(cursor.offset).toBe(i)
        expect(cursor.timestamp).toBe(r.timestamp)
        expect(cursor.keyStart < 0 ? null : cursor.buf.toString('utf8', cursor.keyStart, cursor.keyEnd)).toBe(r.key)
        expect(cursor.valueStart < 0 ? null : cursor.buf.toString('utf8', cursor.valueStart, cursor.valueEnd)).toBe(r.value)
        const headers = cursor.headers()
        if (r.headers === undefined) expect(headers).toEqual({})
        else expect(headers).toEqual({ h: [Buffer.from(`v${i}`), Buffer.from([0, 255])], n: null })
      }
      expect(cursor.next()).toBe(false)
    })
  }

  it('refuses a record that would take a non-empty batch over its limit, and takes one alone however large', () => {
    const b = new BatchBuilder(0, 200)
    expect(b.add(null, 'x'.repeat(100), 0)).toBe(true)
    expect(b.add(null, 'y'.repeat(100), 0)).toBe(false)
    expect(b.records).toBe(1)
    b.seal({ producerId: -1, producerEpoch: -1, transactional: false }, -1, 'none')
    expect(b.add(null, 'z'.repeat(1000), 0)).toBe(true)
    const { bytes } = b.seal({ producerId: -1, producerEpoch: -1, transactional: false }, -1, 'none')
    const cursor = new RecordCursor(bytes, 0, bytes.length, 0, null, { topic: 't', partition: 0 })
    expect(cursor.next()).toBe(true)
    expect(cursor.valueEnd - cursor.valueStart).toBe(1000)
  })
})
