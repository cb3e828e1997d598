// The print sink's Flink-style lines (kinds, NULL, identifiers) and the blackhole sink's counting.
import { describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { parseTimestamp } from '../../common/values.js'
import { blackholeConnector, BlackholeWriter } from '../../connectors/blackhole.js'
import { printConnector } from '../../connectors/print.js'
import { RowKind } from '../../core/batch.js'
import { sinkCtx } from './helpers.js'

const SCHEMA: Field[] = [
  { name: 'id', type: T.int() },
  { name: 's', type: T.string() },
  { name: 'ts', type: T.timestamp(3) },
  { name: 'amount', type: T.decimal(10, 2) },
  { name: 'd', type: T.double() },
]

describe('print sink', () => {
  it('prints each row as Flink does, with its kind', async () => {
    const lines: string[] = []
    const writer = await printConnector.sink!.create(sinkCtx({ connector: 'print' }, SCHEMA, l => lines.push(l)))
    const ts = parseTimestamp('2024-01-01 00:00:00')!
    await writer.write({ rows: [[1, 'foo', ts, 12345n, 1]], kinds: null })
    await writer.write({
      rows: [[1, 'foo', ts, 12345n, 1], [2, null, null, null, 0.5]],
      kinds: Uint8Array.from([RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER]),
    })
    await writer.write({ rows: [[3, 'x', ts, -1n, -2.5]], kinds: Uint8Array.from([RowKind.DELETE]) })
    await writer.finish()
    expect(lines).toEqual([
      '+I[1, foo, 2024-01-01 00:00:00.000, 123.45, 1.0]',
      '-U[1, foo, 2024-01-01 00:00:00.000, 123.45, 1.0]',
      '+U[2, NULL, NULL, NULL, 0.5]',
      '-D[3, x, 2024-01-01 00:00:00.000, -0.01, -2.5]',
    ])
  })

  it("prefixes lines with the 'print-identifier'", async () => {
    const lines: string[] = []
    const writer = await printConnector.sink!.create(sinkCtx({ 'print-identifier': 'q1' }, [{ name: 'n', type: T.bigint() }], l => lines.push(l)))
    await writer.write({ rows: [[7]], kinds: null })
    expect(lines).toEqual(['q1> +I[7]'])
  })

  it('accepts updates', () => {
    expect(printConnector.sink!.acceptsUpdates({})).toBe(true)
    expect(blackholeConnector.sink!.acceptsUpdates({})).toBe(true)
  })
})

describe('blackhole sink', () => {
  it('discards rows and counts them', async () => {
    const writer = await blackholeConnector.sink!.create(sinkCtx({}, SCHEMA))
    await writer.write({ rows: [[1], [2]], kinds: null })
    await writer.write({ rows: [[3]], kinds: Uint8Array.from([RowKind.DELETE]) })
    await writer.finish()
    expect(writer).toBeInstanceOf(BlackholeWriter)
    expect((writer as BlackholeWriter).rows).toBe(3)
  })
})
