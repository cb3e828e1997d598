// Aggregate result types and accumulators: NULL rules, FILTER, DISTINCT, retraction, exact DECIMAL.
import { describe, expect, it } from 'vitest'
import { aggregateResultType } from '../../expr/aggregate-types.js'
import { T } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { AggregateHandler, divideHalfUp } from '../../operators/aggregates.js'
import { HeapKeyedStateBackend } from '../../state/heap/heap-backend.js'
import { makeKey } from '../../state/key-encoding.js'
import type { AggCall } from '../../core/aggregates.js'
import type { Row } from '../../core/batch.js'
import { aggCall } from './harness.js'

describe('aggregateResultType', () => {
  it('follows Flink', () => {
    expect(aggregateResultType('COUNT', null)).toEqual(T.bigint(false))
    expect(aggregateResultType('COUNT', T.string())).toEqual(T.bigint(false))
    expect(aggregateResultType('SUM', T.int(false))).toEqual(T.int())
    expect(aggregateResultType('SUM', T.bigint())).toEqual(T.bigint())
    expect(aggregateResultType('SUM', T.double())).toEqual(T.double())
    expect(aggregateResultType('SUM', T.decimal(10, 2))).toEqual(T.decimal(38, 2))
    expect(aggregateResultType('AVG', T.int())).toEqual(T.int())
    expect(aggregateResultType('AVG', T.bigint())).toEqual(T.bigint())
    expect(aggregateResultType('AVG', T.double())).toEqual(T.double())
    expect(aggregateResultType('AVG', T.decimal(10, 2))).toEqual(T.decimal(38, 6))
    expect(aggregateResultType('AVG', T.decimal(20, 8))).toEqual(T.decimal(38, 8))
    expect(aggregateResultType('MIN', T.string(false))).toEqual(T.string())
    expect(aggregateResultType('MAX', T.timestamp(3, false, 'rowtime'))).toEqual(T.timestamp(3))
    expect(aggregateResultType('MAX', T.date())).toEqual(T.date())
    expect(aggregateResultType('MIN', T.boolean())).toEqual(T.boolean())
  })

  it('rejects arguments it cannot aggregate', () => {
    const err = (() => {
      try {
        aggregateResultType('SUM', T.string())
      } catch (e) {
        return e
      }
    })() as WeirError
    expect(err).toBeInstanceOf(WeirError)
    expect(err.kind).toBe('plan')
    expect(err.message).toBe('SUM does not accept STRING')
    expect(err.help).toBe('CAST the argument to a numeric type')
    expect(() => aggregateResultType('AVG', T.timestamp(3))).toThrow('AVG does not accept TIMESTAMP(3)')
    expect(() => aggregateResultType('SUM', T.boolean(false))).toThrow('SUM does not accept BOOLEAN')
    expect(() => aggregateResultType('MAX', T.null())).toThrow('MAX does not accept NULL')
    expect(() => aggregateResultType('SUM', null)).toThrow('SUM(*) is not valid')
  })
})

/** One group's accumulator, driven row by row; `value()` reads every call's result. */
function group(calls: AggCall[], retracting: boolean) {
  const state = new HeapKeyedStateBackend()
  const handler = new AggregateHandler(calls, { retracting })
  handler.open(state)
  state.setCurrentKey(makeKey(['g']))
  const acc = handler.createAccumulator()
  return {
    handler,
    state,
    add(...rows: Row[]) {
      for (const r of rows) handler.accumulate(acc, r)
    },
    retract(...rows: Row[]) {
      for (const r of rows) handler.retract(acc, r)
    },
    value(): unknown[] {
      const out: unknown[] = []
      handler.getValue(acc, out, 0)
      return out
    },
    rows: () => handler.rowCount(acc),
  }
}

describe('accumulators', () => {
  it('count rows, non-null values, and give NULL for no values', () => {
    const g = group([
      aggCall('COUNT', null),
      aggCall('COUNT', 0, T.int()),
      aggCall('SUM', 0, T.int()),
      aggCall('MIN', 0, T.int()),
      aggCall('MAX', 0, T.int()),
      aggCall('AVG', 0, T.int()),
    ], false)
    expect(g.value()).toEqual([0, 0, null, null, null, null])
    g.add([null], [null])
    expect(g.value()).toEqual([2, 0, null, null, null, null])
    g.add([4], [null], [-1], [2])
    expect(g.value()).toEqual([6, 3, 5, -1, 4, 1])
  })

  it('AVG of integers truncates toward zero; of DECIMAL rounds half up at scale max(6, s)', () => {
    const ints = group([aggCall('AVG', 0, T.int()), aggCall('AVG', 0, T.bigint())], false)
    ints.add([3], [4])
    expect(ints.value()).toEqual([3, 3])
    const neg = group([aggCall('AVG', 0, T.int())], false)
    neg.add([-3], [-4])
    expect(neg.value()).toEqual([-3])
    const dbl = group([aggCall('AVG', 0, T.double()), aggCall('SUM', 0, T.double())], false)
    dbl.add([1.5], [2], [null])
    expect(dbl.value()).toEqual([1.75, 3.5])
    // DECIMAL(10,2): 1.00, 1.00, 0.01 → 2.01 / 3 = 0.67 → 0.670000 at scale 6
    const dec = group([aggCall('AVG', 0, T.decimal(10, 2)), aggCall('SUM', 0, T.decimal(10, 2))], false)
    dec.add([100n], [100n], [1n])
    expect(dec.value()).toEqual([670000n, 201n])
    // 2/3 = 0.6666666… → 0.666667 (half up); -2/3 → -0.666667
    const third = group([aggCall('AVG', 0, T.decimal(5, 0))], false)
    third.add([1n], [1n], [0n])
    expect(third.value()).toEqual([666667n])
    const negThird = group([aggCall('AVG', 0, T.decimal(5, 0))], false)
    negThird.add([-1n], [-1n], [0n])
    expect(negThird.value()).toEqual([-666667n])
    expect(divideHalfUp(5n, 2n)).toBe(3n)
    expect(divideHalfUp(-5n, 2n)).toBe(-3n)
    expect(divideHalfUp(7n, 3n)).toBe(2n)
  })

  it('keeps DECIMAL sums exact beyond 2^53', () => {
    const g = group([aggCall('SUM', 0, T.decimal(38, 2))], true)
    g.add([9007199254740993n], [9007199254740993n], [1n])
    expect(g.value()).toEqual([18014398509481987n])
    g.retract([1n])
    expect(g.value()).toEqual([18014398509481986n])
  })

  it('MIN and MAX compare strings, timestamps and booleans', () => {
    const g = group([aggCall('MIN', 0, T.string()), aggCall('MAX', 0, T.string()), aggCall('MAX', 1, T.boolean()), aggCall('MIN', 2, T.timestamp(3))], false)
    g.add(['b', false, 2000], ['a', true, null], ['c', null, -5], [null, false, 10])
    expect(g.value()).toEqual(['a', 'c', true, -5])
  })

  it('count a row only where its FILTER column is TRUE', () => {
    const g = group([
      aggCall('COUNT', null, null, { filter: 1 }),
      aggCall('SUM', 0, T.int(), { filter: 1 }),
      aggCall('SUM', 0, T.int(), { filter: 2 }),
      aggCall('COUNT', 0, T.int(), { distinct: true, filter: 2 }),
    ], true)
    g.add([1, true, false], [2, null, true], [4, false, true], [8, true, null], [2, true, true])
    expect(g.value()).toEqual([3, 11, 8, 2])
    g.retract([2, null, true])
    expect(g.value()).toEqual([3, 11, 6, 2]) // another row still holds the distinct value 2
    g.retract([4, false, true])
    expect(g.value()).toEqual([3, 11, 2, 1])
  })

  it('DISTINCT counts each value once for COUNT, SUM and AVG', () => {
    const g = group([
      aggCall('COUNT', 0, T.int(), { distinct: true }),
      aggCall('SUM', 0, T.int(), { distinct: true }),
      aggCall('AVG', 0, T.int(), { distinct: true }),
      aggCall('SUM', 0, T.int()),
      aggCall('MAX', 0, T.int(), { distinct: true }),
    ], false)
    g.add([1], [1], [2], [null], [2], [6])
    expect(g.value()).toEqual([3, 9, 3, 12, 6])
  })

  it('COUNT DISTINCT after retracting one of two equal values', () => {
    const g = group([aggCall('COUNT', 0, T.string(), { distinct: true }), aggCall('COUNT', 0, T.string())], true)
    g.add(['a'], ['a'], ['b'])
    expect(g.value()).toEqual([2, 3])
    g.retract(['a'])
    expect(g.value()).toEqual([2, 2])
    g.retract(['a'])
    expect(g.value()).toEqual([1, 1])
    g.add(['a'])
    expect(g.value()).toEqual([2, 2])
  })

  it('MAX and MIN after retracting the extreme', () => {
    const g = group([aggCall('MAX', 0, T.int()), aggCall('MIN', 0, T.int())], true)
    g.add([5], [9], [9], [1], [7])
    expect(g.value()).toEqual([9, 1])
    g.retract([9])
    expect(g.value()).toEqual([9, 1]) // one 9 is left
    g.retract([9], [1])
    expect(g.value()).toEqual([7, 5])
    g.add([3])
    g.retract([7])
    expect(g.value()).toEqual([5, 3])
    g.retract([5], [3])
    expect(g.value()).toEqual([null, null])
    g.add([4])
    expect(g.value()).toEqual([4, 4])
  })

  it('SUM and AVG go back to NULL when every value is retracted', () => {
    const g = group([aggCall('SUM', 0, T.double()), aggCall('AVG', 0, T.double()), aggCall('COUNT', null), aggCall('SUM', 1, T.decimal(10, 2))], true)
    g.add([0.1, 10n], [0.2, 20n], [null, null])
    expect(g.value()).toEqual([0.1 + 0.2, (0.1 + 0.2) / 2, 3, 30n])
    g.retract([0.1, 10n], [0.2, 20n])
    expect(g.value()).toEqual([null, null, 1, null])
    expect(g.rows()).toBe(1)
    g.add([0.5, 5n])
    expect(g.value()).toEqual([0.5, 0.5, 2, 5n]) // no residue from 0.1 + 0.2 - 0.1 - 0.2
  })

  it('keeps one MapState entry per distinct value', () => {
    const g = group([aggCall('COUNT', 0, T.int(), { distinct: true }), aggCall('SUM', 0, T.int(), { distinct: true }), aggCall('MAX', 0, T.int())], true)
    for (let i = 0; i < 100; i++) g.add([i % 10])
    expect(g.value()).toEqual([10, 45, 9])
    expect(g.handler.stateNames()).toEqual(['acc', 'values-0']) // the three calls share one map
    expect(g.state.stats().entries).toBe(10) // the accumulator itself is not stored by this test
  })

  it('ignores retractions of values it never saw until they are re-added', () => {
    const g = group([aggCall('COUNT', 0, T.int(), { distinct: true })], true)
    g.retract([1])
    expect(g.value()).toEqual([0])
    g.add([1])
    expect(g.value()).toEqual([0]) // the count of 1 is back to zero: 1 is not present
    g.add([1])
    expect(g.value()).toEqual([1])
  })

  it('refuses a retraction of insert-only MIN/MAX', () => {
    const g = group([aggCall('MIN', 0, T.int())], false)
    g.add([1])
    expect(() => g.retract([1])).toThrow(/insert-only/)
  })
})
