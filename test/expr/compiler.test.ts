// compileCalc / compileScalar / compilePredicate / evalConstant, and name resolution in resolveCall.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { RowKind, type Batch } from '../../core/batch.js'
import { calcSource, compileCalc, compileScalar, evalConstant, functionNames, intervalLiteral, resolveCall } from '../../expr/index.js'
import { call, col, errorOf, lit, num, span, str } from './helpers.js'

const price = col(2, T.bigint())
const auction = col(0, T.bigint())

describe('compileCalc', () => {
  const rows = [[1, 10, 100, 'a'], [2, 20, 200, 'b'], [3, 30, null, 'c'], [4, 40, 400, 'd']]

  it('filters and projects, keeping row kinds aligned with the rows kept', () => {
    const calc = compileCalc([auction, call('*', price, num('2'))], call('<>', auction, num('2')))
    const kinds = Uint8Array.of(RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)
    const out = calc({ rows, kinds })!
    expect(out.rows).toEqual([[1, 200], [3, null], [4, 800]])
    expect([...out.kinds!]).toEqual([RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE])
  })

  it('keeps null kinds for insert-only batches', () => {
    const out = compileCalc([col(3, T.string())], call('>', price, num('150')))({ rows, kinds: null })!
    expect(out).toEqual({ rows: [['b'], ['d']], kinds: null })
  })

  it('drops rows whose condition is NULL and returns null when none remain', () => {
    const calc = compileCalc([auction], call('>', price, num('1000')))
    expect(calc({ rows, kinds: null })).toBe(null)
    expect(calc({ rows: [], kinds: null })).toBe(null)
    const nullCondition = compileCalc([auction], call('>', price, num('150')))({ rows, kinds: Uint8Array.of(0, 0, 0, 0) })!
    expect(nullCondition.rows).toEqual([[2], [4]])
    expect(nullCondition.kinds).toHaveLength(2)
  })

  it('keeps every row without a condition and builds new row arrays', () => {
    const batch: Batch = { rows, kinds: null }
    const out = compileCalc([col(3, T.string()), auction])(batch)!
    expect(out.rows).toEqual([['a', 1], ['b', 2], ['c', 3], ['d', 4]])
    expect(out.rows[0]).not.toBe(rows[0])
  })

  it('embeds literals safely', () => {
    const tricky = `a"b'c\\d\n\u2028</script>`
    const out = compileCalc([
      str(tricky),
      lit(-5n, T.decimal(3, 0, false)),
      lit(-0, T.double(false)),
      lit(-Infinity, T.double(false)),
      lit(NaN, T.double(false)),
      call('-', auction, lit(-1, T.bigint(false))),
    ])({ rows: [[1]], kinds: null })!
    expect(out.rows[0]!.slice(0, 2)).toEqual([tricky, -5n])
    expect(Object.is(out.rows[0]![2], -0)).toBe(true)
    expect(out.rows[0]![3]).toBe(-Infinity)
    expect(out.rows[0]![4]).toBeNaN()
    expect(out.rows[0]![5]).toBe(2)
  })

  it('generates one loop with inline operators for the common cases', () => {
    const source = calcSource([auction, call('*', num('0.908'), price)], call('=', call('MOD', auction, num('123')), num('0')))
    expect(source).toContain('for (let i = 0; i < n; i++)')
    expect(source).toContain('BigInt(r[2])')
    expect(source).toMatch(/908n \* v\d/)
    // BIGINT: inline on numbers; the helper only for a bigint (beyond 2^53).
    expect(source).toContain("typeof r[0] === 'number' ? (r[0] % 123) | 0 : c0(r[0], 123)")
    expect(source.replace('c0(r[0], 123)', '')).not.toMatch(/c\d+\(/) // no other helper calls
  })

  it('calls helpers for the less common functions', () => {
    const out = compileCalc([call('UPPER', call('SUBSTRING', col(3, T.string()), num('1'), num('1')))])({ rows, kinds: null })!
    expect(out.rows).toEqual([['A'], ['B'], ['C'], ['D']])
  })

  it('filters on a BOOLEAN column, keeping only TRUE', () => {
    const flag = col(1, T.boolean())
    const out = compileCalc([auction], flag)({ rows: [[1, true], [2, false], [3, null]], kinds: null })!
    expect(out.rows).toEqual([[1]])
  })

  it('derives result nullability from the arguments', () => {
    expect(call('UPPER', col(0, T.string(false))).type).toEqual(T.string(false))
    expect(call('UPPER', col(0, T.string())).type).toEqual(T.string(true))
    expect(call('+', col(0, T.int(false)), num('1')).type).toEqual(T.int(false))
    expect(call('IS_NOT_NULL', col(0, T.int())).type).toEqual(T.boolean(false))
    expect(call('REGEXP_EXTRACT', col(0, T.string(false)), str('a')).type).toEqual(T.string(true))
  })

  it('raises run-time errors from inside the batch', () => {
    const calc = compileCalc([call('/', num('10'), call('-', auction, num('3')))])
    expect(errorOf(() => calc({ rows, kinds: null })).message).toBe('division by zero')
  })
})

describe('compileScalar and evalConstant', () => {
  it('evaluates nested expressions', () => {
    const rex = call('CASE', call('IS_NULL', price), str('none'), call('CONCAT', col(3, T.string()), str(':'), call('UPPER', col(3, T.string()))))
    const f = compileScalar(rex)
    expect(f([1, 1, null, 'x'])).toBe('none')
    expect(f([1, 1, 5, 'x'])).toBe('x:X')
  })

  it('evaluates constants for the planner', () => {
    expect(evalConstant(call('*', intervalLiteral('1', 'MINUTE', undefined, false, span), num('5')))).toBe(300_000)
    expect(evalConstant(num('10'))).toBe(10)
    expect(() => evalConstant(auction)).toThrow(/reads input columns/)
  })
})

describe('resolveCall names', () => {
  it('suggests a close name for an unknown function', () => {
    const e = errorOf(() => resolveCall('UPPR', [str('a')], span))
    expect(e.kind).toBe('plan')
    expect(e.message).toBe(`unknown function 'UPPR'`)
    expect(e.help).toBe(`did you mean 'UPPER'?`)
    expect(e.span).toEqual(span)
    expect(errorOf(() => resolveCall('SUBSTRNG', [], span)).help).toBe(`did you mean 'SUBSTRING'?`)
    expect(errorOf(() => resolveCall('XYZZY_FROB', [], span)).help).toBe(undefined)
  })

  it('is case-insensitive and resolves aliases to one canonical name', () => {
    const x = col(0, T.string())
    expect(resolveCall('upper', [x])).toMatchObject({ op: 'UPPER' })
    expect(resolveCall('Substr', [x, num('1')])).toMatchObject({ op: 'SUBSTRING' })
    expect(resolveCall('CEILING', [col(0, T.double())])).toMatchObject({ op: 'CEIL' })
    expect(resolveCall('NOW', [])).toMatchObject({ op: 'CURRENT_TIMESTAMP' })
  })

  it('lists the registry', () => {
    const names = functionNames()
    for (const n of ['+', 'NEG', 'IS_NOT_FALSE', 'BETWEEN', 'CASE', '||', 'EXTRACT', 'FLOOR_TO', 'REGEXP_EXTRACT', 'TIMESTAMPDIFF', 'PROCTIME']) {
      expect(names).toContain(n)
    }
  })

  it('points argument errors at the span given', () => {
    const e = errorOf(() => resolveCall('SQRT', [str('x')], span))
    expect(e.span).toEqual(span)
  })
})
