// GROUPING SETS, ROLLUP and CUBE: how GROUP BY parses into grouping sets, what EXPLAIN shows (an
// Expand under one group aggregate), and the errors for bad input, pointing at the fault.
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import type { Select } from '../../grammar/ast.js'
import { queryOf } from '../grammar/helpers.js'
import { materialize } from '../oracle/oracle.js'

function sets(groupBy: string): { sets: number[][] | null; keys: number } {
  const sel = queryOf(`SELECT 1 FROM t GROUP BY ${groupBy}`) as Select
  return { sets: (sel.groupingSets?.sets as number[][] | undefined) ?? null, keys: sel.groupBy?.length ?? 0 }
}

const DDL = `CREATE TABLE t (a STRING, b INT, c INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');\n`

/** The error of `sql` (after the DDL), its line:column and the text its span covers. */
async function refused(sql: string): Promise<{ message: string; line: number; column: number; at: string; help?: string }> {
  const text = DDL + sql
  try {
    await new Session({ println: () => undefined }).executeSql(text)
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    const err = e as WeirError, span = err.span!
    return { message: err.message, line: span.start.line, column: span.start.column, at: text.slice(span.start.offset, span.end.offset),
      ...(err.help ? { help: err.help } : {}) }
  }
  throw new Error('expected an error')
}

describe('GROUP BY grouping sets parse into their expanded sets', () => {
  it('GROUPING SETS with the empty set, ROLLUP, CUBE', () => {
    expect(sets('GROUPING SETS ((a, b), (a), ())')).toEqual({ sets: [[0, 1], [2], []], keys: 3 })
    expect(sets('ROLLUP(a, b)')).toEqual({ sets: [[0, 1], [0], []], keys: 2 })
    expect(sets('cube (a, b)')).toEqual({ sets: [[0, 1], [0], [1], []], keys: 2 })
  })

  it('a cross product with plain keys; lists inside ROLLUP; ROLLUP nested in GROUPING SETS', () => {
    expect(sets('a, ROLLUP(b, c)')).toEqual({ sets: [[0, 1, 2], [0, 1], [0]], keys: 3 })
    expect(sets('ROLLUP(a, (b, c))')).toEqual({ sets: [[0, 1, 2], [0], []], keys: 3 })
    expect(sets('GROUPING SETS (ROLLUP(a), b)')).toEqual({ sets: [[0], [], [1]], keys: 2 })
    expect(sets('CUBE(a), CUBE(b)')).toEqual({ sets: [[0, 1], [0], [1], []], keys: 2 })
  })

  it('a plain GROUP BY stays plain, parenthesized expressions included; the words stay usable as names', () => {
    expect(sets('a, b')).toEqual({ sets: null, keys: 2 })
    expect(sets('(b + c), a')).toEqual({ sets: null, keys: 2 })
    expect(sets('rollup, cube, grouping')).toEqual({ sets: null, keys: 3 })
  })
})

describe('EXPLAIN of a grouping-sets aggregate', () => {
  it('shows one Expand (a projection per set, the set id last) under one group aggregate keyed by the id', async () => {
    const results = await new Session({ println: () => undefined }).executeSql(
      `${DDL}EXPLAIN SELECT a, b, COUNT(*), GROUPING(a, b) FROM t GROUP BY ROLLUP(a, b);`,
    )
    const text = JSON.stringify(results.at(-1))
    expect(text).toContain('Expand(projects=[{a, b, 0}, {a, NULL, 1}, {NULL, NULL, 3}]')
    expect(text).toContain('GroupAggregate(groupBy=[a, b, $e]')
    expect(text.match(/Source\(/g)).toHaveLength(1)
  })
})

describe('bad input', () => {
  it('GROUPING of a column not in GROUP BY points at the argument', async () => {
    expect(await refused('SELECT a, GROUPING(b) FROM t GROUP BY ROLLUP(a);')).toMatchObject({
      message: 'the argument of GROUPING must be a GROUP BY expression',
      line: 2,
      column: 20,
      at: 'b',
    })
  })

  it('GROUPING with no argument', async () => {
    expect(await refused('SELECT a, GROUPING() FROM t GROUP BY ROLLUP(a);')).toMatchObject({ message: 'GROUPING takes one or more GROUP BY expressions',
      line: 2, column: 11 })
  })

  it('more than 4096 grouping sets are refused with the count', async () => {
    const r = await refused('SELECT COUNT(*) FROM t GROUP BY CUBE(a, b, c, ts, a, b, c, ts, a, b, c, ts, a);')
    expect(r.message).toBe('GROUP BY has 8192 grouping sets, more than the 4096 allowed')
    expect(r).toMatchObject({ line: 2, column: 33, at: 'CUBE(a, b, c, ts, a, b, c, ts, a, b, c, ts, a)' })
    expect(r.help).toContain('GROUPING SETS')
    const cross = await refused('SELECT COUNT(*) FROM t GROUP BY CUBE(a, b, c, ts, a, b), CUBE(a, b, c, ts, a, b, c);')
    expect(cross.message).toBe('GROUP BY has 8192 grouping sets, more than the 4096 allowed')
  })

  it('ROLLUP inside CUBE is refused', async () => {
    expect(await refused('SELECT COUNT(*) FROM t GROUP BY CUBE(a, ROLLUP(b));')).toMatchObject({ message: 'ROLLUP is not allowed inside ROLLUP or CUBE',
      line: 2, column: 41, at: 'ROLLUP(b)' })
  })

  it('an unclosed GROUPING SETS is a syntax error', async () => {
    const r = await refused('SELECT COUNT(*) FROM t GROUP BY GROUPING SETS ((a), (b);')
    expect(r.line).toBe(2)
  })

  it('a window aggregate set without window_start and window_end is refused at the sets', async () => {
    const r = await refused(`SELECT a, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
      GROUP BY GROUPING SETS ((window_start, window_end, a), (window_start, window_end), (a));`)
    expect(r.message).toBe('a window aggregate needs window_start and window_end in every grouping set')
    expect(r.line).toBe(3)
    expect(r.help).toContain('GROUP BY window_start, window_end, GROUPING SETS')
  })

  it("a set without a SESSION's PARTITION BY column is refused at the sets", async () => {
    const r = await refused(`SELECT a, b, COUNT(*) FROM TABLE(SESSION(TABLE t PARTITION BY a, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
      GROUP BY window_start, window_end, ROLLUP(a, b);`)
    expect(r.message).toBe("SESSION is partitioned by 'a', so every grouping set of the window aggregate must group by it")
    expect(r).toMatchObject({ line: 3, at: 'GROUP BY window_start, window_end, ROLLUP(a, b)' })
  })

  it('a window aggregate with ROLLUP plans an Expand under the window aggregate', async () => {
    const results = await new Session({ println: () => undefined }).executeSql(`${DDL}EXPLAIN SELECT a, window_start, COUNT(*), GROUPING(a)
      FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, ROLLUP(a);`)
    const text = JSON.stringify(results.at(-1))
    expect(text).toContain('Expand(projects=[{a, ts, 0}, {NULL, ts, 1}]')
    expect(text).toMatch(
      /WindowAggregate\(window=\[TUMBLE\(size=1 min\)\], time=\[ts\], groupBy=\[a, \$e\][^\n]*\\n.*\+- Exchange\(distribution=\[hash\[a, \$e\]\]\)\\n *\+- Expand/,
    )
    expect(text).toContain('($e % 2) AS EXPR$3')
  })

  it('grouping sets with a legacy group window are refused as not supported yet', async () => {
    const r = await refused(`SELECT a, COUNT(*) FROM t GROUP BY ROLLUP(a), TUMBLE(ts, INTERVAL '1' MINUTE);`)
    expect(r).toMatchObject({ message: 'GROUPING SETS, ROLLUP and CUBE are not supported with a group window yet', line: 2, column: 27 })
  })
})

describe('a correlated scalar subquery with grouping sets', () => {
  it('groups every set by the correlated column too', async () => {
    const results = await new Session({ println: () => undefined }).executeSql(
      `SELECT x, (SELECT SUM(b) FROM (VALUES ('x', 1), ('x', 2), ('y', 5)) AS u(a, b) WHERE u.a = o.x GROUP BY GROUPING SETS (())) AS s
       FROM (VALUES ('x'), ('y'), ('z')) AS o(x)`,
    )
    const last = results.at(-1)
    if (last?.kind !== 'rows') throw new Error('expected rows')
    expect(materialize(last.changes).map(r => JSON.stringify(r)).sort()).toEqual(['["x",3]', '["y",5]', '["z",null]'])
  })
})
