// Window semi and anti joins against DuckDB: IN, EXISTS, NOT EXISTS and NOT IN subqueries whose
// correlation equates window_start and window_end of two windowed inputs, over TUMBLE, HOP and
// CUMULATE windows (emulated in DuckDB), with NULL keys and NULL values (NOT IN's NULL rules per
// window). Every result must be insert-only (test/planner/window-semi-join.test.ts checks the plan).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, kindCounts, rocksOptions } from './oracle.js'
import { DUCK_WINDOWS, WEIR_WINDOWS } from './window-tvfs.js'

const ROWS = 1000
const DATA_SETS: readonly { seed: number; tickMs: number; options: Readonly<Record<string, string>> }[] = [
  { seed: 51, tickMs: 500, options: { 'execution.batch-size': '7' } },
  { seed: 52, tickMs: 100, options: { ...rocksOptions(), 'execution.batch-size': '5' } },
  { seed: 53, tickMs: 500, options: { 'execution.batch-size': '3', 'parallelism.default': '3' } },
]

type Fn = keyof typeof WEIR_WINDOWS

/** The subquery's predicate, written over `a` (outer) and `b` (inner) with the window bounds named by `ws` / `we`. */
const PREDICATES = {
  IN: (inner: string, ws: string, we: string) => `a.k IN (SELECT b.k FROM ${inner} b WHERE a.${ws} = b.${ws} AND a.${we} = b.${we})`,
  EXISTS: (inner: string, ws: string, we: string) => `EXISTS (SELECT * FROM ${inner} b WHERE a.k = b.k AND b.${ws} = a.${ws} AND a.${we} = b.${we})`,
  'NOT EXISTS': (inner: string, ws: string, we: string) =>
    `NOT EXISTS (SELECT b.v FROM ${inner} b WHERE a.k = b.k AND a.${ws} = b.${ws} AND a.${we} = b.${we})`,
  'NOT IN': (inner: string, ws: string, we: string) => `a.v NOT IN (SELECT b.v FROM ${inner} b WHERE a.${ws} = b.${ws} AND a.${we} = b.${we})`,
}
type Form = keyof typeof PREDICATES

const insertOnly = (r: { changes: readonly { kind: number }[] }) => expect(kindCounts(r.changes).slice(1)).toEqual([0, 0, 0])

describe.each(DATA_SETS)('window semi/anti joins vs DuckDB, seed $seed, tick $tickMs ms, options $options', ({ seed, tickMs, options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, tickMs, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  // NOT IN's subquery keeps few values (and rarely a NULL), so that some windows pass and some do not.
  const innerFilter = (form: Form) => (form === 'NOT IN' ? "(v > 90 OR (v IS NULL AND s LIKE 'a%'))" : 'v > 60')
  const cases: readonly (readonly [Fn, Form])[] = [
    ['TUMBLE', 'IN'],
    ['TUMBLE', 'EXISTS'],
    ['TUMBLE', 'NOT EXISTS'],
    ['TUMBLE', 'NOT IN'],
    ['HOP', 'IN'],
    ['HOP', 'NOT EXISTS'],
    ['CUMULATE', 'EXISTS'],
    ['CUMULATE', 'NOT IN'],
  ]
  it.each(cases)('%s %s on the key and both window bounds', async (fn, form) => {
    const side = (filter: string) => `(SELECT * FROM TABLE(${WEIR_WINDOWS[fn]('t')}) WHERE ${filter})`
    const weir = `SELECT a.k, a.v, a.window_start, a.window_end FROM ${side('v < 50 OR v IS NULL')} a
      WHERE ${PREDICATES[form](side(innerFilter(form)), 'window_start', 'window_end')}`
    const dside = (filter: string) => `(${DUCK_WINDOWS[fn](`(SELECT * FROM t WHERE ${filter})`)})`
    const duck = `SELECT a.k, a.v, epoch_ms(a.ws), epoch_ms(a.we) FROM ${dside('v < 50 OR v IS NULL')} a
      WHERE ${PREDICATES[form](dside(innerFilter(form)), 'ws', 'we')}`
    const r = await data.expectSame(weir, duck, options)
    insertOnly(r)
    expect(r.changes.length).toBeGreaterThan(0)
    // NULL keys and values reach the operator: an anti join keeps the NULL-keyed rows, a semi join drops them.
    const nullKeyed = r.changes.filter(c => c.row[0] === null).length
    if (form === 'NOT EXISTS') expect(nullKeyed).toBeGreaterThan(0)
    if (form === 'IN' || form === 'EXISTS') expect(nullKeyed).toBe(0)
  })
})
