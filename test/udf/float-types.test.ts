// FLOAT as a declared type of TypeScript UDFs and process table functions: an argument reaches the
// code as a 32-bit float (Math.fround), a result or an emitted FLOAT column is rounded to one, a
// DOUBLE argument is refused as Flink refuses the narrowing implicit cast.
import { describe, expect, it } from 'vitest'
import { resolve } from 'node:path'
import { Session } from '../../engine/session.js'
import { fails } from '../engine/helpers.js'

const UDF = resolve(import.meta.dirname, 'modules', 'floats.ts')
const PTF = resolve(import.meta.dirname, '..', 'ptf', 'modules', 'floats.ts')

async function rows(sql: string): Promise<unknown[][]> {
  const session = new Session({ println: () => undefined })
  const results = await session.executeSql(sql)
  const last = results.at(-1)
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  return last.changes.filter(c => c.kind === 0 || c.kind === 2).map(c => [...c.row])
}

const f = Math.fround

describe('FLOAT in user functions', () => {
  it("rounds a scalar function's FLOAT argument on the way in and its FLOAT result on the way out", async () => {
    const got = await rows(`CREATE FUNCTION scaled AS '${UDF}#scaled'; CREATE FUNCTION seen AS '${UDF}#seen';
      SELECT seen(0.1), seen(3), scaled(CAST(0.1 AS FLOAT)), TYPEOF(scaled(1)), TYPEOF(seen(1)), CAST(scaled(CAST(0.1 AS FLOAT)) AS STRING)`)
    expect(got).toEqual([[f(0.1), 3, f(f(0.1) * 1.1), 'FLOAT', 'DOUBLE', '0.11']])
    expect(got[0]![0]).toBe(0.10000000149011612)
  })

  it('refuses a DOUBLE argument for a FLOAT parameter, and takes a FLOAT where a DOUBLE is declared', async () => {
    const e = await fails(`CREATE FUNCTION seen AS '${UDF}#seen'; SELECT seen(CAST(0.5 AS DOUBLE))`)
    expect(e.message).toBe("cannot apply 'seen' to (DOUBLE): argument 1 ('arg1') is FLOAT")
    expect(e.span?.start).toMatchObject({ line: 1 })
  })

  it("rounds an aggregate's FLOAT result", async () => {
    const got = await rows(`CREATE FUNCTION fsum AS '${UDF}#floatSum';
      SELECT k, fsum(x) FROM (VALUES ('a', CAST(0.1 AS FLOAT)), ('a', CAST(0.2 AS FLOAT)), ('b', CAST(1.5 AS FLOAT))) AS t(k, x) GROUP BY k`)
    const last = new Map(got.map(r => [r[0], r[1]]))
    expect(last.get('a')).toBe(f(f(0.1) + f(0.2)))
    expect(last.get('b')).toBe(1.5)
  })

  it("rounds a process function's FLOAT input column, argument and emitted column", async () => {
    const got = await rows(`CREATE FUNCTION floats AS '${PTF}';
      SELECT * FROM floats(input => TABLE (SELECT * FROM (VALUES ('a', 0.1E0), ('b', 2.0E0)) AS t(k, x)) PARTITION BY k, factor => 0.3)`)
    expect(got).toEqual([['a', f(0.1), f(f(0.1) / 3), f(0.3)], ['b', 2, f(2 / 3), f(0.3)]])
  })
})
