// The one seeded generator (common/random.ts) and what depends on its sequences: a seed must give
// the same rows from datagen and the same RAND / RAND_INTEGER values as before the generator had one
// home (these values were taken from the code before the move), or jobs re-run with a 'seed' change output.
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { Mulberry32, mulberry32, seededRandom } from '../../common/random.js'
import { datagenConnector } from '../../connectors/datagen.js'
import { compileScalar } from '../../expr/index.js'
import { readAllRows, sourceCtx } from '../connectors/helpers.js'
import { call, num } from '../expr/helpers.js'

/** Rows as JSON, bigints (DECIMAL) spelled with an n so they survive it. */
const json = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x))

describe('seeded random', () => {
  it('is mulberry32: the same uint32 sequence for a seed, its state a uint32 to go on from', () => {
    const next = mulberry32(1)
    expect([next(), next(), next(), next()]).toEqual([2693262067, 11749833, 2265367787, 4213581821])
    const g = new Mulberry32(0xffffffff)
    g.next()
    g.next()
    expect(g.state).toBe(3663131625)
    const resumed = new Mulberry32(g.state)
    expect(g.next()).toBe(3073704848)
    expect(resumed.next()).toBe(3073704848)
    const u = seededRandom(1)
    expect(u()).toBe(2693262067 / 2 ** 32)
  })

  it("gives datagen's rows for a seed as before", async () => {
    const schema: Field[] = [
      { name: 'v', type: T.int() },
      { name: 'd', type: T.double() },
      { name: 's', type: T.string() },
      { name: 'amount', type: T.decimal(6, 2) },
      { name: 'b', type: T.bigint() },
    ]
    const options = { connector: 'datagen', 'rows-per-second': '100000000', 'number-of-rows': '1000', seed: '42', 'fields.s.length': '6' }
    datagenConnector.source!.validate(options, schema)
    const rows = await readAllRows(await datagenConnector.source!.create(sourceCtx(options, schema, 256)))
    expect(json(rows.slice(0, 2))).toBe(json([
      [434237308, 8.058888603334706e+307, 'daab2c', 53185n, 5142504465712409],
      [1569701662, 8.490811274326899e+307, '3fe1be', -385997n, 8789768685997968],
    ]))
    expect(createHash('sha1').update(json(rows)).digest('hex')).toBe('5683252a9f3bfe44e037d3c8794a5315d392dfb0')
  })

  it('gives RAND(seed) and RAND_INTEGER(seed, bound) as before, negative seeds too', () => {
    const rand = compileScalar(call('RAND', num('42')))
    expect([rand([]), rand([]), rand([])]).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099])
    const ints = compileScalar(call('RAND_INTEGER', num('7'), num('1000')))
    expect(Array.from({ length: 10 }, () => ints([]))).toEqual([11, 61, 976, 699, 521, 405, 466, 239, 553, 729])
    const negative = compileScalar(call('RAND', num('-5')))
    expect([negative([]), negative([])]).toEqual([0.48384718922898173, 0.05296749505214393])
  })
})
