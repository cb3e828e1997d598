// A running SELECT's result as the REPL keeps it: retractions applied in table mode, an updated row
// kept in its place, changes as they came in changelog mode, and the max-rows cap.
import { describe, expect, it } from 'vitest'
import { LiveResult } from '../../../cli/repl/live-result.js'
import { RowKind, type Batch, type Field } from '../../../index.js'
import { T } from '../../../common/types.js'

const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.bigint() }]
const batch = (...changes: [number, string, number][]): Batch => ({
  rows: changes.map(([, k, n]) => [k, BigInt(n)]),
  kinds: Uint8Array.from(changes.map(([kind]) => kind)),
})
const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = RowKind

describe('LiveResult', () => {
  it('applies retractions in table mode, an update staying where its row was', () => {
    const r = new LiveResult(schema, 'table', 100)
    r.apply(batch([I, 'a', 1], [I, 'b', 1], [I, 'c', 1]))
    r.apply(batch([UB, 'a', 1], [UA, 'a', 2], [D, 'b', 1], [UB, 'c', 1], [UA, 'c', 5]))
    expect(r.rows(0, 10)).toEqual([['a', '2'], ['c', '5']])
    expect(r.size).toBe(2)
    expect(r.changes).toBe(8)
    expect(r.rows(1, 1)).toEqual([['c', '5']])
  })

  it('removes one of two equal rows for one retraction', () => {
    const r = new LiveResult(schema, 'table', 100)
    r.apply(batch([I, 'a', 1], [I, 'a', 1], [D, 'a', 1]))
    expect(r.rows(0, 10)).toEqual([['a', '1']])
  })

  it('keeps every change with its op in changelog mode', () => {
    const r = new LiveResult(schema, 'changelog', 100)
    r.apply(batch([I, 'a', 1], [UB, 'a', 1], [UA, 'a', 2]))
    expect(r.columns).toEqual(['op', 'k', 'n'])
    expect(r.rows(0, 10)).toEqual([['+I', 'a', '1'], ['-U', 'a', '1'], ['+U', 'a', '2']])
  })

  it('drops the oldest rows beyond max-rows and says it did', () => {
    const r = new LiveResult(schema, 'table', 3)
    r.apply(batch(...Array.from({ length: 5 }, (_, i): [number, string, number] => [I, `k${i}`, i])))
    expect(r.capped).toBe(true)
    expect(r.rows(0, 10).map(x => x[0])).toEqual(['k2', 'k3', 'k4'])
    // A retraction of a dropped row finds nothing to remove.
    r.apply(batch([D, 'k0', 0], [D, 'k3', 3]))
    expect(r.rows(0, 10).map(x => x[0])).toEqual(['k2', 'k4'])
  })

  it('stays right after compacting the slots of many retractions', () => {
    const r = new LiveResult(schema, 'table', 10_000)
    for (let i = 0; i < 3000; i++) r.apply(batch([I, `k${i % 7}`, i], ...(i > 0 ? [[D, `k${(i - 1) % 7}`, i - 1] as [number, string, number]] : [])))
    expect(r.rows(0, 10)).toEqual([[`k${2999 % 7}`, '2999']])
  })
})
