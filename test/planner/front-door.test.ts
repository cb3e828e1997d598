// The planner's front door (planner/index.ts), used as the engine uses it: a statement planned into
// a job graph named on request with the options of its moment, EXPLAIN, DESCRIBE of tables and views
// without reaching into the binder.
import { describe, expect, it } from 'vitest'
import type * as ast from '../../grammar/ast.js'
import { parseSql } from '../../grammar/index.js'
import { WeirError } from '../../common/errors.js'
import { jobConfigOf } from '../../common/config/index.js'
import { Catalog, describe as describeStmt, explain, explainJobGraph, planQuery, tableFromAst, viewFromAst, type PlanContext } from '../../planner/index.js'

function context(): PlanContext {
  const catalog = new Catalog()
  const config = jobConfigOf({ 'table.exec.state.ttl': '1 h' })
  for (const stmt of parseSql(`
    CREATE TABLE clicks (
      user_id STRING NOT NULL, url STRING, n INT, ts TIMESTAMP(3), doubled AS n * 2,
      WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
    ) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
    CREATE TABLE out_print (user_id STRING, c BIGINT) WITH ('connector' = 'print');
    CREATE VIEW per_user AS SELECT user_id, COUNT(*) AS c FROM clicks GROUP BY user_id`)) {
    if (stmt.kind === 'CreateTable') catalog.add(tableFromAst(stmt), false, stmt.span)
    else if (stmt.kind === 'CreateView') catalog.add(viewFromAst(stmt, catalog, config), false, stmt.span)
  }
  return { catalog, config }
}

function one<K extends ast.Statement['kind']>(sql: string, kind: K): Extract<ast.Statement, { kind: K }> {
  const [stmt] = parseSql(sql)
  expect(stmt?.kind).toBe(kind)
  return stmt as Extract<ast.Statement, { kind: K }>
}

describe('planner front door', () => {
  it('plans a SELECT into its fields and a job graph named on request, carrying the configuration it was planned with', () => {
    const ctx = context()
    const planned = planQuery(one('SELECT user_id, COUNT(*) AS c FROM clicks GROUP BY user_id', 'QueryStatement'), ctx)
    expect(planned.fields.map(f => f.name)).toEqual(['user_id', 'c'])
    const graph = planned.jobGraph('clicks-select-1')
    expect(graph.name).toBe('clicks-select-1')
    expect(graph.config.stateTtlMs).toBe(3_600_000)
    expect(Object.isFrozen(graph.config)).toBe(true)
    expect(graph.nodes.map(n => n.spec.kind)).toEqual(expect.arrayContaining(['Source', 'GroupAggregate', 'Collect']))
  })

  it('plans an INSERT into a sink of the target table, and refuses one into a view at its name', () => {
    const ctx = context()
    const graph = planQuery(one('INSERT INTO out_print SELECT user_id, c FROM per_user', 'Insert'), ctx).jobGraph('j')
    const sink = graph.nodes.find(n => n.spec.kind === 'Sink')!
    expect(sink.spec).toMatchObject({ kind: 'Sink', table: 'out_print', connector: 'print' })
    const bad = () => planQuery(one('INSERT INTO per_user SELECT user_id, c FROM per_user', 'Insert'), ctx)
    expect(bad).toThrow(WeirError)
    expect(bad).toThrow(/cannot INSERT INTO view 'per_user'/)
  })

  it('explains a statement as the text of its job graph', () => {
    const ctx = context()
    const stmt = one('EXPLAIN CHANGELOG_MODE SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id', 'Explain')
    const text = explain(stmt, ctx)
    expect(text).toBe(explainJobGraph(planQuery(stmt.statement, ctx).jobGraph('explain'), { changelogMode: true }))
    expect(text).toContain('changelogMode=[I,UB,UA]')
  })

  it('describes a table as a query sees it and a view by the types of its query', () => {
    const ctx = context()
    const table = describeStmt(one('DESCRIBE clicks', 'Describe'), ctx)
    expect(table.columns).toEqual(['name', 'type', 'null', 'key', 'extras', 'watermark'])
    expect(table.rows).toEqual([
      ['user_id', 'STRING', 'FALSE', '', '', ''],
      ['url', 'STRING', 'TRUE', '', '', ''],
      ['n', 'INT', 'TRUE', '', '', ''],
      ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE', '', '', "ts - INTERVAL '5' SECOND"],
      ['doubled', 'INT', 'TRUE', '', 'AS n * 2', ''],
    ])
    const view = describeStmt(one('DESCRIBE per_user', 'Describe'), ctx)
    expect(view).toEqual({ columns: ['name', 'type'], rows: [['user_id', 'STRING NOT NULL'], ['c', 'BIGINT NOT NULL']] })
    expect(() => describeStmt(one('DESCRIBE clickz', 'Describe'), ctx)).toThrow(/table or view 'clickz' not found/)
  })
})
