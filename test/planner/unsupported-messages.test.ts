// What Weir says about SQL it does not run: the construct by name, a caret on it, and a help line
// that says what to write instead (for Flink's legacy group windows, the query rewritten to the
// window table function — which Weir then runs).
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
  it('ORDER BY: says what works today, not a feature that is not there', async () => {
    const e = await refused('SELECT a FROM t ORDER BY a')
    expect(e).toMatchObject({ kind: 'unsupported', message: 'ORDER BY is not supported: Weir does not sort streams', at: 'a' })
    expect(e.help).toMatch(
      /^remove ORDER BY; for the first rows per key, rank them: SELECT \* FROM \(SELECT \*, ROW_NUMBER\(\) OVER \(PARTITION BY k ORDER BY c DESC\) AS rn FROM t\) WHERE rn <= 10; a window aggregate \(FROM TABLE\(TUMBLE\(…\)\) … GROUP BY window_start, window_end, …\) already emits its rows window by window/,
    )
    expect(e.help).not.toMatch(/wait for/)
  })

  it('LIMIT and FETCH FIRST: the whole clause, and how to bound the source instead', async () => {
    for (const [clause, at] of [['LIMIT 10', 'LIMIT 10'], ['FETCH FIRST 5 ROWS ONLY', 'FETCH FIRST 5 ROWS ONLY']]) {
      const e = await refused(`SELECT a FROM t ${clause}`)
      expect(e).toMatchObject({ kind: 'unsupported', message: 'LIMIT is not supported yet', at })
      expect(e.help).toBe(
        "remove it; to look at a few rows, bound the source instead: 'number-of-rows' (datagen), 'nexmark.events.num' (nexmark), or a smaller file (filesystem)",
      )
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
    ['TUMBLE', "SELECT b, TUMBLE_START(ts, INTERVAL '1' MINUTE) AS ws, COUNT(*) AS n FROM t GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE), b",
      "TUMBLE(ts, INTERVAL '1' MINUTE)",
      "SELECT b, window_start AS ws, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, b"],
    ['HOP',
      "SELECT b, HOP_END(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE), COUNT(*)\nFROM t AS x\nGROUP BY HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE), b",
      "HOP(ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)",
      "SELECT b, window_end, COUNT(*) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)) x GROUP BY window_start, window_end, b"],
    ['SESSION',
      "SELECT b, SESSION_START(ts, INTERVAL '10' SECOND), SESSION_END(ts, INTERVAL '10' SECOND), COUNT(*) FROM t GROUP BY b, SESSION(ts, INTERVAL '10' SECOND)",
      "SESSION(ts, INTERVAL '10' SECOND)",
      "SELECT b, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE t PARTITION BY b, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY b, window_start, window_end"],
  ])('legacy GROUP BY %s(…): the query rewritten to the window table function, which runs', async (fn, query, at, rewritten) => {
    const e = await refused(query)
    expect(e).toMatchObject({ kind: 'unsupported', message: `GROUP BY ${fn}(…) is Flink's legacy group window, which Weir does not support`, at })
    expect(e.help).toBe(`use the window table function ${fn}: ${rewritten}`)
    const [, , result] = await new Session().executeSql(DDL + rewritten)
    expect(result!.kind).toBe('rows')
  })
})
