// Moving key groups in and out of a RocksDB backend: export of a range to a key-group file and
// import from such files (any parallelism), copying a range straight from another database (a
// restore into another parallelism), and deleting the key groups a subtask does not own.
import { readdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import type { Table } from './cache.js'
import { cellPrefixLength, elementPrefixLength, entryTime, groupPrefix, META_GROUP, readSeq } from './codec.js'
import { countEntries } from './diagnostics.js'
import { ioFailed, makeDirs } from './folder.js'
import type { KeyBloom } from './key-bloom.js'
import { KeyGroupFileWriter, keyGroupFileHeader, openKeyGroupFile, type SnapshotState } from './key-group-file.js'
import { NativeWriteBatch } from './native-batch.js'
import type { RocksStore } from './store.js'
import { SCAN_CAPACITY } from './tables.js'
import type { WriteBack } from './write-back.js'

/** Puts per write batch when restoring a snapshot. */
const RESTORE_BATCH = 4096

/** Where a key-group snapshot went. */
export interface KeyGroupSnapshot {
  readonly files: string[]
  /** Stored entries written (one per value, map entry and list element). */
  readonly entries: number
}

/** Another backend's database, to copy key groups from. */
export interface SourceDatabase {
  readonly store: RocksStore
  /** Writes what its cache holds, so that its disk has all of its state. */
  sync(): Promise<void>
}

export class KeyGroupTransfer {
  constructor(private readonly store: RocksStore, private readonly writeBack: WriteBack) {}

  /**
   * Writes every live entry of the key groups in `range` (within this subtask's) into one file in
   * `folder`, after flushing. Restore it with `restoreKeyGroups` into a backend of the same max-parallelism.
   */
  async snapshot(range: { readonly start: number; readonly end: number }, folder: string): Promise<KeyGroupSnapshot> {
    await this.writeBack.sync()
    const start = Math.max(range.start, this.store.keyGroupRange.start)
    const end = Math.min(range.end, this.store.keyGroupRange.end)
    await makeDirs(resolve(folder)).catch((e: unknown) => {
      throw ioFailed(folder, e, 'writing')
    })
    const path = join(resolve(folder), `key-groups-${range.start}-${range.end}.wkg`)
    const states: SnapshotState[] = this.store.tables.list.map(t => ({ name: t.name, id: t.id, kind: t.kind }))
    const writer = await KeyGroupFileWriter.create(path, keyGroupFileHeader(this.store.maxParallelism, { start, end }, states))
    const now = this.store.ttlNow
    try {
      if (start <= end) {
        for await (const { key, value } of this.store.db.iterator({ gte: groupPrefix(start), lt: groupPrefix(end + 1) }, { capacity: SCAN_CAPACITY })) {
          const table = this.store.tables.byId[key.readUInt16BE(2)]
          if (table === undefined) continue
          const t = entryTime(value)
          if (t !== null && table.expired(t, now)) continue
          await writer.add(key, value)
        }
      }
      await writer.finish()
    } catch (e) {
      await writer.abort()
      throw ioFailed(folder, e, 'writing')
    }
    return { files: [path], entries: writer.count }
  }

  /**
   * Loads the key-group files in `folder` (written by snapshotKeyGroups, from any subtask), keeping
   * only key groups this backend owns; states are matched by name. Meant for a fresh backend: the
   * cache is dropped and `stats().entries` recounted.
   */
  async restore(folder: string): Promise<number> {
    await this.writeBack.sync()
    let names: string[]
    try {
      names = (await readdir(folder)).filter(n => n.endsWith('.wkg')).sort()
    } catch (e) {
      throw WeirError.execution(`cannot restore state from '${folder}': ${(e as Error).message}`, { help: 'check the checkpoint folder', cause: e })
    }
    const { start, end } = this.store.keyGroupRange
    let restored = 0
    for (const name of names) {
      const file = await openKeyGroupFile(join(folder, name))
      const header = file.header
      if (header.maxParallelism !== this.store.maxParallelism) {
        await file.close()
        throw WeirError.execution(`state was written with max-parallelism ${header.maxParallelism}, but this job uses ${this.store.maxParallelism}`, {
          help: 'restore with the same max-parallelism the checkpoint was taken with',
        })
      }
      const ids = new Map<number, number>()
      for (const s of header.states) ids.set(s.id, this.store.tables.table(s.name, s.kind).id)
      try {
        restored += await this.bulkPut(file.records(), key => {
          const group = key.readUInt16BE(0)
          const id = ids.get(key.readUInt16BE(2))
          if (group < start || group > end || id === undefined) return false
          key.writeUInt16BE(id, 2)
          // A key-group file carries no listSeq: one past each element's sequence number makes it.
          if (this.store.tables.byId[id]?.kind === 'list') this.store.tables.raiseListSeq(readSeq(key, elementPrefixLength(key)) + 1)
          return true
        })
      } finally {
        await file.close()
      }
    }
    this.store.dropCache(() => true)
    await countEntries(this.store, this.writeBack)
    return restored
  }

  /** Deletes all state of one key group (after flushing), on disk and in the cache. */
  async clear(group: number): Promise<void> {
    await this.writeBack.sync()
    this.store.dropCache(slot => slot.group === group)
    const w = new NativeWriteBatch(this.store.db)
    w.deleteRange(groupPrefix(group), groupPrefix(group + 1))
    try {
      await w.apply()
    } catch (e) {
      throw ioFailed(this.store.dir, e, 'writing')
    }
    await countEntries(this.store, this.writeBack)
  }

  /**
   * Deletes every stored entry of key groups outside this subtask's range: what a database restored
   * from the files of another parallelism holds besides its own groups (range deletes; the bytes go
   * at compaction). Call countEntries() afterwards for exact stats.
   */
  async dropForeign(): Promise<void> {
    await this.writeBack.sync()
    const { start, end } = this.store.keyGroupRange
    const w = new NativeWriteBatch(this.store.db)
    if (start > 0) w.deleteRange(groupPrefix(0), groupPrefix(start))
    w.deleteRange(groupPrefix(end + 1), groupPrefix(META_GROUP))
    try {
      await w.apply()
    } catch (e) {
      throw ioFailed(this.store.dir, e, 'writing')
    }
  }

  /**
   * Copies every stored entry of `source`'s key groups in `range` that this subtask owns into this
   * database, states matched by name (their ids may differ), and adds them to `stats().entries`.
   * For a restore into another parallelism: no intermediate file and no recount, unlike
   * snapshotKeyGroups → restoreKeyGroups. Expired entries are copied too (reads hide them as
   * before). Returns the stored entries copied.
   */
  async copyFrom(source: SourceDatabase, range: { readonly start: number; readonly end: number }): Promise<number> {
    await this.writeBack.sync()
    await source.sync()
    const start = Math.max(range.start, this.store.keyGroupRange.start, source.store.keyGroupRange.start)
    const end = Math.min(range.end, this.store.keyGroupRange.end, source.store.keyGroupRange.end)
    if (start > end) return 0
    const ids = new Map<number, Table>()
    for (const t of source.store.tables.list) ids.set(t.id, this.store.tables.table(t.name, t.kind))
    this.store.tables.raiseListSeq(source.store.tables.listSeq)
    let live = 0
    let lastList: Buffer | null = null
    const entries = source.store.db.iterator({ gte: groupPrefix(start), lt: groupPrefix(end + 1) }, { capacity: SCAN_CAPACITY })
    const copied = await this.bulkPut(entries, key => {
      const table = ids.get(key.readUInt16BE(2))
      if (table === undefined) return false
      key.writeUInt16BE(table.id, 2)
      if (table.kind !== 'list') live++
      else {
        // A list counts once: its elements share the key up to the sequence number. One past each copied
        // number goes into listSeq too (the source's own is taken as well: it may hold more).
        const n = elementPrefixLength(key)
        this.store.tables.raiseListSeq(readSeq(key, n) + 1)
        const prefix = key.subarray(0, n)
        if (lastList === null || !lastList.equals(prefix)) live++
        lastList = prefix
      }
      return true
    })
    this.store.dropCache(slot => slot.group >= start && slot.group <= end)
    this.store.liveEntries += live
    return copied
  }

  /**
   * A copied entry's key, and for a list element or a map entry its (key, namespace) prefix too: a
   * prefetch scans only the prefixes the filter has seen. A key that does not parse leaves its state
   * scanned always (Table.unfiltered).
   */
  private addToFilter(bloom: KeyBloom, key: Buffer): void {
    bloom.add(key)
    const table = this.store.tables.byId[key.readUInt16BE(2)]
    if (table === undefined || table.kind === 'value' || table.unfiltered) return
    const n = cellPrefixLength(key, table.kind)
    if (n < 0) table.unfiltered = true
    else bloom.add(key, n)
  }

  /**
   * Bulk load: writes the entries `keep` accepts (it may rewrite the key in place, e.g. to this
   * database's state id) in write batches of RESTORE_BATCH, after any pending state metadata.
   * Returns how many it wrote.
   */
  private async bulkPut(entries: AsyncIterable<{ readonly key: Buffer; readonly value: Buffer }>, keep: (key: Buffer) => boolean): Promise<number> {
    const w = new NativeWriteBatch(this.store.db)
    let written = 0
    // Lists written elsewhere may have gaps in their sequence numbers (TTL): they are scanned from now on.
    this.store.imported = true
    try {
      for (const [k, v] of this.store.tables.pendingMeta) w.put(k, v)
      this.store.tables.pendingMeta = []
      for await (const { key, value } of entries) {
        if (!keep(key)) continue
        w.put(key, value)
        if (this.store.bloom !== null) this.addToFilter(this.store.bloom, key)
        this.store.bytesWritten += key.length + value.length
        written++
        if (w.length >= RESTORE_BATCH) await w.apply()
      }
      // Raised past what came in (copyFrom, restore): into the database with it.
      this.store.tables.putListSeq(w)
      await w.apply()
    } catch (e) {
      throw ioFailed(this.store.dir, e, 'writing')
    }
    return written
  }
}
