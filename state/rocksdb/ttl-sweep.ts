// The RocksDB backend's TTL sweep. RocksDB here has no compaction filter, so expired entries stay
// on disk (hidden from reads) until this sweep deletes them: one resumable iterator laps the
// subtask's key groups a budget at a time, and a lap that deleted much compacts its range.
import type { Namespace } from '../../core/keyed-state.js'
import { ABSENT, type Cell, CELL_OVERHEAD, explicitSeqs, implicitSeqs, indexOfSeq, type Table, timesOf } from './cache.js'
import { decodeEncoded, decodeEntryKey, decodeUserKey, entryTime, groupPrefix, readSeq, readUtf16be, skipEncoded, startsWithAt } from './codec.js'
import { ioFailed } from './folder.js'
import { mapKeyOf } from '../map-state.js'
import { NativeWriteBatch } from './native-batch.js'
import type { RocksStore } from './store.js'
import { type ListRun, SweptLists } from './swept-lists.js'
import { SCAN_CAPACITY } from './tables.js'
import type { WriteBack } from './write-back.js'

/** A sweep lap that deleted at least 1/COMPACT_AFTER_DELETED of the entries it examined compacts them away. */
const COMPACT_AFTER_DELETED = 4
/** ... and examined at most this many (about 50 MB). */
const COMPACT_MAX_ENTRIES = 1_000_000
const NO_KEY = Symbol('no key')

export class TtlSweep {
  /** The last key the sweep examined (null: start over), and what the current lap examined and deleted. */
  private sweep: { after: Buffer | null; examined: number; deleted: number } = { after: null, examined: 0, deleted: 0 }
  /** A compaction of this subtask's key groups after a sweep lap, while it runs (it never rejects: failures go to the store's `failure`). */
  private compacting: Promise<void> | null = null
  /** Bytes written (puts, and deletes of the sweep) up to the last of those compactions. */
  private compactedAt = 0
  private sweptBytes = 0

  constructor(private readonly store: RocksStore, private readonly writeBack: WriteBack) {}

  /**
   * Deletes expired entries from disk. One resumable iterator sweeps this subtask's key groups in
   * order, carrying on from where the last call stopped, and examines at most `budget` entries
   * (entries of states without TTL count too); without a budget it makes one full pass. Flushes
   * first: an expired entry in a clean resident cell goes from the cache too, and an entry whose
   * cell is still dirty (rewritten, or held by deferred write-back) is left for a later pass.
   * Returns how many entries it deleted.
   */
  async cleanupExpired(budget = Number.POSITIVE_INFINITY): Promise<number> {
    this.store.checkUsable()
    if (!this.store.tables.list.some(t => t.ttlMs > 0) || !(budget > 0)) return 0
    // Whatever flush leaves dirty (deferred write-back) the sweep leaves alone.
    await this.writeBack.flush()
    await this.writeBack.settle()
    const { start, end } = this.store.keyGroupRange
    const now = this.store.ttlNow
    const sw = this.sweep
    const origin = sw.after
    const doomed: { table: Table; key: Buffer; value: Buffer; run: ListRun | null }[] = []
    const lists = new SweptLists()
    let spent = 0
    let wrapped = false
    let lapEnded = false
    try {
      while (spent < budget) {
        // From where the last call stopped to the end, then (one full pass at most) from the start back to there.
        const lower = sw.after === null ? { gte: groupPrefix(start) } : { gt: sw.after }
        const upper = wrapped && origin !== null ? { lte: origin } : { lt: groupPrefix(end + 1) }
        const limit = budget - spent
        let n = 0
        lists.beginPass()
        for await (const { key, value } of this.store.db.iterator({ ...lower, ...upper }, { limit, capacity: Math.min(SCAN_CAPACITY, limit) })) {
          n++
          sw.after = key
          const table = this.store.tables.byId[key.readUInt16BE(2)]
          if (table === undefined || table.ttlMs === 0) {
            lists.other()
            continue
          }
          const t = entryTime(value)
          const expired = t !== null && t + table.ttlMs <= now
          const run = table.kind === 'list' ? lists.element(table, key, expired) : null
          if (run === null) lists.other()
          if (expired) doomed.push({ table, key, value, run })
        }
        lists.endPass()
        spent += n
        if (n === limit) break
        if (wrapped) break
        sw.after = null
        lapEnded = true
        if (origin === null) break
        wrapped = true
      }
    } catch (e) {
      throw ioFailed(this.store.dir, e, 'reading')
    }
    sw.examined += spent
    if (doomed.length === 0) {
      if (lapEnded) this.endLap()
      return 0
    }
    // Decided now, right before the write, against the cache as it is.
    const w = new NativeWriteBatch(this.store.db)
    let removed = 0
    try {
      for (const { table, key, value, run } of doomed) {
        const cell = this.residentCell(table, key)
        if (cell === undefined) {
          // A list leaves the count with its last element (see SweptLists), once the deletes are written.
          if (run === null) this.store.liveEntries--
          else run.deleted = true
        } else if (cell.dirty || cell.loading || !this.expireResident(cell, key, value, now)) {
          continue
        }
        w.delete(key)
        this.sweptBytes += key.length
        removed++
      }
      await w.apply()
    } catch (e) {
      throw ioFailed(this.store.dir, e, 'writing')
    }
    try {
      this.store.liveEntries -= await lists.emptied(this.store)
    } catch (e) {
      throw ioFailed(this.store.dir, e, 'reading')
    }
    sw.deleted += removed
    if (lapEnded) this.endLap()
    return removed
  }

  /**
   * After a sweep lap that deleted a good share of what it examined, compacts this subtask's key
   * groups in the background. RocksDB drops a deleted entry's bytes only when a compaction takes its
   * tombstone down to the entry; left to its own triggers (level sizes, 4 files in level 0) a small
   * state under a steady stream of expiring keys keeps several memtables of dead entries on disk.
   * At most once per half a memtable of writes: a manual compaction flushes the memtable first, and
   * every flush and compaction adds to RocksDB's LOG and MANIFEST files. A large state is left to
   * RocksDB: there dead entries are a small share, and a manual compaction of it would hold up
   * RocksDB's other background work (and a checkpoint's pause) for long.
   */
  private endLap(): void {
    const sw = this.sweep
    const written = this.store.bytesWritten + this.sweptBytes
    const worth = sw.deleted > 0 && sw.deleted * COMPACT_AFTER_DELETED >= sw.examined && sw.examined <= COMPACT_MAX_ENTRIES &&
      written - this.compactedAt >= this.store.writeBufferBytes / 2
    sw.examined = 0
    sw.deleted = 0
    if (!worth || this.compacting !== null) return
    this.compactedAt = written
    const { start, end } = this.store.keyGroupRange
    const done: Promise<void> = this.store.db.compactRange(groupPrefix(start), groupPrefix(end + 1)).then(
      () => {
        if (this.compacting === done) this.compacting = null
      },
      (e: unknown) => {
        this.store.failure ??= ioFailed(this.store.dir, e, 'writing')
        if (this.compacting === done) this.compacting = null
      },
    )
    this.compacting = done
  }

  /**
   * Takes an expired disk entry out of its clean resident cell. Returns false (keep it on disk) when
   * the cache has it unexpired, which a clean cell only has if the clock went back.
   */
  private expireResident(cell: Cell, key: Buffer, value: Buffer, now: number): boolean {
    const table = cell.slot.table
    table.invalidate()
    switch (cell.kind) {
      case 'value':
        if (cell.v !== ABSENT) {
          if (!table.expired(cell.t, now)) return false
          cell.v = ABSENT
          this.store.liveEntries--
        }
        cell.onDisk = false
        this.store.setCellSize(cell, CELL_OVERHEAD + cell.keyLength)
        return true
      case 'list': {
        const i = indexOfSeq(cell, readSeq(key, cell.keyLength))
        if (i < 0) return true
        if (!table.expired(timesOf(cell, now)[i]!, now)) return false
        const per = (cell.size - CELL_OVERHEAD - cell.keyLength) / cell.items.length
        // The sequence numbers first: explicit ones are made from the implicit numbering, which needs the length before.
        explicitSeqs(cell).splice(i, 1)
        cell.items.splice(i, 1)
        timesOf(cell, now).splice(i, 1)
        implicitSeqs(cell)
        if (i < cell.flushed) cell.flushed--
        if (cell.items.length === 0) this.store.liveEntries--
        this.store.setCellSize(cell, Math.max(CELL_OVERHEAD + cell.keyLength, cell.size - per))
        return true
      }
      case 'map': {
        let k = decodeEntryKey(value, NO_KEY)
        if (k === NO_KEY) k = decodeUserKey(readUtf16be(key, cell.keyLength, key.length))
        const e = cell.m.get(mapKeyOf(k))
        if (e === undefined) return true
        if (!table.expired(e.t, now)) return false
        cell.m.delete(e.mk)
        this.store.liveEntries--
        this.store.setCellSize(cell, cell.size - e.size)
        return true
      }
    }
  }

  /** The resident cell of a stored key's (key, namespace) in `table`, if any. */
  private residentCell(table: Table, key: Buffer): Cell | undefined {
    if (table.slots.size === 0) return undefined
    const s = readUtf16be(key, 4, key.length - (key.length % 2))
    try {
      // The key's arity is not stored: try each value boundary (keys of one operator share an arity).
      for (let i = 0; i < s.length;) {
        i = skipEncoded(s, i)
        const slot = table.slots.get(s.slice(0, i))
        if (slot === undefined) continue
        if (i >= s.length) return undefined
        const cell = slot.get(decodeEncoded(s, i) as Namespace)
        // The namespace must be followed by exactly what the kind stores after it.
        if (cell !== undefined && startsWithAt(key, cell.key, 0)) return cell
        return undefined
      }
    } catch {
      // Ran into a list sequence number or a user key: no resident slot matched.
    }
    return undefined
  }

  /** Waits for a compaction the sweep started (before the database closes). */
  async settle(): Promise<void> {
    if (this.compacting !== null) await this.compacting
  }
}
