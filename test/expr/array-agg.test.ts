// ARRAY_AGG(x [RESPECT NULLS | IGNORE NULLS]) as Flink has it: ARRAY<type of x> in arrival order,
// NULL values kept unless IGNORE NULLS, NULL when no value counts; retractable (a retraction removes
// its value's oldest position), nested values included; refused where Weir or Flink refuses it.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { formatType } from '../../common/types.js'
import { refusal } from '../planner/refused.js'

type Rows = Extract<StatementResult, { kind: 'rows' }>

async function result(sql: string): Promise<Rows> {
  const rs = await new Session().executeSql(sql)
  return rs.at(-1) as Rows
}

/** The live rows of a changelog, sorted by their first column. */
function live(r: Rows): unknown[][] {
  const rows: unknown[][] = []
  for (const c of r.changes) {
    const row = c.row as unknown[]
    if (c.kind === 0 || c.kind === 2) rows.push(row)
    else rows.splice(rows.findIndex(x => JSON.stringify(x) === JSON.stringify(row)), 1)
  }
  return rows.sort((a, b) => Number(a[0]) - Number(b[0]))
}

const T = `(VALUES (1, 'a', 10), (1, CAST(NULL AS STRING), 20), (2, 'b', 30), (1, 'c', 40), (3, CAST(NULL AS STRING), 50), (1, 'a', 60))
  AS t(k, s, n)`

describe('ARRAY_AGG', () => {
  it("Flink's documented example: per product the quantities in arrival order", async () => {
    const r = await result(`SELECT product_name, ARRAY_AGG(quantity_sold) FROM (VALUES (1, 'Apple', 3), (2, 'Banana', 5), (3, 'Orange', 2),
      (4, 'Apple', 7), (5, 'Banana', 4)) AS sales_data(id, product_name, quantity_sold) GROUP BY product_name`)
    expect(live(r).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([['Apple', [3, 7]], ['Banana', [5, 4]], ['Orange', [2]]])
  })

  it('keeps NULLs by default and with RESPECT NULLS, skips them with IGNORE NULLS; typed ARRAY<T> (elements NOT NULL under IGNORE NULLS)', async () => {
    const r = await result(`SELECT k, ARRAY_AGG(s), ARRAY_AGG(s RESPECT NULLS), ARRAY_AGG(s IGNORE NULLS), ARRAY_AGG(n) FILTER (WHERE n > 10),
      ARRAY_AGG(ALL n) FROM ${T} GROUP BY k`)
    expect(live(r)).toEqual([
      [1, ['a', null, 'c', 'a'], ['a', null, 'c', 'a'], ['a', 'c', 'a'], [20, 40, 60], [10, 20, 40, 60]],
      [2, ['b'], ['b'], ['b'], [30], [30]],
      // No value counts under IGNORE NULLS: NULL, as Flink (not an empty array).
      [3, [null], [null], null, [50], [50]],
    ])
    expect(r.schema.slice(1, 4).map(f => formatType(f.type))).toEqual(['ARRAY<STRING>', 'ARRAY<STRING>', 'ARRAY<STRING NOT NULL>'])
  })

  it('over an updating input a retraction removes its value; nested values and NULLs included', async () => {
    // k = 1 moves from count 1 to 4: the group c = 1 ends with the keys counted once.
    const inner = `SELECT k, COUNT(*) AS c, MAX(s) AS s FROM ${T} GROUP BY k`
    const r = await result(`SELECT c, ARRAY_AGG(k), ARRAY_AGG(ARRAY[k, c]), ARRAY_AGG(s) FROM (${inner}) GROUP BY c`)
    expect(live(r)).toEqual([[1, [2, 3], [[2, 1], [3, 1]], ['b', null]], [4, [1], [[1, 4]], ['c']]])
  })

  it('is refused with DISTINCT … RESPECT NULLS, ORDER BY, in SESSION windows, for NULL, *, two arguments; RESPECT/IGNORE NULLS only for ARRAY_AGG', async () => {
    const distinct = await refusal(`SELECT ARRAY_AGG(DISTINCT s RESPECT NULLS) FROM ${T}`)
    expect([distinct.kind, distinct.message, distinct.at]).toEqual(['unsupported', 'ARRAY_AGG(DISTINCT x RESPECT NULLS) is not supported', 'RESPECT'])
    const listagg = await refusal(`SELECT LISTAGG(s IGNORE NULLS) FROM ${T}`)
    expect([listagg.message, listagg.at]).toEqual(["LISTAGG takes no 'IGNORE NULLS' clause", 'IGNORE'])
    expect((await refusal(`SELECT ARRAY_AGG(NULL) FROM ${T}`)).message).toBe('ARRAY_AGG does not accept NULL')
    expect((await refusal(`SELECT ARRAY_AGG(*) FROM ${T}`)).message).toBe('ARRAY_AGG(*) is not valid')
    expect((await refusal(`SELECT ARRAY_AGG(s, n) FROM ${T}`)).message).toBe('ARRAY_AGG takes one argument, got 2')
    const order = await refusal(`SELECT ARRAY_AGG(s ORDER BY n) FROM ${T}`)
    expect([order.kind, order.message, order.at]).toEqual(['unsupported', 'ORDER BY inside ARRAY_AGG(…) is not supported (nor in Flink)', 'ORDER BY n'])
    const session = await refusal(`CREATE TABLE e (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
      SELECT k, ARRAY_AGG(k) FROM TABLE(SESSION(TABLE e PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end`)
    expect([session.message, session.at]).toEqual(['ARRAY_AGG is not supported in a SESSION window aggregate (merging sessions loses the order of values)',
      'ARRAY_AGG(k)'])
  })
})
