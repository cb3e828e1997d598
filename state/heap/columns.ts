// Checkpoint sections hold entries column-wise, one set of columns per state: the v8 serializer
// writes every property name of every object it meets, so an object per entry cost about twice the
// serialization time of a few arrays (q17's snapshots, bench/nexmark).
import type { Namespace } from '../../core/keyed-state.js'
import type { HeapEntry } from './entries.js'

/** The entries of one state: row i is (keys[i], ns[i], a[i], t[i]); `a`/`t` as HeapEntry has them per kind. */
export interface StateColumns {
  readonly state: string
  readonly kind: HeapEntry['kind']
  readonly keys: (readonly unknown[])[]
  readonly ns: Namespace[]
  /** value: the value; list: its values; map: its [key, value, time] entries. */
  readonly a: unknown[]
  /** value: the time; list: the times; map: unused (0). */
  readonly t: unknown[]
}

export function toColumns(entries: readonly HeapEntry[]): StateColumns[] {
  const byState = new Map<string, StateColumns>()
  for (const e of entries) {
    let c = byState.get(e.state)
    if (c === undefined) byState.set(e.state, c = { state: e.state, kind: e.kind, keys: [], ns: [], a: [], t: [] })
    c.keys.push(e.key)
    c.ns.push(e.ns)
    switch (e.kind) {
      case 'value':
        c.a.push(e.value)
        c.t.push(e.time)
        break
      case 'list':
        c.a.push(e.values)
        c.t.push(e.times)
        break
      case 'map':
        c.a.push(e.entries)
        c.t.push(0)
        break
    }
  }
  return [...byState.values()]
}

export function fromColumns(columns: readonly StateColumns[]): HeapEntry[] {
  const out: HeapEntry[] = []
  for (const c of columns) {
    for (let i = 0; i < c.keys.length; i++) {
      const base = { state: c.state, key: c.keys[i]!, ns: c.ns[i]! }
      switch (c.kind) {
        case 'value':
          out.push({ ...base, kind: 'value', value: c.a[i], time: c.t[i] as number })
          break
        case 'list':
          out.push({ ...base, kind: 'list', values: c.a[i] as unknown[], times: c.t[i] as number[] })
          break
        case 'map':
          out.push({ ...base, kind: 'map', entries: c.a[i] as [unknown, unknown, number][] })
          break
      }
    }
  }
  return out
}
