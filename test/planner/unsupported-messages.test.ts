// What Weir says about SQL it does not run: the construct by name, a caret on it, and a help line
// that says what to write instead; Flink's legacy group windows, which run as the window table function.
import { describe, expect, it } from 'vitest'
import { refusal, type Refusal } from './refused.js'
import { Session } from '../../engine/session.js'

const DDL = `CREATE TABLE t (a INT, b STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'number-of-rows' = '50', 'fields.b.length' = '1');
CREATE TABLE r (b STRING, c INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
`

/** The error of `query` after the DDL, and the SQL text its caret covers. */
function refused(query: string): Promise<Refusal> {
  return refusal(DDL + query)
}

describe('SQL Weir does not run', () => {
  it('ORDER BY without LIMIT on an unbounded stream: names the table and says what works', async () => {
    const e = await refused(`CREATE TABLE u (a INT) WITH ('connector' = 'datagen');\nSELECT a FROM u ORDER BY a`)
    expect(e).toMatchObject({ kind: 'unsupported', message: "ORDER BY without LIMIT needs a bounded input, but 'u' (connector 'datagen') is unbounded",
      at: 'a' })
    expect(e.help).toMatch(/^add LIMIT n to keep the first n rows as the stream goes/)
  })

  it('LIMIT and FETCH FIRST without ORDER BY over an updating stream: the whole clause', async () => {
    for (const [clause, at] of [['LIMIT 10', 'LIMIT 10'], ['FETCH FIRST 5 ROWS ONLY', 'FETCH FIRST 5 ROWS ONLY']]) {
      const e = await refused(`CREATE TABLE u (a INT) WITH ('connector' = 'datagen');\nSELECT a, COUNT(*) FROM u GROUP BY a ${clause}`)
      expect(e).toMatchObject({ kind: 'unsupported', at })
      expect(e.message).toMatch(/^LIMIT without ORDER BY over an updating stream is not supported/)
    }
  })

  it('OFFSET', async () => {
    expect(await refused('SELECT a FROM t OFFSET 5')).toMatchObject({ kind: 'unsupported', message: 'OFFSET is not supported', at: 'OFFSET 5' })
  })

  it('MATCH_RECOGNIZE: named, with a window aggregate to write instead', async () => {
    const e = await refused('SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY b ORDER BY ts MEASURES A.a AS x PATTERN (A B) DEFINE A AS a > 1)')
    expect(e).toMatchObject({ kind: 'unsupported', message: 'MATCH_RECOGNIZE is not supported', at: 'MATCH_RECOGNIZE' })
    expect(e.help).toContain('use a window aggregate: SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts)')
  })

  it.each([
    ['TUMBLE', "SELECT b, TUMBLE_START(ts, INTERVAL '1' MINUTE) AS ws, COUNT(*) AS n FROM t GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE), b", ['b', 'ws', 'n']],
    ['HOP',
      "SELECT b, HOP_END(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE), COUNT(*)\nFROM t AS x\nGROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE), b", [
      'b',
      'window_end',
      'EXPR$2',
    ]],
    ['SESSION',
      "SELECT b, SESSION_START(ts, INTERVAL '10' SECOND), SESSION_ROWTIME(ts, INTERVAL '10' SECOND) AS rt FROM t GROUP BY b, SESSION(ts, INTERVAL '10' SECOND)",
      ['b', 'window_start', 'rt']],
  ])('legacy GROUP BY %s(…) runs as the window table function', async (_fn, query, names) => {
    const [, , result] = await new Session().executeSql(DDL + query)
    expect(result!.kind).toBe('rows')
    if (result!.kind === 'rows') expect(result.schema.map(f => f.name)).toEqual(names)
  })

  it('legacy GROUP BY TUMBLE(…) over a join: refused, with the window table function to write instead', async () => {
    const e = await refused("SELECT t.b, COUNT(*) FROM t JOIN r ON t.b = r.b GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE), t.b")
    expect(e).toMatchObject({ kind: 'unsupported', message: 'GROUP BY TUMBLE(…): a group window over a join is not supported',
      at: "TUMBLE(ts, INTERVAL '1' MINUTE)" })
    expect(e.help).toContain('use the window table function TUMBLE: FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(time_column), …))')
  })

  it.each([
    ["SELECT TUMBLE_END(ts, INTERVAL '2' MINUTE), COUNT(*) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)", "TUMBLE_END(ts, INTERVAL '2' MINUTE)",
      "TUMBLE_END(…) does not match the group window TUMBLE(ts, INTERVAL '1' MINUTE)"],
    ["SELECT HOP_START(ts, INTERVAL '1' MINUTE, INTERVAL '2' MINUTE), COUNT(*) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)",
      "HOP_START(ts, INTERVAL '1' MINUTE, INTERVAL '2' MINUTE)", "HOP_START(…) does not match the group window TUMBLE(ts, INTERVAL '1' MINUTE)"],
    ["SELECT b, TUMBLE_START(ts, INTERVAL '1' MINUTE) FROM t GROUP BY b", "TUMBLE_START(ts, INTERVAL '1' MINUTE)",
      'TUMBLE_START(…) needs GROUP BY TUMBLE(…) in the same SELECT'],
    ['SELECT COUNT(*) FROM t GROUP BY TUMBLE(ts)', 'TUMBLE(ts)', 'TUMBLE in GROUP BY takes 2 arguments: TUMBLE(time_column, size)'],
  ])('a legacy window with auxiliary calls that do not fit it: %s', async (query, at, message) => {
    const e = await refused(query)
    expect(e).toMatchObject({ kind: 'plan', message, at })
  })
})
