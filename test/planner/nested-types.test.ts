// Binding nested types: DESCRIBE and EXPLAIN print them as Flink does, `r.f` / `t.r.f` resolve to
// fields, and the type errors of subscripts, fields and constructors point at the expression with a
// help line saying what exists or what to write.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const DDL = `CREATE TABLE t (id INT, r ROW<a INT, b STRING, n ROW<z ARRAY<INT>>>, arr ARRAY<INT>, m MAP<STRING, INT>)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent/t.jsonl', 'format' = 'json');`

async function last(sql: string) {
  const session = new Session({ println: () => undefined, explainOnly: true })
  return (await session.executeSql(`${DDL} ${sql}`)).at(-1)!
}

describe('nested types in the planner', () => {
  it('DESCRIBE prints ROW<…>, ARRAY<…>, MAP<…>', async () => {
    const r = await last('DESCRIBE t')
    if (r.kind !== 'table') throw new Error(r.kind)
    expect(r.rows.map(row => row[1])).toEqual(['INT', 'ROW<a INT, b STRING, n ROW<z ARRAY<INT>>>', 'ARRAY<INT>', 'MAP<STRING, INT>'])
  })

  it('EXPLAIN prints fields, subscripts and constructors; r.f and t.r.f bind to the same field', async () => {
    const r = await last(`EXPLAIN SELECT r.a, t.r.b, r.n.z[2], m['k'], ARRAY[id, 2], MAP['x', id], ROW(id, r.b), CARDINALITY(arr) FROM t`)
    if (r.kind !== 'explain') throw new Error(r.kind)
    expect(r.text).toContain(
      "fields=[r.a AS a, r.b AS b, r.n.z[2] AS EXPR$2, m['k'] AS EXPR$3, ARRAY[id, 2] AS EXPR$4, MAP['x', id] AS EXPR$5, ROW(id, r.b) AS EXPR$6, CARDINALITY(arr) AS EXPR$7]",
    )
  })

  it('the types of constructed values and of CAST between nested types', async () => {
    const session = new Session({ println: () => undefined, explainOnly: true })
    await session.executeSql(`${DDL} CREATE VIEW v AS SELECT ROW(id, 'x') AS c, ARRAY[1, 2.5] AS d, MAP['k', id] AS e,
      CAST(ROW(id, r.b) AS ROW<i BIGINT, s STRING>) AS f, arr[1] AS g, m['k'] AS h FROM t`)
    const r = (await session.executeSql('DESCRIBE v')).at(-1)!
    if (r.kind !== 'table') throw new Error(r.kind)
    expect(r.rows.map(row => `${row[0]} ${row[1]}`)).toEqual([
      'c ROW<EXPR$0 INT, EXPR$1 CHAR(1) NOT NULL> NOT NULL',
      'd ARRAY<DECIMAL(11, 1) NOT NULL> NOT NULL',
      'e MAP<CHAR(1) NOT NULL, INT> NOT NULL',
      'f ROW<i BIGINT, s STRING> NOT NULL',
      'g INT',
      'h INT',
    ])
  })

  it('type errors name what exists and point at the expression', async () => {
    const cases: [string, string, string, string][] = [
      ["SELECT arr['x'] FROM t", 'an ARRAY is indexed by an integer, not CHAR(1)', "arr['x']", 'indexes start at 1'],
      ['SELECT r.nope FROM t', "field 'nope' not found in ROW<a INT, b STRING, n ROW<z ARRAY<INT>>>", 'r.nope', 'its fields: a, b, n'],
      ['SELECT t.r.n.q FROM t', "field 'q' not found in ROW<z ARRAY<INT>>", 't.r.n.q', 'its fields: z'],
      ['SELECT m[1] FROM t', 'a MAP<STRING, INT> is indexed by its key type STRING, not INT', 'm[1]', ''],
      ['SELECT id[1] FROM t', 'cannot use […] on a value of type INT', 'id[1]', 'only ARRAY and MAP values are indexed'],
      ['SELECT r[1] FROM t', 'a ROW is not indexed with […]', 'r[1]', 'r.a, r.b, r.n'],
      ['SELECT id.x FROM t', "cannot read field 'x' of a value of type INT", 'id.x', 'only ROW values have fields'],
      ["SELECT ARRAY[1, 'a'] FROM t", 'the elements of ARRAY[…] have no common type: INT, CHAR(1)', "ARRAY[1, 'a']", 'CAST'],
      ["SELECT MAP['a'] FROM t", 'MAP[…] takes keys and values in pairs, got 1 value', "MAP['a']", "MAP['a', 1, 'b', 2]"],
      ['SELECT CARDINALITY(id) FROM t', "cannot apply 'CARDINALITY' to INT", 'CARDINALITY(id)', 'ARRAY | MAP'],
      ['SELECT r < r FROM t',
        "cannot apply '<' to ROW<a INT, b STRING, n ROW<z ARRAY<INT>>> and ROW<a INT, b STRING, n ROW<z ARRAY<INT>>>: ROW, ARRAY and MAP values have no order",
        'r < r', 'compare them with = or <>'],
      ['SELECT arr = m FROM t', "cannot apply '=' to ARRAY<INT> and MAP<STRING, INT>", 'arr = m', 'values of the same shape'],
      ['SELECT CAST(arr AS ROW<a INT>) FROM t', 'cannot cast ARRAY<INT> to ROW<a INT>', 'CAST(arr AS ROW<a INT>)', ''],
    ]
    for (const [sql, message, at, help] of cases) {
      const e = await refusal(`${DDL} ${sql}`)
      expect({ sql, message: e.message, at: e.at }).toEqual({ sql, message, at })
      expect(e.help).toContain(help)
    }
  })

  it('SHOW CREATE TABLE prints nested types that read back as the same table', async () => {
    const session = new Session({ println: () => undefined, explainOnly: true })
    await session.executeSql(DDL.replace('ROW<a INT,', 'ROW<a INT NOT NULL, `b c` MAP<STRING, ARRAY<DECIMAL(5, 2)>>,'))
    const shown = (await session.executeSql('SHOW CREATE TABLE t')).at(-1)!
    if (shown.kind !== 'explain') throw new Error(shown.kind)
    expect(shown.text).toContain('`r` ROW<a INT NOT NULL, `b c` MAP<STRING, ARRAY<DECIMAL(5, 2)>>, b STRING, n ROW<z ARRAY<INT>>>')
    const describe = async (s: Session) => {
      const r = (await s.executeSql('DESCRIBE t')).at(-1)!
      if (r.kind !== 'table') throw new Error(r.kind)
      return r.rows
    }
    const again = new Session({ println: () => undefined, explainOnly: true })
    await again.executeSql(shown.text)
    expect(await describe(again)).toEqual(await describe(session))
  })

  it('a csv table with a nested column is refused, naming the column', async () => {
    const e = await refusal(`CREATE TABLE c (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = '/x', 'format' = 'csv')`)
    expect(e.message).toBe("column 'tags' is ARRAY<STRING>: the csv format cannot hold ROW, ARRAY or MAP values")
    expect(e.help).toContain("'format' = 'json'")
    const k = await refusal(`CREATE TABLE k (id INT, r ROW<x INT>) WITH ('connector' = 'kafka', 'topic' = 'k',
      'properties.bootstrap.servers' = 'localhost:9092', 'properties.group.id' = 'g', 'format' = 'csv')`)
    expect(k.message).toBe("column 'r' is ROW<x INT>: the csv format cannot hold ROW, ARRAY or MAP values")
  })
})
