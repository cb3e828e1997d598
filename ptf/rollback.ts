// With 'weir.process-function.on-error' = 'skip', a handler that throws leaves nothing behind: each
// state write of the call is journaled (the value it replaced, copied) and undone in reverse when it
// throws; its timer registrations and deletions wait until it returns and are dropped when it throws
// (a handler cannot see timers, so waiting changes nothing it observes). Its emitted rows are taken
// back by the operator. So a skipped row or timer is as if it never came. Reads are journaled as
// writes are: on heap a read gives the stored object itself, which the handler may change in place
// (a value read through entries() and changed in place is not restored).
import type { Timers } from './api.js'

type Undo = () => void

interface Handles {
  value(): unknown
  update(v: unknown): void
  clear(): void
  get(k?: unknown): unknown
  add(v: unknown): void
  put(k: unknown, v: unknown): void
  remove(k: unknown): void
  contains(k: unknown): boolean
  entries(): IterableIterator<[unknown, unknown]>
}

/** The undo steps and pending timer operations of the handler call running now. */
export class HandlerJournal {
  private readonly undo: Undo[] = []
  private readonly timerOps: (() => void)[] = []

  /** The call returned: its timer operations take effect, its state writes stay. */
  commit(): void {
    for (const op of this.timerOps) op()
    this.timerOps.length = 0
    this.undo.length = 0
  }

  /** The call threw: its state writes are undone, newest first, and its timer operations dropped. */
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]!()
    this.undo.length = 0
    this.timerOps.length = 0
  }

  /** Timers whose operations wait for the call to return. */
  timers(inner: Timers): Timers {
    const ops = this.timerOps
    return {
      registerEventTime: ts => void ops.push(() => inner.registerEventTime(ts)),
      registerProcessingTime: ts => void ops.push(() => inner.registerProcessingTime(ts)),
      deleteEventTime: ts => void ops.push(() => inner.deleteEventTime(ts)),
      deleteProcessingTime: ts => void ops.push(() => inner.deleteProcessingTime(ts)),
    }
  }

  /** A state handle whose writes are journaled; reads pass through. */
  handle(kind: 'value' | 'list' | 'map', h: unknown): unknown {
    const s = h as Handles
    const undo = this.undo
    if (kind === 'value') {
      const saved = (): void => {
        const old = copy(s.value())
        undo.push(old === undefined ? () => s.clear() : () => s.update(old))
      }
      // A read is journaled too: on heap the handler gets the stored object, and may change it before update().
      return { value: () => (saved(), s.value()), update: (v: unknown) => (saved(), s.update(v)), clear: () => (saved(), s.clear()) }
    }
    if (kind === 'list') {
      const l = h as Handles & { update(v: readonly unknown[]): void }
      const saved = (): void => {
        const old = copy(l.get()) as unknown[]
        undo.push(old.length === 0 ? () => l.clear() : () => l.update(old))
      }
      return {
        get: () => (saved(), l.get()),
        add: (v: unknown) => (saved(), l.add(v)),
        update: (v: readonly unknown[]) => (saved(), l.update(v)),
        clear: () => (saved(), l.clear()),
      }
    }
    const m = h as Handles & { keys(): IterableIterator<unknown>; isEmpty(): boolean; size(): number }
    const savedEntry = (k: unknown): void => {
      const had = m.contains(k)
      const old = had ? copy(m.get(k)) : undefined
      undo.push(had ? () => m.put(k, old) : () => m.remove(k))
    }
    return {
      get: (k: unknown) => (savedEntry(k), m.get(k)),
      contains: (k: unknown) => m.contains(k),
      entries: () => m.entries(),
      keys: () => m.keys(),
      isEmpty: () => m.isEmpty(),
      size: () => m.size(),
      put: (k: unknown, v: unknown) => (savedEntry(k), m.put(k, v)),
      remove: (k: unknown) => (savedEntry(k), m.remove(k)),
      clear: () => {
        const old = [...m.entries()].map(([k, v]) => [k, copy(v)] as const)
        undo.push(() => {
          m.clear()
          for (const [k, v] of old) m.put(k, v)
        })
        m.clear()
      },
    }
  }
}

/** A copy the handler cannot reach: it may mutate the object it read after writing it. */
function copy<T>(v: T): T {
  return v === null || typeof v !== 'object' ? v : structuredClone(v)
}
