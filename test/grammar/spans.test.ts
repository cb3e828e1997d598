// Source spans: every node covers exactly its text, with 1-based lines and columns (in characters).
import { describe, expect, it } from 'vitest'
import type { Span } from '../../common/span.js'
import type { BinaryOp, CreateTable, Insert, Select, WindowTvf } from '../../grammar/ast.js'
import { parseExpression, parseSql } from '../../grammar/index.js'

function textOf(sql: string, span: Span): string {
  return sql.slice(span.start.offset, span.end.offset)
}

function at(span: Span): string {
  return `${span.start.line}:${span.start.column}-${span.end.line}:${span.end.column}`
}

/** Walks any AST value, collecting every span with the path that leads to it. */
function allSpans(node: unknown, path = '$', out: [string, Span][] = []): [string, Span][] {
  if (Array.isArray(node)) node.forEach((n, i) => allSpans(n, `${path}[${i}]`, out))
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'span' || k === 'keySpan' || k === 'valueSpan' || k === 'fnSpan') out.push([`${path}.${k}`, v as Span])
      else allSpans(v, `${path}.${k}`, out)
    }
  }
  return out
}

describe('spans', () => {
  const sql = [
    'CREATE TABLE bid (',
    '  auction BIGINT,',
    '  dateTime TIMESTAMP(3),',
    "  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND",
    ") WITH ('connector' = 'datagen');",
    'INSERT INTO out',
    'SELECT auction, COUNT(*) AS n',
    "FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))",
    'GROUP BY auction, window_start, window_end',
  ].join('\n')
  const [create, insert] = parseSql(sql) as [CreateTable, Insert]

  it('gives statements the span of their text, without the ;', () => {
    expect(at(create.span)).toBe('1:1-5:33')
    expect(textOf(sql, create.span).endsWith("'datagen')")).toBe(true)
    expect(at(insert.span)).toBe('6:1-9:43')
  })

  it('points columns, types and watermarks at their text', () => {
    const dt = create.columns[1]!
    expect(at(dt.span)).toBe('3:3-3:24')
    expect(textOf(sql, dt.name.span)).toBe('dateTime')
    if (dt.kind !== 'PhysicalColumn') throw new Error('expected a physical column')
    expect(textOf(sql, dt.type.span)).toBe('TIMESTAMP(3)')
    expect(at(create.watermark!.span)).toBe('4:3-4:59')
    expect(textOf(sql, create.watermark!.expr.span)).toBe("dateTime - INTERVAL '4' SECOND")
  })

  it('points query parts at their text', () => {
    const select = insert.query as Select
    expect(at(select.span)).toBe('7:1-9:43')
    expect(textOf(sql, select.items[1]!.span)).toBe('COUNT(*) AS n')
    const tvf = select.from as WindowTvf
    expect(textOf(sql, tvf.span)).toBe("TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))")
    expect(at(tvf.fnSpan)).toBe('8:12-8:18')
    expect(at(tvf.timeCol.span)).toBe('8:41-8:49')
    expect(textOf(sql, tvf.args[0]!.span)).toBe("INTERVAL '10' SECOND")
    expect(textOf(sql, select.groupBy![2]!.span)).toBe('window_end')
  })

  it('makes every span in a script cover the text it came from', () => {
    for (const [path, span] of allSpans(parseSql(sql))) {
      expect(span.start.offset, path).toBeLessThanOrEqual(span.end.offset)
      const text = textOf(sql, span)
      expect(text, path).toBe(text.trim())
      expect(text.length, path).toBeGreaterThan(0)
      // line/column agree with the offset
      const before = sql.slice(0, span.start.offset).split('\n')
      expect(span.start.line, path).toBe(before.length)
      expect(span.start.column, path).toBe(before[before.length - 1]!.length + 1)
    }
  })

  it('spans binary operators from the first operand to the last, parentheses included', () => {
    const text = '(a + b) * c'
    const e = parseExpression(text) as BinaryOp
    expect(textOf(text, e.span)).toBe('(a + b) * c')
    expect(textOf(text, e.left.span)).toBe('a + b')
    const p = '  x BETWEEN 1 AND 2  '
    expect(textOf(p, parseExpression(p).span)).toBe('x BETWEEN 1 AND 2')
    const n = 'NOT a IS NULL'
    expect(textOf(n, parseExpression(n).span)).toBe(n)
  })

  it('counts columns in characters, not UTF-16 units', () => {
    const text = "SELECT '😀', bad FROM t"
    const select = (parseSql(text)[0] as { query: Select }).query
    expect(select.items[1]!.span.start).toEqual({ offset: 13, line: 1, column: 13 })
  })

  it('handles \\r\\n line endings', () => {
    const text = 'SELECT a\r\nFROM t'
    const select = (parseSql(text)[0] as { query: Select }).query
    expect(select.from!.span.start).toMatchObject({ line: 2, column: 6 })
  })
})
