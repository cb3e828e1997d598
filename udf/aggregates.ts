// User-defined aggregates inside an AggregateHandler (operators/aggregates.ts): each call keeps its
// accumulator — the function's own JSON-compatible value — in one slot of the handler's accumulator
// array, so it lives in the same keyed ValueState on either backend and is checkpointed with it.
import { WeirError } from '../common/errors.js'
import type { AggCall } from '../core/aggregates.js'
import type { Row } from '../core/batch.js'
import type { AggregateFunction } from './api.js'
import { callFailed, countSkip, engineValue } from './calls.js'
import { loadedAggregate } from './load.js'

interface Entry {
  readonly call: AggCall
  readonly def: AggregateFunction
  readonly index: number
  readonly slot: number
  readonly args: readonly number[]
  readonly filter: number
  readonly strict: boolean
  /** DISTINCT: fed by `transition` with each distinct value (a ROW of the arguments when there are several), not by rows. */
  readonly distinct: boolean
}

/** Whether a call is a user-defined aggregate. */
export const isUserAggregate = (call: AggCall): boolean => call.user !== undefined

/** The user aggregate calls of one handler; one slot each (null until the group's first row). */
export class UserAggregates {
  private readonly entries: Entry[]

  constructor(calls: readonly { call: AggCall; index: number; slot: number }[], retracting: boolean) {
    this.entries = calls.map(({ call, index, slot }) => {
      const def = loadedAggregate(call.user!)
      // The planner refuses this (lower.ts); the module may have lost its retract since the job was planned.
      if (retracting && typeof def.retract !== 'function') {
        throw WeirError.execution(`the user aggregate '${call.user!.name}' defines no retract, but its input is updating`, {
          help: `add retract(acc, …args) to ${call.user!.module}, then plan the job again`,
        })
      }
      return { call, def, index, slot, args: call.args ?? [], filter: call.filter ?? -1, strict: def.nulls !== 'call', distinct: call.distinct }
    })
  }

  accumulate(acc: unknown[], row: Row): void {
    for (const e of this.entries) if (!e.distinct) this.apply(e, acc, row, 'accumulate')
  }

  retract(acc: unknown[], row: Row): void {
    for (const e of this.entries) if (!e.distinct) this.apply(e, acc, row, 'retract')
  }

  /**
   * The non-NULL value `v` of the distinct column `arg` (under FILTER `filter`) appeared in its group (+1:
   * accumulate) or left it (-1: retract), as Flink feeds a DISTINCT aggregate from its distinct MapView.
   */
  transition(acc: unknown[], arg: number, filter: number, v: unknown, sign: 1 | -1): void {
    for (const e of this.entries) {
      if (!e.distinct || e.call.arg !== arg || e.filter !== filter) continue
      this.applyArgs(e, acc, e.args.length > 1 ? [...(v as readonly unknown[])] : [v], sign > 0 ? 'accumulate' : 'retract')
    }
  }

  private apply(e: Entry, acc: unknown[], row: Row, what: 'accumulate' | 'retract'): void {
    if (e.filter >= 0 && row[e.filter] !== true) return
    this.applyArgs(e, acc, e.args.map(c => row[c]), what)
  }

  private applyArgs(e: Entry, acc: unknown[], args: unknown[], what: 'accumulate' | 'retract'): void {
    if (e.strict && args.some(a => a === null || a === undefined)) return
    const before = acc[e.slot] ?? null
    try {
      const state = before ?? e.def.create()
      const next = e.def[what]!(state, ...args)
      acc[e.slot] = next === undefined ? state : next
    } catch (err) {
      this.failed(e, what, args, err)
      acc[e.slot] = before
    }
  }

  /** Writes each call's result into `out[offset + index]`. */
  getValue(acc: unknown[], out: unknown[], offset: number): void {
    for (const e of this.entries) {
      const name = e.call.user!.name
      let v: unknown = null
      try {
        v = engineValue(e.def.getValue(acc[e.slot] ?? e.def.create()), e.def.returns, name, [])
      } catch (err) {
        this.failed(e, 'getValue', [], err)
      }
      out[offset + e.index] = v
    }
  }

  /** Folds the accumulators of `source` into `target` (SESSION windows merging). */
  mergePlain(target: unknown[], source: unknown[]): void {
    for (const e of this.entries) {
      // A DISTINCT call's accumulator is rebuilt from the merged value counts (their transitions), not merged.
      if (e.distinct) continue
      const from = source[e.slot] ?? null
      if (from === null) continue
      const into = target[e.slot] ?? null
      if (into === null) {
        target[e.slot] = from
        continue
      }
      if (typeof e.def.merge !== 'function') {
        throw WeirError.unsupported(`the user aggregate '${e.call.user!.name}' defines no merge, which SESSION windows need when they merge`, {
          help: `add merge(acc, other) to ${e.call.user!.module}, or use a TUMBLE, HOP or CUMULATE window`,
        })
      }
      try {
        const next = e.def.merge(into, from)
        target[e.slot] = next === undefined ? into : next
      } catch (err) {
        this.failed(e, 'merge', [], err)
      }
    }
  }

  private failed(e: Entry, what: string, args: readonly unknown[], err: unknown): void {
    const error = err instanceof WeirError ? err : callFailed(e.call.user!.name, what, args, err)
    if (!e.call.user!.skip) throw error
    countSkip(e.call.user!.name, error)
  }
}
