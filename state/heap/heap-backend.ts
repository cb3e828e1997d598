// The heap keyed-state backend: every state is a Map from the key's encoded string to a slot holding
// that key's namespaces, with a per-state cache of the current key's slot. TTL stores a clock time
// with each value; expired values are never returned and are swept by `cleanupExpired`. Once checkpoints
// start, every slot a write (or expiry) touches is remembered, so a checkpoint stores only what changed.
import { WeirError } from '../../common/errors.js'
import type { KeyRef, ListState, ListStateDescriptor, MapState, MapStateDescriptor, Namespace, PrefetchRequest, StateStats, StateTtlConfig, ValueState,
  ValueStateDescriptor } from '../../core/keyed-state.js'
import { DEFAULT_MAX_PARALLELISM, makeKey } from '../key-encoding.js'
import { mapKeyOf, TtlMapState } from '../map-state.js'
import { StateTableBase, type StateKind } from '../state-table.js'
import type { PendingStateSnapshot, StateSnapshotOptions, SubtaskStateBackend } from '../backend.js'
import type { HeapStateHandle } from './factory.js'
import { IncrementalSnapshots } from './incremental.js'
import { estimateBytes } from './heap-bytes.js'
import type { ChangedSlot, HeapEntry, HeapSnapshot } from './entries.js'
import { Cell, KeySlot, MapCell } from './cells.js'

export type { ChangedSlot, HeapEntry, HeapListEntry, HeapMapEntry, HeapSnapshot, HeapValueEntry } from './entries.js'

export interface HeapBackendOptions {
  /** Number of key groups keys hash to (default 128); snapshots only restore into the same number. */
  readonly maxParallelism?: number
  /** The key groups this subtask owns, inclusive; keys outside are rejected and skipped on restore. */
  readonly keyGroupRange?: { readonly start: number; readonly end: number }
}

type Kind = StateKind

function cloneValue<T>(v: T): T {
  return typeof v === 'object' && v !== null ? structuredClone(v) : v
}

/** The data of one named state, shared by its handle; the handle's current-key slot is cached here. */
class StateTable extends StateTableBase<KeySlot, MapCell> {
  readonly slots = new Map<string, KeySlot>()
  /** Where cleanupExpired stopped in this table. */
  sweep: Iterator<KeySlot> | null = null
  /** 0 until checkpoints start; then one more per checkpoint. A slot whose mark differs is not in `changed` yet. */
  epoch = 0
  /** Slots touched since the previous checkpoint (a slot removed meanwhile too), each once per epoch. */
  changed: KeySlot[] = []
  /** Its descriptor has been declared (get*State): its TTL is known. */
  registered = false
}

/** Records that `slot` changed (a cheap compare once it is recorded; nothing until checkpoints start). */
function touch(table: StateTable, slot: KeySlot): void {
  if (slot.mark !== table.epoch) {
    slot.mark = table.epoch
    table.changed.push(slot)
  }
}

/**
 * Keyed state on the JS heap. Nothing to prefetch or flush; everything else as the RocksDB backend.
 *
 * @example
 * const backend = new HeapKeyedStateBackend({ maxParallelism: 128 })
 * const count = backend.getValueState(valueState<number>('count'))
 * backend.setCurrentKey(makeKey(['alice']))
 * count.update((count.value() ?? 0) + 1)
 */
export class HeapKeyedStateBackend implements SubtaskStateBackend<HeapStateHandle> {
  readonly needsPrefetch = false
  readonly maxParallelism: number
  readonly keyGroupRange: { readonly start: number; readonly end: number }
  /** Read by the state handles on every access; set through setCurrentKey / setTtlTime. */
  currentKey: KeyRef | undefined = undefined
  ttlNow: number = Date.now()
  private readonly tables = new Map<string, StateTable>()
  private sweepOrder: StateTable[] = []
  private sweepIndex = 0
  /** The epoch of new tables (see StateTable.epoch). */
  private epoch = 0
  /** What earlier checkpoints stored, so the next stores only what changed. */
  readonly incremental = new IncrementalSnapshots(this)

  constructor(options: HeapBackendOptions = {}) {
    this.maxParallelism = options.maxParallelism ?? DEFAULT_MAX_PARALLELISM
    this.keyGroupRange = options.keyGroupRange ?? { start: 0, end: this.maxParallelism - 1 }
  }

  getValueState<T>(descriptor: ValueStateDescriptor<T>): ValueState<T> {
    const table = this.register(descriptor.name, 'value', descriptor.ttl)
    return (table.handle ??= new HeapValueState<T>(this, table)) as ValueState<T>
  }

  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T> {
    const table = this.register(descriptor.name, 'list', descriptor.ttl)
    return (table.handle ??= new HeapListState<T>(this, table)) as ListState<T>
  }

  getMapState<K, V>(descriptor: MapStateDescriptor<K, V>): MapState<K, V> {
    const table = this.register(descriptor.name, 'map', descriptor.ttl)
    return (table.handle ??= new HeapMapState<K, V>(this, table)) as MapState<K, V>
  }

  setCurrentKey(key: KeyRef): void {
    if (key.group < this.keyGroupRange.start || key.group > this.keyGroupRange.end) {
      throw WeirError.internal(`key group ${key.group} is outside this subtask's range [${this.keyGroupRange.start}, ${this.keyGroupRange.end}]`)
    }
    this.currentKey = key
  }

  getCurrentKey(): KeyRef | undefined {
    return this.currentKey
  }

  sync(): Promise<void> {
    return Promise.resolve()
  }

  prefetch(_requests: readonly PrefetchRequest[]): Promise<void> {
    return Promise.resolve()
  }

  flush(): Promise<void> {
    return Promise.resolve()
  }

  *keys(stateName: string): IterableIterator<KeyRef> {
    const table = this.tables.get(stateName)
    if (table === undefined) return
    for (const slot of table.slots.values()) {
      if (countLive(table, slot, this.ttlNow) > 0) yield slot.key
    }
  }

  setTtlTime(now: number): void {
    this.ttlNow = now
  }

  stats(): StateStats {
    let entries = 0
    for (const table of this.tables.values()) for (const slot of table.slots.values()) entries += countLive(table, slot, this.ttlNow)
    return { entries, bytes: estimateBytes(this.tables.values()) }
  }

  /**
   * Removes expired entries, resuming where the previous call stopped; examines at most
   * `maxEntries` key slots (all of them by default). Returns how many entries it removed.
   */
  cleanupExpired(maxEntries = Number.POSITIVE_INFINITY): number {
    if (this.sweepIndex >= this.sweepOrder.length) {
      this.sweepOrder = [...this.tables.values()].filter(t => t.ttlMs > 0)
      this.sweepIndex = 0
    }
    let budget = maxEntries
    let removed = 0
    while (budget > 0 && this.sweepIndex < this.sweepOrder.length) {
      const table = this.sweepOrder[this.sweepIndex]!
      table.invalidate()
      table.sweep ??= table.slots.values()
      // Map iterators stay valid while entries are deleted, so the sweep can delete as it goes.
      let next = table.sweep.next()
      while (!next.done) {
        const slot = next.value
        const gone = removeExpired(table, slot, this.ttlNow)
        if (gone > 0) {
          touch(table, slot)
          removed += gone
        }
        if (slot.isEmpty()) table.slots.delete(slot.key.encoded)
        if (--budget <= 0) break
        next = table.sweep.next()
      }
      if (next.done) {
        table.sweep = null
        this.sweepIndex++
      }
    }
    return removed
  }

  /**
   * The live entries of every state, grouped by key group. Values are deep copies unless `copy` is
   * false — for a caller that serializes the snapshot before the state changes again (a checkpoint).
   */
  snapshot(copy = true): HeapSnapshot {
    const keyGroups = [...this.entriesByGroup(null, copy).entries()]
      .filter(([, entries]) => entries.length > 0)
      .sort((a, b) => a[0] - b[0])
      .map(([group, entries]) => ({ group, entries }))
    return { format: 'weir-heap/1', maxParallelism: this.maxParallelism, keyGroups }
  }

  /**
   * The live entries of the key groups in `groups` (null: all), by group; groups without live
   * entries may be missing. Values are shared with the live state unless `copy`.
   */
  entriesByGroup(groups: ReadonlySet<number> | null, copy = false): Map<number, HeapEntry[]> {
    const byGroup = new Map<number, HeapEntry[]>()
    const now = this.ttlNow
    for (const table of this.tables.values()) {
      for (const slot of table.slots.values()) {
        if (groups !== null && !groups.has(slot.key.group)) continue
        let list = byGroup.get(slot.key.group)
        if (list === undefined) byGroup.set(slot.key.group, list = [])
        slotEntries(table, slot, now, copy, list)
      }
    }
    return byGroup
  }

  /**
   * What changed since the previous call, by key group (values shared with the live state: serialize
   * them before it changes again). The first call starts the tracking and returns nothing.
   */
  takeChanges(): Map<number, ChangedSlot[]> {
    const byGroup = new Map<number, ChangedSlot[]>()
    const now = this.ttlNow
    this.epoch++
    for (const table of this.tables.values()) {
      const changed = table.changed
      table.changed = []
      table.epoch = this.epoch
      // A key removed and written again has two slot objects in the list: its live one counts, once.
      const seen = new Set<string>()
      for (const slot of changed) {
        const encoded = slot.key.encoded
        if (seen.has(encoded)) continue
        seen.add(encoded)
        const live = table.slots.get(encoded)
        const entries: HeapEntry[] = []
        if (live !== undefined) slotEntries(table, live, now, false, entries)
        let list = byGroup.get(slot.key.group)
        if (list === undefined) byGroup.set(slot.key.group, list = [])
        list.push({ state: table.name, key: slot.key.values, entries })
      }
    }
    return byGroup
  }

  /** Applies a change a checkpoint recorded: the keys `cleared` lists per state lose every entry, then `entries` are added. */
  applyChanges(cleared: readonly { readonly state: string; readonly keys: readonly (readonly unknown[])[] }[], entries: readonly HeapEntry[]): void {
    for (const { state, keys } of cleared) {
      const slots = this.tables.get(state)?.slots
      if (slots !== undefined) { for (const key of keys) slots.delete(makeKey(key as unknown[], this.maxParallelism).encoded) }
    }
    for (const entry of entries) this.restoreEntry(entry)
    for (const table of this.tables.values()) table.invalidate()
  }

  /**
   * Adds the entries of `snapshot` whose key groups this backend owns (call it once per old
   * subtask's snapshot when parallelism changed). Meant for a fresh backend; existing entries of
   * the same key and namespace are replaced.
   */
  restore(snapshot: HeapSnapshot): void {
    if (snapshot.format !== 'weir-heap/1') throw WeirError.execution(`cannot restore heap state of format '${String(snapshot.format)}'`)
    if (snapshot.maxParallelism !== this.maxParallelism) {
      throw WeirError.execution(`state was written with max-parallelism ${snapshot.maxParallelism}, but this job uses ${this.maxParallelism}`, {
        help: 'restore with the same max-parallelism the checkpoint was taken with',
      })
    }
    for (const { group, entries } of snapshot.keyGroups) {
      if (group < this.keyGroupRange.start || group > this.keyGroupRange.end) continue
      for (const entry of entries) this.restoreEntry(entry)
    }
    for (const table of this.tables.values()) table.invalidate()
  }

  /** What changed since the previous checkpoint, serialized now (later changes are not in it) and stored in the background (incremental.ts). */
  checkpoint(options: StateSnapshotOptions): Promise<PendingStateSnapshot<HeapStateHandle>> {
    return Promise.resolve({ upload: this.incremental.checkpoint(options) })
  }

  close(): Promise<void> {
    for (const table of this.tables.values()) {
      table.slots.clear()
      table.invalidate()
    }
    return Promise.resolve()
  }

  private restoreEntry(entry: HeapEntry): void {
    const table = this.table(entry.state, entry.kind)
    const key = makeKey(entry.key.map(cloneValue), this.maxParallelism)
    let slot = table.slots.get(key.encoded)
    if (slot === undefined) table.slots.set(key.encoded, slot = new KeySlot(key))
    switch (entry.kind) {
      case 'value':
        slot.set(entry.ns, new Cell(cloneValue(entry.value), entry.time))
        break
      case 'list': {
        const values = entry.values.map(cloneValue)
        const times = entry.times
        let latest = 0
        for (const t of times) if (t > latest) latest = t
        // Before its descriptor is declared, a list keeps each element's time; register() drops them without TTL.
        slot.set(entry.ns, new Cell(table.ttlMs > 0 || !table.registered ? values.map((v, i) => new Cell(v, times[i] ?? latest)) : values, latest))
        break
      }
      case 'map': {
        const m = new Map<unknown, MapCell>()
        for (const [k, v, t] of entry.entries) {
          const uk = cloneValue(k)
          m.set(mapKeyOf(uk), new MapCell(uk, cloneValue(v), t))
        }
        slot.set(entry.ns, new Cell(m, 0))
        break
      }
    }
  }

  private table(name: string, kind: Kind): StateTable {
    let table = this.tables.get(name)
    if (table === undefined) {
      table = new StateTable(name, kind)
      table.epoch = this.epoch
      this.tables.set(name, table)
    } else if (table.kind !== kind) {
      throw WeirError.internal(`state '${name}' is declared as ${kind} state but already exists as ${table.kind} state`)
    }
    return table
  }

  private register(name: string, kind: Kind, ttl: StateTtlConfig | undefined): StateTable {
    const table = this.table(name, kind)
    if (kind === 'list' && !table.registered && !(ttl !== undefined && ttl.ttlMs > 0)) {
      // Restored before registration, its elements kept their times; without TTL a list holds values.
      for (const slot of table.slots.values()) {
        for (const [, cell] of slot.cells()) cell.v = (cell.v as Cell[]).map(c => c.v)
      }
    }
    table.registered = true
    table.configure(ttl)
    return table
  }
}

/** Appends the live entries of `slot` to `out`. */
function slotEntries(table: StateTable, slot: KeySlot, now: number, copy: boolean, out: HeapEntry[]): void {
  const key = copy ? slot.key.values.map(cloneValue) : slot.key.values as unknown[]
  const clone = copy ? cloneValue : (v: unknown): unknown => v
  for (const [ns, cell] of slot.cells()) {
    const entry = snapshotCell(table, key, ns, cell, now, clone)
    if (entry !== null) out.push(entry)
  }
}

function snapshotCell(table: StateTable, key: unknown[], ns: Namespace, cell: Cell, now: number, cloneValue: (v: unknown) => unknown): HeapEntry | null {
  switch (table.kind) {
    case 'value':
      if (table.expired(cell.t, now)) return null
      return { state: table.name, kind: 'value', key, ns, value: cloneValue(cell.v), time: cell.t }
    case 'list': {
      const values: unknown[] = []
      const times: number[] = []
      if (table.ttlMs > 0) {
        for (const c of cell.v as Cell[]) {
          if (!table.expired(c.t, now)) {
            values.push(cloneValue(c.v))
            times.push(c.t)
          }
        }
      } else {
        for (const v of cell.v as unknown[]) {
          values.push(cloneValue(v))
          times.push(cell.t)
        }
      }
      return values.length === 0 ? null : { state: table.name, kind: 'list', key, ns, values, times }
    }
    case 'map': {
      const entries: [unknown, unknown, number][] = []
      for (const e of (cell.v as Map<unknown, MapCell>).values()) {
        if (!table.expired(e.t, now)) entries.push([cloneValue(e.k), cloneValue(e.v), e.t])
      }
      return entries.length === 0 ? null : { state: table.name, kind: 'map', key, ns, entries }
    }
  }
}

/** Live entries of a slot: one per value or list, one per map entry. */
function countLive(table: StateTable, slot: KeySlot, now: number): number {
  let n = 0
  for (const [, cell] of slot.cells()) {
    switch (table.kind) {
      case 'value':
        if (!table.expired(cell.t, now)) n++
        break
      case 'list':
        if (table.ttlMs === 0 ? (cell.v as unknown[]).length > 0 : (cell.v as Cell[]).some(c => !table.expired(c.t, now))) n++
        break
      case 'map':
        if (table.ttlMs === 0) n += (cell.v as Map<unknown, MapCell>).size
        else for (const e of (cell.v as Map<unknown, MapCell>).values()) if (!table.expired(e.t, now)) n++
        break
    }
  }
  return n
}

/** Deletes the expired parts of a slot; returns how many entries went. */
function removeExpired(table: StateTable, slot: KeySlot, now: number): number {
  let removed = 0
  for (const [ns, cell] of [...slot.cells()]) {
    switch (table.kind) {
      case 'value':
        if (table.expired(cell.t, now)) {
          slot.delete(ns)
          removed++
        }
        break
      case 'list': {
        const list = cell.v as Cell[]
        const live = list.filter(c => !table.expired(c.t, now))
        if (live.length !== list.length) {
          removed += list.length - live.length
          if (live.length === 0) slot.delete(ns)
          else cell.v = live
        }
        break
      }
      case 'map': {
        const m = cell.v as Map<unknown, MapCell>
        for (const [k, e] of m) {
          if (table.expired(e.t, now)) {
            m.delete(k)
            removed++
          }
        }
        if (m.size === 0) slot.delete(ns)
        break
      }
    }
  }
  return removed
}

/** The current key's slot of `table` (cached per key object), or undefined if the key has none. */
function currentSlot(backend: HeapKeyedStateBackend, table: StateTable): KeySlot | undefined {
  const key = backend.currentKey
  if (key !== table.cachedKey) {
    if (key === undefined) throw WeirError.internal(`state '${table.name}' accessed with no current key`)
    table.cachedKey = key
    table.cachedSlot = table.slots.get(key.encoded)
  }
  return table.cachedSlot
}

function writableSlot(backend: HeapKeyedStateBackend, table: StateTable): KeySlot {
  let slot = currentSlot(backend, table)
  if (slot === undefined) {
    const key = backend.currentKey!
    slot = new KeySlot(key)
    table.slots.set(key.encoded, slot)
    table.cachedSlot = slot
  }
  return slot
}

/** Removes namespace `ns` of `slot`, and the slot once it has none. */
function removeCell(table: StateTable, slot: KeySlot, ns: Namespace): void {
  touch(table, slot)
  slot.delete(ns)
  if (slot.isEmpty()) {
    table.slots.delete(slot.key.encoded)
    table.cachedSlot = undefined
  }
}

/** What the value and list handles share: the current key's slot and the namespace. */
abstract class HeapState {
  protected ns: Namespace = ''

  constructor(protected readonly backend: HeapKeyedStateBackend, protected readonly table: StateTable) {}

  setNamespace(ns: Namespace): void {
    this.ns = ns
  }

  clear(): void {
    const slot = this.slot()
    if (slot !== undefined) this.removeCell(slot)
  }

  protected slot(): KeySlot | undefined {
    return currentSlot(this.backend, this.table)
  }

  protected writableSlot(): KeySlot {
    return writableSlot(this.backend, this.table)
  }

  protected cell(): Cell | undefined {
    const slot = this.slot()
    return slot === undefined ? undefined : slot.get(this.ns)
  }

  protected removeCell(slot: KeySlot): void {
    removeCell(this.table, slot, this.ns)
  }
}

class HeapValueState<T> extends HeapState implements ValueState<T> {
  value(): T | undefined {
    const cell = this.cell()
    if (cell === undefined) return undefined
    if (this.table.ttlMs > 0) {
      const now = this.backend.ttlNow
      if (cell.t + this.table.ttlMs <= now) {
        this.removeCell(this.slot()!)
        return undefined
      }
      if (this.table.refreshOnRead && cell.t !== now) {
        cell.t = now
        touch(this.table, this.table.cachedSlot!)
      }
    }
    return cell.v as T
  }

  /** `undefined` clears, as Flink's update(null) does. */
  update(value: T): void {
    if (value === undefined) {
      this.clear()
      return
    }
    const slot = this.writableSlot()
    const cell = slot.get(this.ns)
    if (cell !== undefined) {
      cell.v = value
      cell.t = this.backend.ttlNow
    } else {
      slot.set(this.ns, new Cell(value, this.backend.ttlNow))
    }
    touch(this.table, slot)
  }
}

class HeapListState<T> extends HeapState implements ListState<T> {
  /** Without TTL the stored array itself (do not modify it); with TTL a fresh array of the live elements. */
  get(): readonly T[] {
    const cell = this.cell()
    if (cell === undefined) return []
    if (this.table.ttlMs === 0) return cell.v as T[]
    const now = this.backend.ttlNow
    const cells = cell.v as Cell[]
    const out: T[] = []
    let expired = false
    let refreshed = false
    for (const c of cells) {
      if (this.table.expired(c.t, now)) {
        expired = true
        continue
      }
      if (this.table.refreshOnRead && c.t !== now) {
        c.t = now
        refreshed = true
      }
      out.push(c.v as T)
    }
    if (refreshed || expired) touch(this.table, this.table.cachedSlot!)
    if (expired) {
      if (out.length === 0) this.removeCell(this.slot()!)
      else cell.v = cells.filter(c => !this.table.expired(c.t, now))
    }
    return out
  }

  readonly addChunk = (chunk: T): void => this.add(chunk)
  add(value: T): void {
    const now = this.backend.ttlNow
    const item = this.table.ttlMs > 0 ? new Cell(value, now) : value
    const slot = this.writableSlot()
    const cell = slot.get(this.ns)
    if (cell !== undefined) {
      ;(cell.v as unknown[]).push(item)
      cell.t = now
    } else {
      slot.set(this.ns, new Cell([item], now))
    }
    touch(this.table, slot)
  }
  update(values: readonly T[]): void {
    if (values.length === 0) {
      this.clear()
      return
    }
    const now = this.backend.ttlNow
    const items = this.table.ttlMs > 0 ? values.map(v => new Cell(v, now)) : values.slice()
    const slot = this.writableSlot()
    const cell = slot.get(this.ns)
    if (cell !== undefined) {
      cell.v = items
      cell.t = now
    } else {
      slot.set(this.ns, new Cell(items, now))
    }
    touch(this.table, slot)
  }
  readonly drop = (): void => this.clear() // ListState.drop: on the heap, a clear

  /** ListState.dropAll: the table holds this state only, so every slot goes (each recorded as changed for the next checkpoint). */
  dropAll(): void {
    const table = this.table
    for (const slot of table.slots.values()) touch(table, slot)
    table.slots.clear()
    table.cachedSlot = undefined
  }
}

/** MapState on the heap: the TTL rules are TtlMapState's; a (key, namespace) without entries has no cell. */
class HeapMapState<K, V> extends TtlMapState<K, V, MapCell, Cell> {
  constructor(private readonly backend: HeapKeyedStateBackend, protected override readonly table: StateTable) {
    super(table)
  }

  clear(): void {
    const slot = currentSlot(this.backend, this.table)
    if (slot !== undefined) removeCell(this.table, slot, this.ns)
  }

  protected current(): Cell | undefined {
    const slot = currentSlot(this.backend, this.table)
    return slot === undefined ? undefined : slot.get(this.ns)
  }

  protected entriesOf(cell: Cell): Map<unknown, MapCell> {
    return cell.v as Map<unknown, MapCell>
  }

  protected now(): number {
    return this.backend.ttlNow
  }

  protected insert(_cell: Cell | undefined, m: Map<unknown, MapCell> | undefined, key: K, value: V, mk: unknown, now: number): MapCell {
    const created = new MapCell(key, value, now)
    const slot = writableSlot(this.backend, this.table)
    if (m !== undefined) m.set(mk, created)
    else slot.set(this.ns, new Cell(new Map([[mk, created]]), now))
    touch(this.table, slot)
    return created
  }

  protected written(holder: Cell): void {
    const slot = this.slotOf(holder)
    if (slot !== undefined) touch(this.table, slot)
  }

  protected refreshed(holder: Cell): void {
    const slot = this.slotOf(holder)
    if (slot !== undefined) touch(this.table, slot)
  }

  /** The slot holding `holder`: the current key's, unless an iteration of entries() outlived a change of key or namespace. */
  private slotOf(holder: Cell): KeySlot | undefined {
    const cached = this.table.cachedSlot
    if (cached !== undefined && cached.get(this.ns) === holder) return cached
    for (const slot of this.table.slots.values()) for (const [, cell] of slot.cells()) if (cell === holder) return slot
    return undefined // taken out meanwhile: nothing of it to store
  }

  protected drop(_cell: Cell, m: Map<unknown, MapCell>, mk: unknown): void {
    if (!m.delete(mk)) return
    const slot = currentSlot(this.backend, this.table)!
    if (m.size === 0) removeCell(this.table, slot, this.ns)
    else touch(this.table, slot)
  }
}
