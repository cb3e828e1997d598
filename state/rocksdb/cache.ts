// The in-memory write-back cache of the RocksDB backend: per state a table of resident keys (slots),
// per (key, namespace) a cell holding a value, a whole list or a whole map, with dirty tracking
// so a flush writes only what changed. A cell that exists is resident; a missing cell is unknown
// unless its slot has every namespace resident (`allNs`).
import { WeirError } from '../../common/errors.js'
import type { KeyRef, Namespace } from '../../core/keyed-state.js'
import { StateTableBase, type StateKind } from '../state-table.js'
import { cellKey, decodeKey, namespaceBytes, slotPrefix, writeCellKey, writeSeq } from './codec.js'
import { SlotMap } from './slot-map.js'

/** The three state shapes. */
export type Kind = StateKind

/** A value cell with nothing stored (never set, cleared, or expired). */
export const ABSENT: unique symbol = Symbol('absent')

/** One named state: its stored id, TTL, and resident slots by encoded key. */
export class Table extends StateTableBase<Slot, MapEntry> {
  readonly slots = new SlotMap()
  /**
   * A list or map state whose stored prefixes the written-keys filter may lack (an entry whose key
   * did not parse came in by a key-group copy): its prefetches scan even where the filter says never written.
   */
  unfiltered = false
  /**
   * List elements of it kept encoded (encoded-rows.ts), and how many of those a read had to decode:
   * a state whose lists are mostly read back (a join's side that the other side's rows read at
   * every row) keeps its rows as they are.
   */
  encodedElements = 0
  decodedElements = 0
  /** A prefetch named it in appendOnlyStates: its batches append to it blind (write-back.ts, trim). */
  appendedBlind = false
  /**
   * What one add or addChunk of a list state, or one new entry of a map state, measured at the last
   * write (encoded, ENTRY_OVERHEAD included; WriteBack.measureElements): one added since counts at
   * this size against the cache's budget until its write (ListCell.held, MapEntry.size).
   */
  elementBytes = ENTRY_OVERHEAD + 64

  constructor(name: string, kind: Kind, readonly id: number) {
    super(name, kind)
  }
}

/**
 * Slot.flags bits: the slot's, then those of a ValueSlot's own value (its cell bits); the bits above
 * them count the slot's dirty cells (Slot.dirtyCells).
 */
const ALL_NS = 1
const LOADING_ALL = 2
const EVICTED = 4
const VALUE_DIRTY = 8
const VALUE_LOADING = 16
const VALUE_ON_DISK = 32
const VALUE_BITS = VALUE_DIRTY | VALUE_LOADING | VALUE_ON_DISK
const SLOT_BITS = 6

/** One state's resident data for one key: a cell per namespace. The unit of LRU eviction. */
export class Slot {
  d: Cell | undefined = undefined
  /**
   * One namespace other than '' and its cell, held inline: most slots of namespaced state have one
   * (an interval join's bucket of a new key, a window's accumulator), and a Map per slot was one more
   * object per new key for the young-generation GC to copy. Further namespaces go in `more`.
   */
  n1: Namespace | undefined = undefined
  c1: Cell | undefined = undefined
  more: Map<Namespace, Cell> | null = null
  /**
   * allNs, loadingAll and evicted as bits (and a ValueSlot's value's), and dirtyCells above them: one
   * field, not one each (a slot per resident key, and each field 8 heap bytes the young-generation
   * collector copies; see CellBase.flags).
   */
  protected flags = 0
  /** Last bundle (flush epoch) that asked for this slot, and the epoch it was queued for eviction at. */
  epoch: number
  queuedEpoch: number
  /** Estimated bytes, this slot's share of the cache budget (its cells' sizes included). */
  bytes: number
  /** Epoch of the last flush that wrote one of its cells (that write may still be in flight). */
  written = 0
  /** Position in its table's SlotMap. */
  pos = -1

  /** Key group of the key. */
  readonly group: number

  /**
   * The key is kept as its encoding and key group only, not as the caller's KeyRef: a resident slot
   * then holds no objects of the row it came from (fewer objects that outlive a young-generation GC).
   */
  constructor(readonly table: Table, readonly encoded: string, group: number, epoch: number) {
    // As an int32: a key group computed in unoptimized code (a uint32 hash % max parallelism) can be a
    // heap number, and one stored here turned the field into a boxed double in every slot (one more
    // object per resident key).
    this.group = group | 0
    this.epoch = epoch
    this.queuedEpoch = epoch
    this.bytes = SLOT_OVERHEAD + encoded.length * 4
  }

  /** Cells waiting for a flush; the slot cannot be evicted while there are any. */
  get dirtyCells(): number {
    return this.flags >>> SLOT_BITS
  }
  set dirtyCells(n: number) {
    this.flags = (this.flags & ((1 << SLOT_BITS) - 1)) | (n << SLOT_BITS)
  }

  /** Every namespace of this key is resident: a missing cell means no state. */
  get allNs(): boolean {
    return (this.flags & ALL_NS) !== 0
  }
  set allNs(on: boolean) {
    this.flags = on ? this.flags | ALL_NS : this.flags & ~ALL_NS
  }

  /** An every-namespace scan for this slot is under way. */
  get loadingAll(): boolean {
    return (this.flags & LOADING_ALL) !== 0
  }
  set loadingAll(on: boolean) {
    this.flags = on ? this.flags | LOADING_ALL : this.flags & ~LOADING_ALL
  }

  /** Gone from its table (evicted or dropped); not resident any more. */
  get evicted(): boolean {
    return (this.flags & EVICTED) !== 0
  }
  set evicted(on: boolean) {
    this.flags = on ? this.flags | EVICTED : this.flags & ~EVICTED
  }

  /** The key, decoded from its encoding (for diagnostics: a value that is not a primitive comes back as its JSON text). */
  get keyRef(): KeyRef {
    return { values: decodeKey(this.encoded), encoded: this.encoded, group: this.group }
  }

  /** The stored [key group][state id][key] every entry of this slot starts with. */
  get prefix(): Buffer {
    return slotPrefix(this.group, this.table.id, this.encoded)
  }

  /** Length of `prefix`: where the namespace starts in a stored key of this slot. */
  get prefixLength(): number {
    return 4 + this.encoded.length * 2
  }

  get(ns: Namespace): Cell | undefined {
    if (ns === '') return this.d
    if (ns === this.n1) return this.c1
    return this.more === null ? undefined : this.more.get(ns)
  }

  set(ns: Namespace, cell: Cell): void {
    if (ns === '') this.d = cell
    else if (ns === this.n1) this.c1 = cell
    // A namespace is in one place only: n1, or else the map.
    else if (this.n1 === undefined && (this.more === null || !this.more.has(ns))) {
      this.n1 = ns
      this.c1 = cell
    } else (this.more ??= new Map()).set(ns, cell)
  }

  /** Drops namespace `ns`'s cell, if it has one. */
  delete(ns: Namespace): void {
    if (ns === '') this.d = undefined
    else if (ns === this.n1) {
      this.n1 = undefined
      this.c1 = undefined
    } else this.more?.delete(ns)
  }

  *cells(): IterableIterator<Cell> {
    if (this.d !== undefined) yield this.d
    if (this.c1 !== undefined) yield this.c1
    if (this.more !== null) yield* this.more.values()
  }
}

/**
 * Estimated JS heap bytes per slot, cell and map entry / list element, beyond their stored bytes.
 * Measured (node 20, x64): a resident ValueState counter — slot, its place in the SlotMap and the
 * eviction queue, cell, boxed TTL clock, and a small array value — took ~395 heap bytes, against
 * an estimate of ~380, so the budget bounds the heap the cache really uses. Since slots and cells
 * keep their booleans as bits and a cell's kind is on its prototype, four fields (32 bytes) fewer:
 * ~363 by that count (not measured again), so the estimate now errs a little on the high side. A
 * value held in its slot (ValueSlot) still counts a cell's CELL_OVERHEAD, for an object fewer: ~56
 * bytes more on the high side for such keys (kept, so the cache holds as many keys as before).
 */
export const SLOT_OVERHEAD = 200
export const CELL_OVERHEAD = 112
export const ENTRY_OVERHEAD = 72

/** CellBase.flags bits: the base's, then ListCell's, then ValueCell's. */
const DIRTY = 1
const LOADING = 2
const REPLACED = 4
const REWRITE = 8
const STORED = 16
const STALE_READ = 32
const ON_DISK = 64
const TAIL = 128
const HEAD_READ = 256
const ENCODED = 512
const KEEPS_ROWS = 1024

/**
 * What ValueCell keeps its TTL clock as an offset from: a whole millisecond near the wall clock at
 * start. A clock on the wall clock then leaves a small integer in the cell (a Smi, held in the field
 * itself), where the time itself (~1.7e12) is a double that V8 keeps as a heap number of its own, one
 * more object per resident value for the young-generation collector to copy and promote. Any other
 * clock (a test's) still reads back exactly: integer milliseconds are exact doubles, and so is the
 * difference of two doubles within a factor of two of each other.
 */
const CLOCK_BASE = Math.floor(Date.now())

/** `now` − CLOCK_BASE, an int32 when it is one (a heap number stored would box the field in every cell). */
function clockOffset(now: number): number {
  const d = now - CLOCK_BASE
  return (d | 0) === d ? d | 0 : d
}

abstract class CellBase {
  /**
   * The cell's booleans as bits, read and set through accessors: a cell per resident key, and each
   * field of it 8 heap bytes (node's x64 heap has no pointer compression) that the young-generation
   * collector copies with it; a list cell had six.
   */
  protected flags = 0
  size = CELL_OVERHEAD
  constructor(readonly slot: Slot, readonly ns: Namespace, readonly keyLength: number) {}

  /** Changed since the last write batch (it is in the store's dirty list). */
  get dirty(): boolean {
    return (this.flags & DIRTY) !== 0
  }
  set dirty(on: boolean) {
    this.flags = on ? this.flags | DIRTY : this.flags & ~DIRTY
  }

  /** Placeholder while a prefetch reads it; touching it then is an engine bug. */
  get loading(): boolean {
    return (this.flags & LOADING) !== 0
  }
  set loading(on: boolean) {
    this.flags = on ? this.flags | LOADING : this.flags & ~LOADING
  }

  /**
   * The stored key of a value, or the prefix every element / entry of a list or map starts with: built
   * when a read or a write needs it, not kept. A resident cell then costs no Buffer of its own (a small
   * Buffer is a typed array over a slice of an 8 KB pool: ~90 heap bytes the collector copies into old
   * space with the cell, and it keeps the whole pool alive). Callers take it once per read or write.
   */
  get key(): Buffer {
    return cellKey(this.slot.group, this.slot.table.id, this.slot.encoded, namespaceBytes(this.ns))
  }
}

/** One ValueState entry, or ABSENT. */
export class ValueCell extends CellBase {
  /** On the prototype (onPrototype), not a field of each cell. */
  declare readonly kind: 'value'
  v: unknown = ABSENT
  /** `t` − CLOCK_BASE. */
  private dt = 0

  /** TTL clock at the last write (or read, under OnReadAndWrite). */
  get t(): number {
    return this.dt + CLOCK_BASE
  }
  set t(now: number) {
    this.dt = clockOffset(now)
  }

  /** The database holds an entry for it (so clearing it needs a delete). */
  get onDisk(): boolean {
    return (this.flags & ON_DISK) !== 0
  }
  set onDisk(on: boolean) {
    this.flags = on ? this.flags | ON_DISK : this.flags & ~ON_DISK
  }
}

/**
 * The slot of a value state's key, holding that key's value in namespace '' itself: a key whose only
 * state is one value (a dedup's last row, a GROUP BY's accumulator, a join side's row under a unique
 * key) then costs one object in the cache, not a slot and a cell (each one more object per resident
 * key for the young-generation collector to copy and promote). It is its own '' cell while that cell
 * exists (`d === this`; RocksStore.newCell makes it, `reset`), and a Cell (kind 'value') to everything
 * that takes one: the dirty list, write-back, eviction, the TTL sweep. Other namespaces get ValueCells.
 */
export class ValueSlot extends Slot {
  /** On the prototype (onPrototype), not a field of each slot. */
  declare readonly kind: 'value'
  v: unknown = ABSENT
  /** `t` − CLOCK_BASE (see ValueCell.t). */
  private dt = 0
  /** The value's estimated bytes, as a cell's `size` (the slot's, its value's included, are `bytes`). */
  size = 0

  /** As a cell: its slot, namespace and stored key's length. */
  get slot(): Slot {
    return this
  }
  get ns(): Namespace {
    return ''
  }
  get keyLength(): number {
    return this.prefixLength + namespaceBytes('').length
  }

  /** The value as a new cell: ABSENT, clean, not loading, not on disk. */
  reset(): void {
    this.v = ABSENT
    this.dt = 0
    this.flags &= ~VALUE_BITS
    this.size = CELL_OVERHEAD + this.keyLength
  }

  /** As ValueCell.t. */
  get t(): number {
    return this.dt + CLOCK_BASE
  }
  set t(now: number) {
    this.dt = clockOffset(now)
  }

  /** As CellBase.dirty. */
  get dirty(): boolean {
    return (this.flags & VALUE_DIRTY) !== 0
  }
  set dirty(on: boolean) {
    this.flags = on ? this.flags | VALUE_DIRTY : this.flags & ~VALUE_DIRTY
  }

  /** As CellBase.loading. */
  get loading(): boolean {
    return (this.flags & VALUE_LOADING) !== 0
  }
  set loading(on: boolean) {
    this.flags = on ? this.flags | VALUE_LOADING : this.flags & ~VALUE_LOADING
  }

  /** As ValueCell.onDisk. */
  get onDisk(): boolean {
    return (this.flags & VALUE_ON_DISK) !== 0
  }
  set onDisk(on: boolean) {
    this.flags = on ? this.flags | VALUE_ON_DISK : this.flags & ~VALUE_ON_DISK
  }

  /** As CellBase.key. */
  get key(): Buffer {
    return cellKey(this.group, this.table.id, this.encoded, namespaceBytes(''))
  }
}

/** A value state's resident value: in a cell of its own, or in its slot (namespace ''). */
export type ValueCellLike = ValueCell | ValueSlot

/** Where reads and writes build a cell's stored key (then copied into a batch, or hashed into the written-keys filter). */
let keyBuffer = Buffer.allocUnsafe(256)

/**
 * Writes a cell's stored key (CellBase.key) at the start of keyScratch(), with room for `extra` more
 * bytes after it (a list element's sequence number); returns its length.
 */
export function scratchKey(cell: Cell, extra = 0): number {
  if (keyBuffer.length < cell.keyLength + extra) keyBuffer = Buffer.allocUnsafe((cell.keyLength + extra) * 2)
  const slot = cell.slot
  return writeCellKey(keyBuffer, slot.group, slot.table.id, slot.encoded, namespaceBytes(cell.ns))
}

/** Writes a list element's stored key (listElementKey(cell.key, seq)) at the start of keyScratch(); returns its length. */
export function scratchElementKey(cell: ListCell, seq: number): number {
  const n = scratchKey(cell, 8)
  return writeSeq(keyBuffer, n, seq)
}

/** The buffer scratchKey writes to (valid until the next call). */
export function keyScratch(): Buffer {
  return keyBuffer
}

/**
 * A list cell's `dropped` while it has none: shared (most cells never drop an element, and each written
 * cell was given a new empty array), frozen so that a push into it fails rather than reach other cells.
 * Add through dropSeq.
 */
export const NO_SEQS: number[] = Object.freeze([]) as unknown as number[]

/** Adds sequence number `seq` to `c.dropped`. */
export function dropSeq(c: ListCell, seq: number): void {
  if (c.dropped === NO_SEQS) c.dropped = [seq]
  else c.dropped.push(seq)
}

/**
 * A whole list. `items[i]` is stored under sequence number seqAt(cell, i); items before `flushed` are
 * on disk. `replaced` means the list was rewritten (delete range, then put every item); `dropped`
 * are sequence numbers to delete (expired elements).
 */
export class ListCell extends CellBase {
  /** On the prototype (onPrototype), not a field of each cell. */
  declare readonly kind: 'list'
  items: unknown[] = []
  /**
   * The TTL clock of each item, kept only for a state with TTL (timesOf); null while its state has
   * none. Either null or as long as `items`.
   */
  times: number[] | null = null
  /**
   * The sequence number of each item, where they are not the implicit ones: null while the items are
   * numbered nextSeq − items.length, …, nextSeq − 1 (as add and update number them, and as dropping
   * a first element leaves them). Only an element dropped from the middle (TTL), or elements read back
   * with a gap, make it an array (seqAt, explicitSeqs). Either null or as long as `items`.
   */
  seqs: number[] | null = null
  nextSeq = 0
  flushed = 0
  dropped: number[] = NO_SEQS
  /**
   * What the elements added since its last write count for in `size` (each at its table's
   * elementBytes): deferred write-back holds them, so the cache's budget must see them.
   */
  held = 0
  /**
   * The epoch of the last prefetch that asked to read it: its batch may not have run before the
   * next flush (a runtime may prefetch batch N+1 before it flushes batch N), and until then its
   * elements stay resident (write-back.ts, trim).
   */
  readEpoch = -1

  /** Rewritten whole (update, or a clear of elements not all known): the next write deletes its range, then puts every item. */
  get replaced(): boolean {
    return (this.flags & REPLACED) !== 0
  }
  set replaced(on: boolean) {
    this.flags = on ? this.flags | REPLACED : this.flags & ~REPLACED
  }

  /** Every item must be written again (TTL refreshed on read). */
  get rewrite(): boolean {
    return (this.flags & REWRITE) !== 0
  }
  set rewrite(on: boolean) {
    this.flags = on ? this.flags | REWRITE : this.flags & ~REWRITE
  }

  /** The database may hold elements of this list (its prefix is in the written-keys filter). */
  get stored(): boolean {
    return (this.flags & STORED) !== 0
  }
  set stored(on: boolean) {
    this.flags = on ? this.flags | STORED : this.flags & ~STORED
  }

  /** Cleared while a prefetch was reading it (blind-clear.ts): what that read returns is stale. */
  get staleRead(): boolean {
    return (this.flags & STALE_READ) !== 0
  }
  set staleRead(on: boolean) {
    this.flags = on ? this.flags | STALE_READ : this.flags & ~STALE_READ
  }

  /**
   * Made resident for appends only, unread (a prefetch's appendOnly request): `items` are only what
   * was added since, numbered from the store's listSeq on (StateTables.listSeq), above every element
   * the disk may hold of the list before them (its head). Adds, clear and update need no more; a
   * read of the list needs its head first (prefetch.ts reads it and puts it in front).
   */
  get tail(): boolean {
    return (this.flags & TAIL) !== 0
  }
  set tail(on: boolean) {
    this.flags = on ? this.flags | TAIL : this.flags & ~TAIL
  }

  /** Some items may be EncodedRows (encoded-rows.ts), which a read decodes first. */
  get encoded(): boolean {
    return (this.flags & ENCODED) !== 0
  }
  set encoded(on: boolean) {
    this.flags = on ? this.flags | ENCODED : this.flags & ~ENCODED
  }

  /** A read found rows it had to decode: the chunks added from then on are kept as rows (encoded-rows.ts). */
  get keepsRows(): boolean {
    return (this.flags & KEEPS_ROWS) !== 0
  }
  set keepsRows(on: boolean) {
    this.flags = on ? this.flags | KEEPS_ROWS : this.flags & ~KEEPS_ROWS
  }

  /** A tail whose head a prefetch is reading (it is put in front when it lands, unless a clear came first: staleRead). */
  get headRead(): boolean {
    return (this.flags & HEAD_READ) !== 0
  }
  set headRead(on: boolean) {
    this.flags = on ? this.flags | HEAD_READ : this.flags & ~HEAD_READ
  }
}

/**
 * A tail (ListCell.tail) made a whole list by a change that needs no head (update, clear): a head
 * read in flight is stale when it lands.
 */
export function untail(c: ListCell): void {
  c.tail = false
  if (c.headRead) {
    c.headRead = false
    c.staleRead = true
  }
}

/** The sequence number item `i` of list `c` is stored under. */
export function seqAt(c: ListCell, i: number): number {
  return c.seqs === null ? c.nextSeq - c.items.length + i : c.seqs[i]!
}

/** The index of the item of list `c` stored under sequence number `seq`, or −1. */
export function indexOfSeq(c: ListCell, seq: number): number {
  if (c.seqs !== null) return c.seqs.indexOf(seq)
  const i = seq - (c.nextSeq - c.items.length)
  return i >= 0 && i < c.items.length ? i : -1
}

/** `c.seqs` as an array, made from the implicit numbering if it has none (to drop an element from the middle). */
export function explicitSeqs(c: ListCell): number[] {
  if (c.seqs !== null) return c.seqs
  const seqs = new Array<number>(c.items.length)
  const base = c.nextSeq - c.items.length
  for (let i = 0; i < seqs.length; i++) seqs[i] = base + i
  c.seqs = seqs
  return seqs
}

/** Returns `c.seqs` to null (implicit numbering) if its items are numbered as that would number them. */
export function implicitSeqs(c: ListCell): void {
  if (c.seqs !== null && numberedImplicitly(c.seqs, c.nextSeq)) c.seqs = null
}

/** Whether `seqs` are the implicit numbering of a list of their length whose next sequence number is `nextSeq`. */
export function numberedImplicitly(seqs: readonly number[], nextSeq: number): boolean {
  const base = nextSeq - seqs.length
  for (let i = 0; i < seqs.length; i++) if (seqs[i] !== base + i) return false
  return true
}

/**
 * `c.times`, made if the list has none (its state had no TTL when its items were added): each item
 * then counts as written at `now`, as an element stored without a time is read back (prefetch.ts).
 */
export function timesOf(c: ListCell, now: number): number[] {
  if (c.times === null) c.times = new Array<number>(c.items.length).fill(now)
  return c.times
}

/** A whole map: live entries by map key, plus what the next flush deletes and puts. */
export class MapCell extends CellBase {
  /** On the prototype (onPrototype), not a field of each cell. */
  declare readonly kind: 'map'
  m = new Map<unknown, MapEntry>()
  /** Entries taken out since the last flush that are on disk. */
  removed: MapEntry[] = []
  /** Entries put since the last flush (each once; skipped if no longer live). */
  changed: MapEntry[] = []
  /** clear() ran: the next flush deletes the whole range before its puts. */
  cleared = false
  /** The database may hold entries of this map (its prefix is in the written-keys filter). */
  stored = false
}

/** A cell class's `kind`, the same for all its cells, set once on its prototype. */
function onPrototype(cls: { prototype: object }, kind: Kind): void {
  Object.defineProperty(cls.prototype, 'kind', { value: kind, enumerable: true })
}
onPrototype(ValueCell, 'value')
onPrototype(ValueSlot, 'value')
onPrototype(ListCell, 'list')
onPrototype(MapCell, 'map')

/** A resident (key, namespace) of one state. */
export type Cell = ValueCellLike | ListCell | MapCell

/** One MapState entry: the caller's key `k`, its JS Map key `mk`, the value and its TTL clock. */
export class MapEntry {
  /** Encoded user key, computed once when first needed (the stored key is built from it at each write). */
  ek: string | null = null
  onDisk = false
  queued = false
  /** Its bytes in its cell's size: as read or written, or (put and not yet written) its table's elementBytes. */
  size = 0
  constructor(readonly k: unknown, public v: unknown, public t: number, readonly mk: unknown) {}
}

/** What the state handles need from the backend. */
export interface CacheHost {
  readonly currentKey: KeyRef | undefined
  readonly ttlNow: number
  /** Approximate live entries (+1 on create, −1 on delete). */
  liveEntries: number
  /** Writes (update, add, put) since the last write batch: what deferred write-back holds in memory. */
  changes: number
  /**
   * Bytes of the list elements and new map entries added since the last write batch, each at its
   * table's elementBytes: what holding them costs when one write batch stages them all (see WriteBack.flush).
   */
  heldBytes: number
  markDirty(cell: Cell): void
  /** A new empty cell in a slot that has every namespace resident. */
  absentCell(slot: Slot, ns: Namespace): Cell
}

/** The error for a state call on a (key, namespace) that no prefetch made resident. */
export function notResident(table: Table, key: KeyRef | undefined, ns: Namespace): never {
  if (key === undefined) throw WeirError.internal(`state '${table.name}' accessed with no current key`)
  throw WeirError.internal(
    `state '${table.name}' was accessed for key ${JSON.stringify(key.values, (_k, v: unknown) => typeof v === 'bigint' ? `${v}n` : v)} ` +
      `namespace ${JSON.stringify(ns)} without a prefetch: the RocksDB backend reads only what the runtime prefetched`,
  )
}
