// UNNEST in the planner: the Unnest operator in EXPLAIN (what it expands, its columns, LEFT, the
// changelog mode it passes on), the columns it gives (Calcite's names without a column list), the
// source reading only the columns used, and every refusal with its message, help and caret.
import { describe, expect, it } from 'vitest'
import { refusal, type Refusal } from './refused.js'
import { Session } from '../../engine/session.js'

const DDL = `CREATE TABLE t (id INT, tags ARRAY<STRING>, m MAP<STRING, INT>, items ARRAY<ROW<name STRING, qty INT>>, n INT,
    ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'json');
CREATE TABLE cdc (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'debezium-json');
`

async function explain(statement: string): Promise<string> {
  const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${DDL}\nEXPLAIN ${statement}`)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

/** The output columns of a query, as `name TYPE`. */
async function columns(query: string): Promise<string[]> {
  const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${DDL}\nEXPLAIN ${query}`)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  const collect = r.text.match(/Collect\(fields=\[([^\]]*)\]/)![1]!
  return collect.split(', ')
}

function refused(statement: string): Promise<Refusal> {
  return refusal(`${DDL}\n${statement}`)
}

describe('UNNEST in EXPLAIN', () => {
  it('is an Unnest over its input, which reads only the columns used', async () => {
    const text = await explain("SELECT id, x, pos FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u(x, pos) WHERE x <> 'a' AND id > 1")
    expect(text).toContain('Unnest(collection=[tags], element=[x], ordinality=[pos], joinType=[INNER], changelog=[insert-only])')
    expect(text).toMatch(/Source\(table=\[t\], connector=\[filesystem\], fields=\[id, tags\], filter=\[\(id > 1\)\]/)
    expect(text).toMatch(/Calc\(select=\[id, x, pos\], where=\[\(x <> 'a'\)\]/)
  })

  it('shows LEFT, a map entry and the updating changelog it passes on', async () => {
    expect(await explain('SELECT * FROM t LEFT JOIN UNNEST(t.m) AS u(k, v) ON TRUE')).toContain(
      'Unnest(collection=[m], entry=[k, v], joinType=[LEFT], changelog=[insert-only])',
    )
    const cdc = await explain('SELECT x, COUNT(*) FROM cdc, UNNEST(cdc.tags) AS u(x) GROUP BY x')
    expect(cdc).toContain('Unnest(collection=[tags], element=[x], joinType=[INNER], changelog=[updating])')
    expect(cdc).toContain('consumesRetractions=[true]')
  })

  it('names the columns as Flink does without a column list, and types them', async () => {
    expect(await columns('SELECT * FROM t, UNNEST(t.tags)')).toEqual(['id', 'tags', 'm', 'items', 'n', 'ts', 'EXPR$0'])
    expect(await columns('SELECT * FROM t, UNNEST(t.items) WITH ORDINALITY')).toEqual(['id', 'tags', 'm', 'items', 'n', 'ts', 'name', 'qty', 'ORDINALITY'])
    expect(await columns('SELECT u.* FROM t, UNNEST(t.m) AS u')).toEqual(['KEY', 'VALUE'])
    expect(await columns('SELECT * FROM UNNEST(ARRAY[1, 2]) WITH ORDINALITY AS u(a, b)')).toEqual(['a', 'b'])
    const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(
      `${DDL}\nCREATE VIEW v AS SELECT id, x, pos, k, val, lp FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u(x, pos)
         LEFT JOIN UNNEST(t.m) WITH ORDINALITY AS w(k, val, lp) ON TRUE;\nDESCRIBE v`,
    )
    // The position is NOT NULL, but not after a LEFT JOIN (a row without elements has none).
    expect(results.at(-1)).toMatchObject({ rows: [['id', 'INT'], ['x', 'STRING'], ['pos', 'INT NOT NULL'], ['k', 'STRING'], ['val', 'INT'], ['lp', 'INT']] })
  })

  it('keeps the time attribute of its input (a window TVF over unnested rows plans)', async () => {
    const text = await explain(
      `SELECT window_start, x, COUNT(*) FROM TABLE(TUMBLE(TABLE (SELECT ts, x FROM t CROSS JOIN UNNEST(t.tags) AS u(x)), DESCRIPTOR(ts), INTERVAL '1' MINUTE))
       GROUP BY window_start, window_end, x`,
    )
    expect(text).toMatch(/WindowAggregate\(/)
    expect(text).toContain('Unnest(collection=[tags], element=[x]')
    // After the window TVF, as Flink plans it: a window aggregate over the unnested rows, not an updating GROUP BY.
    const after = await explain(
      `SELECT window_start, x, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) CROSS JOIN UNNEST(tags) AS u(x)
       GROUP BY window_start, window_end, x`,
    )
    expect(after).toMatch(/WindowAggregate\(window=\[TUMBLE\(size=1 min\)\], time=\[ts\], groupBy=\[x\].*changelog=\[insert-only\]\)/)
    expect(after).not.toContain('GroupAggregate')
    // Grouped by something else than both window columns, it stays a GROUP BY of the unnested rows.
    expect(await explain(
      `SELECT window_start, x, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) CROSS JOIN UNNEST(tags) AS u(x) GROUP BY window_start, x`,
    )).toContain('GroupAggregate(groupBy=[window_start, x]')
  })
})

describe('UNNEST refused', () => {
  it('a value that is not a collection', async () => {
    const r = await refused('SELECT * FROM t CROSS JOIN UNNEST(t.n) AS u(x)')
    expect(r).toEqual({ kind: 'plan', message: 'UNNEST takes an ARRAY or a MAP, not INT', at: 't.n', help: 'write FROM t CROSS JOIN UNNEST(t.arr) AS u(x)' })
  })

  it('a column list of the wrong length', async () => {
    expect(await refused('SELECT * FROM t CROSS JOIN UNNEST(t.m) AS u(x)')).toEqual({
      kind: 'plan',
      message: 'UNNEST gives 2 columns (KEY, VALUE), but 1 name is given',
      at: 'x',
      help: 'name each column: AS u(k, v)',
    })
    expect(await refused('SELECT * FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u(x)')).toMatchObject({
      message: 'UNNEST gives 2 columns (EXPR$0, ORDINALITY), but 1 name is given',
      help: 'name each column: AS u(x, pos)',
    })
  })

  it('a column of a table that is not before the UNNEST', async () => {
    expect(await refused('SELECT * FROM UNNEST(t.tags) AS u(x)')).toEqual({
      kind: 'plan',
      message: "table 't' not found in FROM: UNNEST reads the columns of the FROM items before it",
      at: 't',
      help: 'write FROM t CROSS JOIN UNNEST(t.arr) AS u(x)',
    })
    expect(await refused('SELECT * FROM UNNEST(tags) AS u(x), t')).toMatchObject({
      message: "column 'tags' not found: UNNEST reads the columns of the FROM items before it",
      at: 'tags',
    })
  })

  it('LATERAL, several collections, RIGHT and FULL joins, a LEFT condition other than TRUE, a JOIN without ON', async () => {
    expect(await refused('SELECT * FROM t CROSS JOIN LATERAL UNNEST(t.tags) AS u(x)')).toMatchObject({
      kind: 'syntax',
      message: 'LATERAL does not apply to UNNEST',
      at: 'LATERAL',
    })
    expect(await refused('SELECT * FROM t, UNNEST(t.tags, t.items) AS u(x)')).toMatchObject({
      kind: 'unsupported',
      message: 'UNNEST takes one ARRAY or MAP, got 2',
      at: 't.items',
    })
    expect(await refused('SELECT * FROM t RIGHT JOIN UNNEST(t.tags) AS u(x) ON TRUE')).toMatchObject({
      kind: 'unsupported',
      message: 'RIGHT JOIN UNNEST is not supported',
      at: 'UNNEST(t.tags) AS u(x)',
    })
    expect(await refused('SELECT * FROM t FULL JOIN UNNEST(t.tags) AS u(x) ON TRUE')).toMatchObject({ message: 'FULL JOIN UNNEST is not supported' })
    expect(await refused("SELECT * FROM t LEFT JOIN UNNEST(t.tags) AS u(x) ON x = 'a'")).toEqual({
      kind: 'unsupported',
      message: 'LEFT JOIN UNNEST takes only ON TRUE',
      at: "x = 'a'",
      help: 'write LEFT JOIN UNNEST(t.arr) AS u(x) ON TRUE, and filter the elements in WHERE',
    })
    expect(await refused('SELECT * FROM t JOIN UNNEST(t.tags) AS u(x)')).toMatchObject({ message: 'JOIN UNNEST needs an ON condition' })
    expect(await refused('SELECT * FROM t CROSS JOIN UNNEST(t.tags) AS u(x) ON TRUE')).toMatchObject({ message: 'CROSS JOIN takes no ON condition',
      at: 'TRUE' })
    expect(await refused('SELECT * FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINAL AS u(x)')).toMatchObject({
      kind: 'syntax',
      message: "expected ORDINALITY after WITH, found 'ORDINAL'",
      at: 'ORDINAL',
    })
    expect(await refused('SELECT * FROM t CROSS JOIN UNNEST(t.tags) WITH')).toMatchObject({ kind: 'syntax',
      message: 'unexpected end of input, expected ORDINALITY' })
    // Not followed by '(', UNNEST is a name (as before UNNEST was read).
    expect(await refused('SELECT * FROM unnest')).toMatchObject({ message: "table or view 'unnest' not found", at: 'unnest' })
  })
})
