// + - * / % and unary minus: result types (Flink's DECIMAL rules), evaluation, NULLs and errors.
import { describe, expect, it } from 'vitest'
import { T, formatType } from '../../common/types.js'
import { formatDecimal } from '../../common/values.js'
import type { Rex } from '../../core/rex.js'
import { intervalLiteral, timestampLiteral, dateLiteral } from '../../expr/index.js'
import { apply, call, col, errorOf, lit, num, run, span, str } from './helpers.js'

const typeOf = (rex: Rex): string => formatType(rex.type)

describe('arithmetic types', () => {
  it('keeps INT + INT as INT and widens to BIGINT', () => {
    expect(typeOf(call('+', col(0, T.int(false)), col(1, T.int(false))))).toBe('INT NOT NULL')
    expect(typeOf(call('+', col(0, T.int()), col(1, T.bigint(false))))).toBe('BIGINT')
    expect(typeOf(call('*', col(0, T.bigint()), num('2')))).toBe('BIGINT')
  })

  it('derives DECIMAL precision and scale as Flink does', () => {
    expect(typeOf(call('+', col(0, T.int()), num('1.50')))).toBe('DECIMAL(13, 2)')
    expect(typeOf(call('-', col(0, T.decimal(10, 2)), col(1, T.decimal(5, 4))))).toBe('DECIMAL(13, 4)')
    expect(typeOf(call('*', num('0.908'), col(0, T.bigint())))).toBe('DECIMAL(23, 3)')
    expect(typeOf(call('/', col(0, T.decimal(10, 2)), col(1, T.decimal(5, 0))))).toBe('DECIMAL(16, 8)')
    expect(typeOf(call('/', col(0, T.int()), col(1, T.decimal(3, 1))))).toBe('DECIMAL(17, 6)')
    expect(typeOf(call('%', col(0, T.decimal(10, 2)), col(1, T.decimal(5, 1))))).toBe('DECIMAL(6, 2)')
    // Past 38 digits: integer digits kept, scale reduced but at least 6.
    expect(typeOf(call('*', col(0, T.decimal(38, 10)), col(1, T.decimal(38, 10))))).toBe('DECIMAL(38, 6)')
  })

  it('turns DECIMAL with DOUBLE into DOUBLE', () => {
    expect(typeOf(call('+', col(0, T.decimal(10, 2)), col(1, T.double())))).toBe('DOUBLE')
    expect(typeOf(call('*', num('1.5e0'), col(0, T.int(false))))).toBe('DOUBLE NOT NULL')
  })

  it('gives MOD the type of its divisor', () => {
    expect(typeOf(call('MOD', col(0, T.bigint(false)), num('123')))).toBe('INT NOT NULL')
    expect(typeOf(call('%', col(0, T.int()), col(1, T.bigint())))).toBe('BIGINT')
  })

  it('inserts explicit CASTs for widening', () => {
    const rex = call('+', col(0, T.int()), col(1, T.bigint()))
    expect(rex.kind === 'Call' && rex.args[0]).toMatchObject({ kind: 'Call', op: 'CAST', type: { kind: 'BIGINT' } })
  })

  it('rejects strings with a span and a help line', () => {
    const e = errorOf(() => call('+', col(0, T.string()), col(1, T.int())))
    expect(e.kind).toBe('plan')
    expect(e.message).toBe(`cannot apply '+' to STRING and INT`)
    expect(e.help).toMatch(/^CAST one side/)
    expect(e.span).toEqual(span)
  })

  it('rejects subtracting timestamps with a pointer to TIMESTAMPDIFF', () => {
    const e = errorOf(() => call('-', col(0, T.timestamp(3)), col(1, T.timestamp(3))))
    expect(e.help).toContain('TIMESTAMPDIFF')
  })
})

describe('integer arithmetic', () => {
  it('evaluates and propagates NULL', () => {
    expect(apply('+', [T.int(), T.int()], [2, 3])).toBe(5)
    expect(apply('+', [T.int(), T.int()], [2, null])).toBe(null)
    expect(apply('*', [T.bigint(), T.int()], [null, 3])).toBe(null)
    expect(apply('-', [T.bigint(), T.bigint()], [10, 30])).toBe(-20)
  })

  it('wraps INT overflow like Java', () => {
    expect(apply('+', [T.int(), T.int()], [2147483647, 1])).toBe(-2147483648)
    expect(apply('*', [T.int(), T.int()], [65536, 65536])).toBe(0)
    expect(apply('NEG', [T.int()], [-2147483648])).toBe(-2147483648)
  })

  it('truncates integral division toward zero and keeps the dividend sign for %', () => {
    expect(apply('/', [T.int(), T.int()], [7, 2])).toBe(3)
    expect(apply('/', [T.int(), T.int()], [-7, 2])).toBe(-3)
    expect(apply('/', [T.bigint(), T.bigint()], [-7, 2])).toBe(-3)
    expect(Object.is(apply('/', [T.bigint(), T.bigint()], [-1, 2]), 0)).toBe(true)
    expect(apply('%', [T.int(), T.int()], [-7, 3])).toBe(-1)
    expect(apply('%', [T.int(), T.int()], [7, -3])).toBe(1)
    expect(apply('MOD', [T.bigint(), T.int()], [1007 * 123 + 5, 123])).toBe(5)
  })

  it('raises an execution error on integral division by zero', () => {
    const e = errorOf(() => apply('/', [T.int(), T.int()], [1, 0]))
    expect(e.kind).toBe('execution')
    expect(e.message).toBe('division by zero')
    expect(e.span).toEqual(span)
    expect(errorOf(() => apply('%', [T.bigint(), T.bigint()], [1, 0])).message).toBe('division by zero')
  })

  it('follows IEEE for DOUBLE division by zero', () => {
    expect(apply('/', [T.double(), T.double()], [1, 0])).toBe(Infinity)
    expect(apply('/', [T.double(), T.double()], [0, 0])).toBeNaN()
  })

  it('negates', () => {
    expect(apply('NEG', [T.bigint()], [5])).toBe(-5)
    expect(Object.is(apply('NEG', [T.bigint()], [0]), 0)).toBe(true)
    expect(apply('NEG', [T.double()], [null])).toBe(null)
  })
})

describe('DECIMAL arithmetic', () => {
  const dec = (rex: Rex, row: unknown[] = []): string | null => {
    const v = run(rex, row)
    return v === null ? null : formatDecimal(v as bigint, (rex.type as { scale: number }).scale)
  }

  it('adds exactly: 0.1 + 0.2 = 0.3', () => {
    expect(dec(call('+', num('0.1'), num('0.2')))).toBe('0.3')
    expect(dec(call('+', col(0, T.decimal(2, 1)), col(1, T.decimal(2, 1))), [1n, 2n])).toBe('0.3')
  })

  it('aligns scales and keeps a running sum exact', () => {
    let sum: Rex = num('0.00')
    for (let i = 0; i < 10; i++) sum = call('+', sum, num('0.10'))
    expect(dec(sum)).toBe('1.00')
    expect(dec(call('-', col(0, T.decimal(10, 2)), col(1, T.decimal(5, 4))), [12345n, 5n])).toBe('123.4495')
  })

  it('multiplies BIGINT by a decimal literal at scale 3 (Nexmark q1)', () => {
    const rex = call('*', num('0.908'), col(0, T.bigint()))
    expect(dec(rex, [1000])).toBe('908.000')
    expect(dec(rex, [12345])).toBe('11209.260')
    expect(dec(rex, [null])).toBe(null)
  })

  it('divides with Flink scale and HALF_UP rounding', () => {
    // DECIMAL(3, 2) / INT (as DECIMAL(10, 0)): scale max(6, 2 + 10 + 1) = 13.
    expect(dec(call('/', num('1.00'), num('3')))).toBe('0.3333333333333')
    expect(dec(call('/', num('2'), num('3.0')))).toBe('0.666667')
    expect(dec(call('/', col(0, T.decimal(10, 2)), col(1, T.decimal(5, 0))), [200n, 3n])).toBe('0.66666667')
    expect(dec(call('/', col(0, T.decimal(10, 2)), col(1, T.decimal(5, 0))), [-200n, 3n])).toBe('-0.66666667')
  })

  it('raises on DECIMAL division by zero', () => {
    expect(errorOf(() => run(call('/', col(0, T.decimal(5, 2)), col(1, T.decimal(5, 2))), [1n, 0n])).message).toBe('division by zero')
  })

  it('computes % on aligned scales', () => {
    expect(dec(call('%', num('7.5'), num('2')))).toBe('1.5')
    expect(dec(call('%', col(0, T.decimal(5, 2)), col(1, T.decimal(3, 1))), [-755n, 20n])).toBe('-1.55')
  })

  it('mixes INT and DECIMAL', () => {
    expect(dec(call('+', col(0, T.int()), num('1.50')), [2])).toBe('3.50')
    expect(dec(call('*', col(0, T.int()), col(1, T.decimal(4, 2))), [3, 125n])).toBe('3.75')
  })

  it('gives NULL when a narrowed result overflows', () => {
    const big = col(0, T.decimal(38, 0))
    const rex = call('*', big, big)
    expect(rex.type).toMatchObject({ precision: 38, nullable: true })
    expect(run(rex, [10n ** 20n])).toBe(null)
    expect(run(rex, [10n ** 10n])).toBe(10n ** 20n)
    // Scale is reduced (and rounded HALF_UP) when the product needs more than 38 digits.
    const frac = col(0, T.decimal(38, 10))
    const product = call('*', frac, frac)
    expect(product.type).toEqual(T.decimal(38, 6))
    expect(run(product, [15n * 10n ** 9n])).toBe(2250000n) // 1.5 * 1.5 = 2.250000
  })

  it('negates', () => {
    expect(dec(call('NEG', col(0, T.decimal(5, 2))), [125n])).toBe('-1.25')
  })
})

describe('time arithmetic', () => {
  const ts = timestampLiteral('2024-01-31 10:00:00', span)
  it('adds and subtracts day-time intervals', () => {
    const plus = call('+', col(0, T.timestamp(3, true, 'rowtime')), intervalLiteral('1', 'HOUR', undefined, false, span))
    expect(plus.type).toEqual(T.timestamp(3, true))
    expect(run(plus, [0])).toBe(3_600_000)
    expect(run(call('-', ts, intervalLiteral('10', 'MINUTE', undefined, false, span)))).toBe(Date.UTC(2024, 0, 31, 9, 50))
    expect(run(call('+', intervalLiteral('1', 'DAY', undefined, false, span), col(0, T.timestampLtz(3))), [0])).toBe(86_400_000)
  })

  it('adds intervals to dates in whole days', () => {
    const d = call('+', dateLiteral('2024-02-28', span), intervalLiteral('2', 'DAY', undefined, false, span))
    expect(d.type.kind).toBe('DATE')
    expect(run(d)).toBe(Date.UTC(2024, 2, 1) / 86_400_000)
  })

  it('scales intervals by numbers', () => {
    expect(run(call('*', intervalLiteral('10', 'SECOND', undefined, false, span), num('3')))).toBe(30_000)
    expect(run(call('*', num('1.5'), intervalLiteral('1', 'MINUTE', undefined, false, span)))).toBe(90_000)
    expect(run(call('/', col(0, T.interval()), lit(2, T.int(false))), [60_000])).toBe(30_000)
    expect(run(call('+', intervalLiteral('1', 'MINUTE', undefined, false, span), intervalLiteral('1', 'SECOND', undefined, false, span)))).toBe(61_000)
  })

  it('rejects strings plus intervals', () => {
    expect(errorOf(() => call('+', str('x'), intervalLiteral('1', 'SECOND', undefined, false, span))).message)
      .toBe(`cannot apply '+' to CHAR(1) and INTERVAL`)
  })
})

describe('constant folding', () => {
  it('folds literal arithmetic', () => {
    expect(call('+', num('1'), num('2'))).toEqual(lit(3, T.int(false)))
    expect(call('*', intervalLiteral('1', 'HOUR', undefined, false, span), num('2'))).toEqual(lit(7_200_000, T.interval(false)))
  })

  it('leaves a failing constant for run time', () => {
    const rex = call('/', num('1'), num('0'))
    expect(rex.kind).toBe('Call')
  })

  it('types NULL operands from the other side', () => {
    const rex = call('+', col(0, T.bigint(false)), lit(null, T.null()))
    expect(rex.type).toEqual(T.bigint(true))
  })
})
