// Numeric functions: ROUND / TRUNCATE (HALF_UP, exact on DECIMAL), FLOOR / CEIL, ABS, SIGN, POWER, logs, RAND.
import { describe, expect, it } from 'vitest'
import { T, formatType } from '../../common/types.js'
import { formatDecimal } from '../../common/values.js'
import type { Rex } from '../../core/rex.js'
import { compileScalar } from '../../expr/index.js'
import { apply, call, col, errorOf, num, run } from './helpers.js'

const D = T.double()
const dec = (rex: Rex, row: unknown[] = []): string | null => {
  const v = run(rex, row)
  return v === null ? null : formatDecimal(v as bigint, (rex.type as { scale: number }).scale)
}

describe('ROUND and TRUNCATE', () => {
  it('rounds DECIMAL exactly, half up', () => {
    const x = col(0, T.decimal(10, 3))
    const r2 = call('ROUND', x, num('2'))
    expect(formatType(r2.type)).toBe('DECIMAL(10, 2)')
    expect(dec(r2, [12345n])).toBe('12.35')
    expect(dec(r2, [-12345n])).toBe('-12.35')
    expect(dec(r2, [12344n])).toBe('12.34')
    const r0 = call('ROUND', x)
    expect(formatType(r0.type)).toBe('DECIMAL(8, 0)')
    expect(dec(r0, [2500n])).toBe('3')
    const rneg = call('ROUND', x, call('NEG', num('1')))
    expect(dec(rneg, [15000n])).toBe('20')
    expect(dec(call('ROUND', x, num('5')), [12345n])).toBe('12.345')
  })

  it('rounds doubles half up on their decimal value', () => {
    expect(apply('ROUND', [D, T.int()], [2.675, 2])).toBe(2.68)
    expect(apply('ROUND', [D, T.int()], [-2.5, 0])).toBe(-3)
    expect(apply('ROUND', [D], [0.49999999999999994])).toBe(0)
    expect(apply('ROUND', [D, T.int()], [1234.5, -2])).toBe(1200)
    expect(apply('ROUND', [D, T.int()], [1.005, 2])).toBe(1.01)
    expect(apply('ROUND', [D], [null])).toBe(null)
  })

  it('rounds integers to tens', () => {
    expect(apply('ROUND', [T.int(), T.int()], [1250, -2])).toBe(1300)
    expect(apply('ROUND', [T.bigint(), T.int()], [-1250, -2])).toBe(-1300)
    expect(apply('ROUND', [T.int(), T.int()], [17, 1])).toBe(17)
  })

  it('truncates toward zero', () => {
    expect(apply('TRUNCATE', [D, T.int()], [2.679, 2])).toBe(2.67)
    expect(apply('TRUNCATE', [D, T.int()], [-2.679, 1])).toBe(-2.6)
    expect(dec(call('TRUNCATE', col(0, T.decimal(6, 3)), num('1')), [-1299n])).toBe('-1.2')
    expect(apply('TRUNCATE', [T.int(), T.int()], [1299, -2])).toBe(1200)
  })

  it('needs constant digits for DECIMAL', () => {
    expect(errorOf(() => call('ROUND', col(0, T.decimal(5, 2)), col(1, T.int()))).message).toBe('ROUND of a DECIMAL needs a constant number of digits')
  })
})

describe('other numeric functions', () => {
  it('FLOOR and CEIL', () => {
    expect(apply('FLOOR', [D], [-1.5])).toBe(-2)
    expect(apply('CEIL', [D], [-1.5])).toBe(-1)
    expect(apply('CEILING', [T.int()], [7])).toBe(7)
    const f = call('FLOOR', col(0, T.decimal(5, 2)))
    expect(formatType(f.type)).toBe('DECIMAL(4, 0)')
    expect(dec(f, [-150n])).toBe('-2')
    expect(dec(call('CEIL', col(0, T.decimal(5, 2))), [-150n])).toBe('-1')
    expect(dec(call('CEIL', col(0, T.decimal(5, 2))), [101n])).toBe('2')
  })

  it('ABS and SIGN keep the argument type', () => {
    expect(apply('ABS', [T.int()], [-3])).toBe(3)
    expect(apply('ABS', [D], [-2.5])).toBe(2.5)
    expect(dec(call('ABS', col(0, T.decimal(5, 2))), [-150n])).toBe('1.50')
    expect(apply('SIGN', [T.bigint()], [-7])).toBe(-1)
    expect(dec(call('SIGN', col(0, T.decimal(5, 2))), [-150n])).toBe('-1.00')
  })

  it('MOD', () => {
    expect(apply('MOD', [T.int(), T.int()], [-7, 3])).toBe(-1)
    expect(dec(call('MOD', col(0, T.decimal(5, 1)), num('2')), [75n])).toBe('1.5')
  })

  it('POWER, SQRT, LN, LOG10, EXP, LOG return DOUBLE', () => {
    expect(call('POWER', col(0, T.int()), num('2')).type).toEqual(D)
    expect(apply('POWER', [T.int(), T.int()], [2, 10])).toBe(1024)
    expect(apply('SQRT', [T.decimal(4, 2)], [225n])).toBe(1.5)
    expect(apply('LN', [D], [Math.E])).toBe(1)
    expect(apply('LOG10', [T.int()], [1000])).toBe(3)
    expect(apply('EXP', [D], [0])).toBe(1)
    expect(apply('LOG', [D, D], [2, 8])).toBe(3)
    expect(apply('SQRT', [D], [-1])).toBeNaN()
  })

  it('PI folds; RAND stays per row and is in [0, 1)', () => {
    expect(call('PI')).toMatchObject({ kind: 'Literal', value: Math.PI })
    const rand = call('RAND')
    expect(rand.kind).toBe('Call')
    const f = compileScalar(rand)
    const draws = Array.from({ length: 100 }, () => f([]) as number)
    expect(draws.every(v => v >= 0 && v < 1)).toBe(true)
    expect(new Set(draws).size).toBeGreaterThan(90)
    // The same seed gives the same sequence.
    const a = compileScalar(call('RAND', num('42'))), b = compileScalar(call('RAND', num('42')))
    expect([a([]), a([])]).toEqual([b([]), b([])])
    const ints = compileScalar(call('RAND_INTEGER', num('10')))
    expect(Array.from({ length: 50 }, () => ints([]) as number).every(r => Number.isInteger(r) && r >= 0 && r < 10)).toBe(true)
  })
})
