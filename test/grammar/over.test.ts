// Window function calls: OVER (…) with PARTITION BY, ORDER BY and ROWS/RANGE frames, OVER w with the
// SELECT's WINDOW clause, and bad OVER input with its position.
import { describe, expect, it } from 'vitest'
import type { FunctionCall, Select } from '../../grammar/ast.js'
import { col, id, num, queryOf, strip, syntaxErrorOf } from './helpers.js'

function selectOf(sql: string): Select {
  const q = queryOf(sql)
  if (q.kind !== 'Select') throw new Error(`expected a Select, got ${q.kind}`)
  return q
}

function callOf(sql: string, item = 0): FunctionCall {
  const it = selectOf(sql).items[item]!
  if (it.kind !== 'ExprItem' || it.expr.kind !== 'FunctionCall') throw new Error('expected a call')
  return strip(it.expr)
}

describe('OVER', () => {
  it('parses ROW_NUMBER() OVER (PARTITION BY … ORDER BY … DESC)', () => {
    const call = callOf('SELECT ROW_NUMBER() OVER (PARTITION BY a, b + 1 ORDER BY ts DESC, c) AS rn FROM t')
    expect(call.name).toEqual(id('ROW_NUMBER'))
    expect(call.args).toEqual([])
    expect(call.over).toMatchObject({
      kind: 'WindowSpec',
      partitionBy: [col('a'), { kind: 'BinaryOp', op: '+' }],
      orderBy: [{ expr: col('ts'), descending: true }, { expr: col('c'), descending: false }],
    })
    expect(call.over).not.toHaveProperty('frame')
  })

  it('parses ROWS and RANGE frames, long and short', () => {
    const frame = (sql: string) => (callOf(`SELECT SUM(x) OVER (ORDER BY ts ${sql}) FROM t`).over as { frame: unknown }).frame
    expect(frame('ROWS BETWEEN 5 PRECEDING AND CURRENT ROW')).toEqual({
      unit: 'ROWS',
      lower: { kind: 'OFFSET', direction: 'PRECEDING', offset: num('5') },
      upper: { kind: 'CURRENT_ROW', direction: 'CURRENT' },
    })
    expect(frame("RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW")).toEqual({
      unit: 'RANGE',
      lower: { kind: 'OFFSET', direction: 'PRECEDING', offset: { kind: 'IntervalLiteral', text: '1', negative: false, unit: 'HOUR' } },
      upper: { kind: 'CURRENT_ROW', direction: 'CURRENT' },
    })
    expect(frame('rows between unbounded preceding and unbounded following')).toEqual({
      unit: 'ROWS',
      lower: { kind: 'UNBOUNDED', direction: 'PRECEDING' },
      upper: { kind: 'UNBOUNDED', direction: 'FOLLOWING' },
    })
    expect(frame('ROWS 3 PRECEDING')).toEqual({ unit: 'ROWS', lower: { kind: 'OFFSET', direction: 'PRECEDING', offset: num('3') } })
    expect(frame('RANGE UNBOUNDED PRECEDING')).toEqual({ unit: 'RANGE', lower: { kind: 'UNBOUNDED', direction: 'PRECEDING' } })
    expect(frame('ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING')).toMatchObject({ upper: { kind: 'OFFSET', direction: 'FOLLOWING', offset: num('2') } })
  })

  it('parses OVER w with the WINDOW clause after HAVING', () => {
    const sel = selectOf(
      'SELECT COUNT(*) OVER w, MAX(x) OVER w2 FROM t WHERE x > 0 WINDOW w AS (PARTITION BY a ORDER BY ts), w2 AS (ORDER BY ts ROWS 1 PRECEDING)',
    )
    const call = sel.items[0]!.kind === 'ExprItem' ? strip(sel.items[0]!.expr) as FunctionCall : undefined
    expect(call?.star).toBe(true)
    expect(call?.over).toEqual({ kind: 'WindowName', name: id('w') })
    expect(strip(sel.windows)?.map(w => w.name.value)).toEqual(['w', 'w2'])
    expect(strip(sel.windows![0]!.spec)).toMatchObject({ partitionBy: [col('a')], orderBy: [{ expr: col('ts') }] })
    expect(strip(sel.windows![1]!.spec.frame)).toMatchObject({ unit: 'ROWS', lower: { kind: 'OFFSET', offset: num('1') } })
  })

  it('parses an empty OVER () and aggregates with DISTINCT and FILTER before OVER', () => {
    expect(callOf('SELECT COUNT(*) OVER () FROM t').over).toEqual({ kind: 'WindowSpec', partitionBy: [], orderBy: [] })
    const call = callOf('SELECT SUM(DISTINCT x) FILTER (WHERE y > 0) OVER (ORDER BY ts) FROM t')
    expect(call.distinct).toBe(true)
    expect(call.filter).toMatchObject({ kind: 'BinaryOp', op: '>' })
    expect(call.over).toMatchObject({ orderBy: [{ expr: col('ts') }] })
  })

  it('keeps the new frame words usable as column names', () => {
    const sel = selectOf('SELECT range, rows, preceding, following, unbounded, current FROM t')
    expect(sel.items.map(i => (i.kind === 'ExprItem' && i.expr.kind === 'ColumnRef' ? i.expr.name.parts[0]!.value : '?'))).toEqual([
      'range',
      'rows',
      'preceding',
      'following',
      'unbounded',
      'current',
    ])
  })

  it('points at bad OVER input', () => {
    expect(syntaxErrorOf('SELECT SUM(x) OVER (ORDER BY ts ROWS BETWEEN x PRECEDING AND CURRENT ROW) FROM t')).toMatchObject({
      at: '1:46',
      message: "unexpected 'x', expected CURRENT, UNBOUNDED, INTERVAL or a number",
    })
    expect(syntaxErrorOf('SELECT SUM(x) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING) FROM t')).toMatchObject({ at: '1:57',
      message: expect.stringContaining("unexpected ')', expected AND") })
    expect(syntaxErrorOf('SELECT SUM(x) OVER (ORDER BY ts ROWS 2) FROM t')).toMatchObject({ at: '1:39',
      message: expect.stringContaining('expected PRECEDING or FOLLOWING') })
    expect(syntaxErrorOf('SELECT ROW_NUMBER() OVER FROM t')).toMatchObject({ at: '1:26', message: expect.stringContaining("unexpected 'FROM'") })
    expect(syntaxErrorOf('SELECT x OVER (PARTITION BY y) FROM t')).toMatchObject({ at: '1:10', help: expect.stringContaining('OVER follows a function call') })
    expect(syntaxErrorOf('SELECT COUNT(*) OVER w FROM t WINDOW w (ORDER BY ts)')).toMatchObject({ at: '1:40', message: expect.stringContaining('expected AS') })
  })
})
