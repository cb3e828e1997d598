// Rows → Kafka messages as the sinks encode them (no broker): debezium-json change events as Flink's
// serializer writes them, the value format's writing options, and the key without 'key.fields-prefix'.
import { describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { RowKind } from '../../core/batch.js'
import { CompactingBuffer } from '../../connectors/kafka/sink/compacting-buffer.js'
import { MessageEncoder, type Message } from '../../connectors/kafka/sink/messages.js'
import { resolveKafkaSink } from '../../connectors/kafka/sink/options.js'

const SERVERS = { topic: 't', 'properties.bootstrap.servers': '127.0.0.1:9092' }

function encode(options: Record<string, string>, schema: Field[], rows: unknown[][], kinds: number[] | null = null): Message[] {
  const out: Message[] = []
  new MessageEncoder(resolveKafkaSink('kafka', { ...SERVERS, ...options }, schema, []), schema, 1)
    .encode({ rows, kinds: kinds === null ? null : Uint8Array.from(kinds) }, out)
  return out
}

describe('the Kafka sink encoder', () => {
  it('writes each change of a debezium-json table as an event: +I/+U op "c" with after, -U/-D op "d" with before', () => {
    const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'at', type: T.timestamp(3) }]
    const at = Date.UTC(2024, 0, 2, 3, 4, 5, 6)
    const got = encode({ 'value.format': 'debezium-json', 'debezium-json.timestamp-format.standard': 'ISO-8601', 'key.format': 'raw', 'key.fields': 'k' },
      schema, [['a', at], ['a', at], ['a', null], ['a', null]], [RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE])
    expect(got.map(m => [m[1], m[2]])).toEqual([
      ['a', '{"before":null,"after":{"k":"a","at":"2024-01-02T03:04:05.006"},"op":"c"}'],
      ['a', '{"before":{"k":"a","at":"2024-01-02T03:04:05.006"},"after":null,"op":"d"}'],
      ['a', '{"before":null,"after":{"k":"a","at":null},"op":"c"}'],
      ['a', '{"before":{"k":"a","at":null},"after":null,"op":"d"}'],
    ])
  })

  it("honours the value format's writing options and writes the key's fields without 'key.fields-prefix'", () => {
    const schema: Field[] = [{ name: 'k_id', type: T.int() }, { name: 's', type: T.string() }, { name: 'n', type: T.int() }]
    const got = encode({ 'format': 'csv', 'csv.field-delimiter': ';', 'csv.null-literal': 'N', 'key.format': 'json', 'key.fields': 'k_id',
      'key.fields-prefix': 'k_', 'value.fields-include': 'EXCEPT_KEY' }, schema, [[7, 'a;b', null]])
    expect(got.map(m => [m[1], m[2]])).toEqual([['{"id":7}', '"a;b";N']])
    // Options of another format are refused, as the source refuses them.
    expect(() => encode({ 'format': 'json', 'csv.field-delimiter': ';' }, schema, [])).toThrow(/applies to format 'csv'/)
  })
})

describe("upsert-kafka's output compacted by key (CompactingBuffer)", () => {
  const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.int() }, { name: 'h', type: T.string() }]
  const buffer = (): CompactingBuffer =>
    new CompactingBuffer(
      new MessageEncoder(
        resolveKafkaSink('upsert-kafka', { ...SERVERS, 'key.format': 'raw', 'value.format': 'json', 'value.fields-include': 'EXCEPT_KEY' }, schema, ['k'], [
          null,
          null,
          'headers',
        ]),
        schema,
        1,
      ),
    )
  const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = RowKind

  it("keeps each key's last message (a tombstone too), in the order of those last rows, across batches, and drops -U", () => {
    const b = buffer()
    const h = '{"x":"1"}'
    b.add({ rows: [['a', 1, h], ['b', 1, h], ['a', 1, h], ['a', 2, h], ['c', 1, h]], kinds: Uint8Array.from([I, I, UB, UA, I]) })
    b.add({ rows: [['b', 1, h], ['d', 1, h], ['c', 1, h], ['c', 2, h]], kinds: Uint8Array.from([D, I, UB, UA]) })
    expect(b.size).toBe(4)
    expect(b.take().map(m => [m[1], m[2]])).toEqual([['a', '{"n":2}'], ['b', null], ['d', '{"n":1}'], ['c', '{"n":2}']])
    expect(b.size).toBe(0)
    expect(b.take()).toEqual([])
  })

  it('encodes only the rows it keeps: a replaced row is never encoded (its bad headers do not fail the job), as in Flink', () => {
    const b = buffer()
    b.add({ rows: [['a', 1, 'not JSON'], ['a', 2, '{"x":"2"}']], kinds: null })
    expect(b.take().map(m => [m[1], m[2], m[4]])).toEqual([['a', '{"n":2}', { x: '2' }]])
    // The kept row's bad headers fail when the checkpoint seals it.
    b.add({ rows: [['a', 3, 'not JSON']], kinds: null })
    expect(() => b.take()).toThrow(/cannot write headers/)
  })
  it('keeps what a consumer folding by key reads: random keys of two columns (shared first values, NULL, NaN, -0), random changes', () => {
    const schema: Field[] = [{ name: 'a', type: T.double() }, { name: 'b', type: T.string() }, { name: 'n', type: T.int() }]
    const config = resolveKafkaSink('upsert-kafka', { ...SERVERS, 'key.format': 'json', 'value.format': 'json' }, schema, ['a', 'b'])
    const firsts: unknown[] = [1, 2, 0, -0, NaN, null, 3]
    const seconds: unknown[] = ['x', 'y', null, '']
    let seed = 7
    // mulberry32
    const random = (n: number): number => {
      let t = (seed = (seed + 0x6d2b79f5) | 0)
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n)
    }
    for (let round = 0; round < 20; round++) {
      const b = new CompactingBuffer(new MessageEncoder(config, schema, 1))
      const all: Message[] = []
      const every = new MessageEncoder(config, schema, 1)
      for (let batch = 0; batch < 5; batch++) {
        const rows = Array.from({ length: 1 + random(40) }, (_, i) => [firsts[random(firsts.length)], seconds[random(seconds.length)], i])
        const kinds = Uint8Array.from(rows.map(() => [I, UB, UA, D][random(4)]!))
        b.add({ rows, kinds })
        every.encode({ rows, kinds }, all)
      }
      const kept = b.take()
      const fold = (messages: Message[]): Map<string | null, string | null> => new Map(messages.map(m => [m[1], m[2]]))
      expect(fold(kept)).toEqual(fold(all))
      // At most one message per key and value identity, never more than the rows.
      expect(kept.length).toBeLessThanOrEqual(all.length)
      // NaN and -0 rows are compacted by their message key, the rest by value; NaN and NULL share a
      // message key, and so do -0 and 0: at most two extra messages per second value.
      expect(kept.length).toBeGreaterThanOrEqual(new Set(all.map(m => m[1])).size)
      expect(kept.length).toBeLessThanOrEqual(new Set(all.map(m => m[1])).size + 2 * seconds.length)
    }
  })
})
