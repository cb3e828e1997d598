// Parsing ROW / ARRAY / MAP types (both ROW spellings, nesting, `>>`), the constructors ROW(…),
// (a, b), ARRAY[…], MAP[…], subscripts and field access after them, and the syntax errors of each.
import { describe, expect, it } from 'vitest'
import type { TypeName } from '../../grammar/ast.js'
import { errorOf, one, showExpr } from './helpers.js'

/** The column types of a CREATE TABLE, printed back as a compact type text. */
function typesOf(sql: string): string[] {
  const st = one(sql)
  if (st.kind !== 'CreateTable') throw new Error('expected CREATE TABLE')
  return st.columns.flatMap(c => (c.kind === 'PhysicalColumn' ? [typeText(c.type)] : []))
}

function typeText(t: TypeName): string {
  const inner = t.fields
    ? `<${t.fields.map(f => `${f.name.value} ${typeText(f.type)}`).join(', ')}>`
    : t.elements
    ? `<${t.elements.map(typeText).join(', ')}>`
    : ''
  return `${t.name}${inner}${t.params.length ? `(${t.params.join(', ')})` : ''}${t.notNull ? ' NOT NULL' : ''}`
}

describe('nested type names', () => {
  it('ROW<…>, ROW(…), ARRAY<T>, MAP<K, V>, nested and closed by >>', () => {
    expect(typesOf(`CREATE TABLE t (
      a ROW<id BIGINT, name VARCHAR>, b ROW(x INT NOT NULL, y DECIMAL(10, 2)), c ARRAY<INT>, d MAP<STRING, ARRAY<BIGINT>>,
      e ARRAY<ROW<k STRING, v MAP<STRING, INT>>> NOT NULL, f ARRAY<DOUBLE PRECISION>, g ROW<\`select\` INT>)`)).toEqual([
      'ROW<id BIGINT, name STRING>',
      'ROW<x INT NOT NULL, y DECIMAL(10, 2)>',
      'ARRAY<INT>',
      'MAP<STRING, ARRAY<BIGINT>>',
      'ARRAY<ROW<k STRING, v MAP<STRING, INT>>> NOT NULL',
      'ARRAY<DOUBLE>',
      'ROW<select INT>',
    ])
  })

  it('refuses malformed nested types, pointing at them', () => {
    expect(errorOf(() => one('CREATE TABLE t (a ARRAY<INT, INT>)')).message).toBe('type ARRAY takes one element type in <…>')
    expect(errorOf(() => one('CREATE TABLE t (a MAP<STRING>)')).message).toBe('type MAP takes a key type and a value type in <…>')
    expect(errorOf(() => one('CREATE TABLE t (a ROW<INT>)')).message).toBe('a ROW field needs a name before its type')
    expect(errorOf(() => one('CREATE TABLE t (a ROW<x INT, X STRING>)')).message).toBe("ROW field 'X' is declared twice")
    expect(errorOf(() => one('CREATE TABLE t (a ARRAY<x INT>)')).message).toBe('the types of ARRAY have no names')
    expect(errorOf(() => one('CREATE TABLE t (a INT<STRING>)')).message).toBe('type INT takes no element types')
    const e = errorOf(() => one('CREATE TABLE t (a ARRAY(3))'))
    expect(e.message).toBe('type ARRAY takes types, not numbers')
    expect(e.span?.start.column).toBe(25)
  })
})

describe('nested values in expressions', () => {
  it('constructors, subscripts and fields', () => {
    expect(showExpr('ROW(1, a)')).toBe('ROW(1, a)')
    expect(showExpr('(1, a)')).toBe('ROW(1, a)')
    expect(showExpr('ARRAY[1, 2 + 3]')).toBe('ARRAY(1, (2 + 3))')
    expect(showExpr("MAP['a', 1, 'b', 2]")).toBe("MAP('a', 1, 'b', 2)")
    expect(showExpr('a[1]')).toBe('ITEM(a, 1)')
    expect(showExpr("t.m['k'][2]")).toBe("ITEM(ITEM(t.m, 'k'), 2)")
    expect(showExpr('r.f.g')).toBe('r.f.g')
    expect(showExpr('a[1].f')).toBe("FIELD(ITEM(a, 1), 'f')")
    expect(showExpr('ARRAY[1][1]')).toBe('ITEM(ARRAY(1), 1)')
    expect(showExpr('-a[1] + 1')).toBe('((- ITEM(a, 1)) + 1)')
  })

  it('a subscript takes one index', () => {
    expect(errorOf(() => showExpr('a[1, 2]')).message).toBe('a subscript takes one index, got 2')
  })
})
