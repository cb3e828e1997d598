// JSON_ARRAYAGG(v [{NULL | ABSENT} ON NULL]): the retractable LISTAGG of each value's JSON text
// (grammar/json-clauses.ts jsonArrayAgg), in GROUP BY over an insert-only and an updating input;
// refused where Flink refuses it (OVER windows, DISTINCT). JSON_OBJECTAGG: keyed-aggregates.test.ts.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import { refusal } from '../planner/refused.js'

async function rows(sql: string): Promise<unknown[][]> {
  const rs = await new Session().executeSql(sql)
  return (rs.at(-1) as Extract<StatementResult, { kind: 'rows' }>).changes.map(c => c.row as unknown[])
}

const T = `(VALUES (1, 'a', 10), (1, CAST(NULL AS STRING), 20), (2, 'b"', 30), (1, 'c', 40), (3, 'd', 50)) AS t(k, s, n)`

describe('JSON_ARRAYAGG', () => {
  it('in arrival order; ABSENT ON NULL by default, NULL ON NULL, FILTER, nested JSON (Flink\'s docs: \'["Apple","Banana","Orange"]\')', async () => {
    expect(await rows(`SELECT JSON_ARRAYAGG(f) FROM (VALUES ('Apple'), ('Banana'), ('Orange')) AS o(f)`)).toEqual([['["Apple","Banana","Orange"]']])
    const got = await rows(`SELECT k, JSON_ARRAYAGG(s), JSON_ARRAYAGG(s NULL ON NULL), JSON_ARRAYAGG(n) FILTER (WHERE n > 10),
        JSON_ARRAYAGG(JSON_OBJECT('n' VALUE n)), JSON_ARRAYAGG(CAST(n AS DOUBLE) / 4)
      FROM ${T} GROUP BY k`)
    expect(got.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([
      [1, '["a","c"]', '["a",null,"c"]', '[20,40]', '[{"n":10},{"n":20},{"n":40}]', '[2.5,5.0,10.0]'],
      [2, '["b\\""]', '["b\\""]', '[30]', '[{"n":30}]', '[7.5]'],
      [3, '["d"]', '["d"]', '[50]', '[{"n":50}]', '[12.5]'],
    ])
  })

  it('a group whose values are all NULL gives []', async () => {
    expect(await rows(`SELECT k, JSON_ARRAYAGG(s) FROM ${T} WHERE s IS NULL GROUP BY k`)).toEqual([[1, '[]']])
  })

  it('over an updating input a retraction removes its value', async () => {
    // k = 1 moves from count 1 to 2 to 3: the group c = 1 ends with the keys counted once.
    const got = await rows(`SELECT c, JSON_ARRAYAGG(k) FROM (SELECT k, COUNT(*) AS c FROM ${T} GROUP BY k) GROUP BY c`)
    expect(got.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([[1, '[2,3]'], [3, '[1]']])
  })

  it('is refused in OVER windows and with DISTINCT', async () => {
    const over = await refusal(`SELECT JSON_ARRAYAGG(s) OVER (PARTITION BY k ORDER BY n) FROM ${T}`)
    expect(over.message).toBe('JSON_ARRAYAGG is not supported in OVER windows (as in Flink)')
    expect((await refusal(`SELECT JSON_ARRAYAGG(DISTINCT s) FROM ${T}`)).message).toBe('JSON_ARRAYAGG takes one value, without DISTINCT')
  })
})
