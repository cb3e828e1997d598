// STDDEV/VAR, FIRST_VALUE, LAST_VALUE and LISTAGG: result types, Flink's values on small inputs,
// retraction through the MapState sequences (duplicates, the current first/last retracted, back
// to empty), session merging of the statistics, and the errors for what Flink or Weir refuses.
import { describe, expect, it } from 'vitest'
import { aggregateResultType } from '../../expr/aggregate-types.js'
import { T } from '../../common/types.js'
import { AggregateHandler } from '../../operators/aggregates.js'
import { HeapKeyedStateBackend } from '../../state/heap/heap-backend.js'
import { makeKey } from '../../state/key-encoding.js'
import type { AggCall } from '../../core/aggregates.js'
import type { Row } from '../../core/batch.js'
import { aggCall } from './harness.js'
import { refusal } from '../planner/refused.js'
import { Session } from '../../engine/session.js'

function group(calls: AggCall[], retracting: boolean) {
  const state = new HeapKeyedStateBackend()
  const handler = new AggregateHandler(calls, { retracting })
  handler.open(state)
  state.setCurrentKey(makeKey(['g']))
  const acc = handler.createAccumulator()
  return {
    handler,
    acc,
    add: (...rows: Row[]) => rows.forEach(r => handler.accumulate(acc, r)),
    retract: (...rows: Row[]) => rows.forEach(r => handler.retract(acc, r)),
    value(): unknown[] {
      const out: unknown[] = []
      handler.getValue(acc, out, 0)
      return out
    },
  }
}

describe('result types (as Flink types them)', () => {
  it('STDDEV/VAR keep the argument type, DECIMAL(38, max(6, s)) for a DECIMAL', () => {
    expect(aggregateResultType('STDDEV_POP', T.int(false))).toEqual(T.int())
    expect(aggregateResultType('VAR_SAMP', T.bigint())).toEqual(T.bigint())
    expect(aggregateResultType('VAR_POP', T.double())).toEqual(T.double())
    expect(aggregateResultType('STDDEV_SAMP', T.decimal(10, 2))).toEqual(T.decimal(38, 6))
    expect(aggregateResultType('FIRST_VALUE', T.string(false))).toEqual(T.string())
    expect(aggregateResultType('LAST_VALUE', T.timestamp(3, false, 'rowtime'))).toEqual(T.timestamp(3))
    expect(aggregateResultType('LISTAGG', T.string(false))).toEqual(T.string())
  })
})

describe('statistical aggregates', () => {
  it('give Flink values: integer arithmetic for INT, NULL for no rows and for SAMP of one row', () => {
    const calls = [aggCall('VAR_POP', 0, T.int()), aggCall('VAR_SAMP', 0, T.int()), aggCall('STDDEV_POP', 0, T.int()), aggCall('STDDEV_SAMP', 0, T.int()),
      aggCall('STDDEV_SAMP', 1, T.double()), aggCall('VAR_POP', 2, T.decimal(10, 2))]
    const g = group(calls, false)
    expect(g.value()).toEqual([null, null, null, null, null, null])
    g.add([1, 1.5, 110n])
    expect(g.value()).toEqual([0, null, 0, null, null, 0n])
    g.add([2, 2.5, 220n], [4, 4, 440n], [null, null, null])
    // Σx = 7, Σx² = 21, n = 3: (21 − 49 / 3) / 3 = 5 / 3 = 1 and 5 / 2 = 2, in integers.
    expect(g.value().slice(0, 4)).toEqual([1, 2, 1, 1])
    expect(g.value()[4]).toBeCloseTo(1.2583057392117918, 14)
    // 1.10, 2.20, 4.40: variance 1.8822222… at scale 6.
    expect(g.value()[5]).toBe(1882222n)
  })

  it('retract exactly, and back to no rows is NULL', () => {
    const g = group([aggCall('VAR_SAMP', 0, T.double()), aggCall('STDDEV_POP', 1, T.bigint())], true)
    g.add([1e9 + 0.5, 10], [1e9 + 1.5, 20], [1e9 + 2.5, 30])
    // Values far from 0: the shifted sums keep the small variance exact.
    expect(g.value()).toEqual([1, 8])
    g.retract([1e9 + 2.5, 30])
    expect(g.value()).toEqual([0.5, 5])
    g.retract([1e9 + 0.5, 10], [1e9 + 1.5, 20])
    expect(g.value()).toEqual([null, null])
    g.add([3, 7])
    expect(g.value()).toEqual([null, 0])
  })

  it('merge session windows (re-shifting the DOUBLE sums)', () => {
    const calls = [aggCall('VAR_POP', 0, T.double()), aggCall('VAR_SAMP', 1, T.int())]
    const state = new HeapKeyedStateBackend()
    const handler = new AggregateHandler(calls, { retracting: false })
    handler.open(state)
    state.setCurrentKey(makeKey(['g']))
    const a = handler.createAccumulator(), b = handler.createAccumulator()
    for (const r of [[1, 1], [2, 2]]) handler.accumulate(a, r)
    for (const r of [[10, 3], [13, 4]]) handler.accumulate(b, r)
    handler.setNamespace(2)
    handler.accState.update(b)
    handler.mergeNamespace(a, 1, 2)
    const out: unknown[] = []
    handler.getValue(a, out, 0)
    // 1, 2, 10, 13: mean 6.5, Σ(x − 6.5)² = 105; 1..4 as INT: (30 − 100 / 4) / 3 = 1.
    expect(out).toEqual([105 / 4, 1])
  })
})

describe('FIRST_VALUE, LAST_VALUE, LISTAGG', () => {
  const calls = () => [aggCall('FIRST_VALUE', 0, T.string()), aggCall('LAST_VALUE', 0, T.string()), aggCall('LISTAGG', 0, T.string()), {
    ...aggCall('LISTAGG', 0, T.string()),
    separator: ' | ',
  }]

  it('skip NULLs and keep arrival order (insert-only)', () => {
    const g = group(calls(), false)
    expect(g.value()).toEqual([null, null, null, null])
    g.add([null], ['b'], ['a'], [null], ['b'])
    expect(g.value()).toEqual(['b', 'b', 'b,a,b', 'b | a | b'])
    expect(() => g.retract(['a'])).toThrow('FIRST_VALUE over an insert-only input received a retraction')
  })

  it('over a retracting input: a retraction removes the oldest position of its value', () => {
    const g = group(calls(), true)
    g.add(['a'], ['b'], ['a'], ['c'])
    expect(g.value()).toEqual(['a', 'c', 'a,b,a,c', 'a | b | a | c'])
    g.retract(['a']) // the first 'a'
    expect(g.value()).toEqual(['b', 'c', 'b,a,c', 'b | a | c'])
    g.retract(['c']) // the last
    expect(g.value()).toEqual(['b', 'a', 'b,a', 'b | a'])
    g.add(['d'])
    expect(g.value()).toEqual(['b', 'd', 'b,a,d', 'b | a | d'])
    g.retract(['x']) // never added (or expired): nothing changes
    g.retract(['b'], ['d'])
    expect(g.value()).toEqual(['a', 'a', 'a', 'a'])
    g.retract(['a'])
    expect(g.value()).toEqual([null, null, null, null])
    g.add(['e'])
    expect(g.value()).toEqual(['e', 'e', 'e', 'e'])
  })

  it('find the next first and last across long runs of retracted positions (probes, then a scan)', () => {
    const g = group(calls().slice(0, 2), true)
    const n = 200
    for (let i = 0; i < n; i++) g.add([`v${i}`])
    for (let i = 0; i < n - 1; i += 2) g.retract([`v${i}`])
    expect(g.value()).toEqual(['v1', `v${n - 1}`])
    for (let i = 1; i < 150; i += 2) g.retract([`v${i}`])
    for (let i = n - 1; i > 160; i -= 2) g.retract([`v${i}`])
    expect(g.value()).toEqual(['v151', 'v159'])
    g.handler.setNamespace('')
    expect(g.handler.stateNames()).toEqual(['acc', 'sequence-0-positions', 'sequence-0-ends'])
  })
})

describe('refused, with what and where', () => {
  const DDL = `CREATE TABLE t (k STRING, v INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'datagen');`

  it('STDDEV of a STRING, LISTAGG of an INT', async () => {
    let r = await refusal(`${DDL}\nSELECT k, STDDEV_POP(s) FROM t GROUP BY k`)
    expect(r.message).toBe('STDDEV_POP does not accept STRING')
    expect(r.at).toBe('STDDEV_POP(s)')
    expect(r.help).toContain('CAST the argument to a numeric type')
    r = await refusal(`${DDL}\nSELECT k, LISTAGG(v) FROM t GROUP BY k`)
    expect(r.message).toBe('LISTAGG does not accept INT')
    expect(r.help).toContain('CAST the argument to STRING')
  })

  it("LISTAGG's separator must be a literal; argument counts; *", async () => {
    let r = await refusal(`${DDL}\nSELECT k, LISTAGG(s, k) FROM t GROUP BY k`)
    expect(r.message).toBe("LISTAGG's separator must be a string literal")
    expect(r.at).toBe('k')
    r = await refusal(`${DDL}\nSELECT k, LISTAGG(s, ',', ';') FROM t GROUP BY k`)
    expect(r.message).toBe('LISTAGG takes one or two arguments, got 3')
    r = await refusal(`${DDL}\nSELECT k, VARIANCE(v, v) FROM t GROUP BY k`)
    expect(r.message).toBe('VARIANCE takes one argument, got 2')
    r = await refusal(`${DDL}\nSELECT k, STDDEV(*) FROM t GROUP BY k`)
    expect(r.message).toBe('STDDEV(*) is not valid')
  })

  it('FIRST_VALUE, LAST_VALUE and LISTAGG in a SESSION window', async () => {
    const r = await refusal(`${DDL}\nSELECT k, window_start, LISTAGG(s) FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND))
      GROUP BY k, window_start, window_end`)
    expect(r.message).toContain('LISTAGG is not supported in a SESSION window aggregate')
    expect(r.at).toBe('LISTAGG(s)')
  })
})

describe('EXPLAIN', () => {
  it("shows LISTAGG's separator and the sequences' MapStates over an updating input", async () => {
    const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(
      `CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'datagen');
      EXPLAIN SELECT n, LISTAGG(k, ';'), FIRST_VALUE(k), STDDEV_POP(n) FROM (SELECT k, COUNT(*) AS n FROM t GROUP BY k) GROUP BY n`,
    )
    const r = results.at(-1)!
    if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
    expect(r.text).toContain("LISTAGG(k, ';') AS EXPR$1, FIRST_VALUE(k) AS EXPR$2, STDDEV_POP(n) AS EXPR$3")
    expect(r.text).toContain('MapState<position, k> and MapState<k, positions> for LISTAGG, FIRST_VALUE;')
  })
})
