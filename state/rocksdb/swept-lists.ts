// Which lists a TTL sweep call emptied on disk. A list counts once in the live-entry count however
// many elements it has, so the sweep, deleting the expired elements of a list that is not in the
// cache, must know whether any element is left. Elements of one list are adjacent in key order: a run
// of them the sweep's iterator saw with other keys on both sides is the whole list; only a run at an
// edge of what one call examined can have more elements beyond it, and for those (at most two per
// iterator pass) one bounded seek after the deletes tells.
import { elementPrefixLength, prefixEnd, startsWithAt } from './codec.js'
import type { RocksStore } from './store.js'
import type { Table } from './cache.js'

/** The elements of one list the sweep examined one after another. */
export class ListRun {
  /** Every element seen was expired. */
  expiredOnly = true
  /** The run touches an edge of an iterator pass: the list may have elements the pass did not see. */
  open: boolean
  /** The sweep deleted this run's expired elements as not resident (the cache did not account for them). */
  deleted = false

  constructor(readonly table: Table, readonly prefix: Buffer, open: boolean) {
    this.open = open
  }
}

export class SweptLists {
  private readonly runs: ListRun[] = []
  private current: ListRun | null = null
  private atStart = true

  /** An iterator pass begins: a run of its first keys may continue before them. */
  beginPass(): void {
    this.current = null
    this.atStart = true
  }

  /** An iterator pass ended: its last run may continue after it. */
  endPass(): void {
    if (this.current !== null) this.current.open = true
    this.current = null
  }

  /** An examined entry that is not a list element of a table with TTL. */
  other(): void {
    this.current = null
    this.atStart = false
  }

  /** An examined element of a list of a table with TTL; returns its run. */
  element(table: Table, key: Buffer, expired: boolean): ListRun {
    let run = this.current
    const prefixLength = elementPrefixLength(key)
    if (run === null || run.table !== table || run.prefix.length !== prefixLength || !startsWithAt(key, run.prefix, 0)) {
      run = new ListRun(table, Buffer.from(key.subarray(0, prefixLength)), this.atStart)
      this.current = run
      this.runs.push(run)
    }
    this.atStart = false
    if (!expired) run.expiredOnly = false
    return run
  }

  /**
   * After the sweep's deletes were written: how many lists it emptied that the live-entry count still
   * holds. A whole run, all expired, that the sweep deleted is an emptied list; an open one is if no
   * element is left under its prefix (one seek each, concurrently, for at most a few lists a call).
   */
  async emptied(store: RocksStore): Promise<number> {
    let n = 0
    const seeks = new Map<string, Buffer>()
    for (const run of this.runs) {
      if (!run.deleted || !run.expiredOnly) continue
      if (!run.open) n++
      else seeks.set(run.prefix.toString('latin1'), run.prefix)
    }
    // Two open runs of one list (a pass that wrapped around to where it began): one seek.
    for (const run of this.runs) {
      if (run.open && !(run.deleted && run.expiredOnly)) seeks.delete(run.prefix.toString('latin1'))
    }
    const left = await Promise.all([...seeks.values()].map(prefix => anyUnder(store, prefix)))
    for (const any of left) if (!any) n++
    return n
  }
}

/** Whether any entry is stored under `prefix`. */
async function anyUnder(store: RocksStore, prefix: Buffer): Promise<boolean> {
  let any = false
  for await (const _ of store.db.iterator({ gte: prefix, lt: prefixEnd(prefix) }, { limit: 1, capacity: 1 })) any = true
  return any
}
