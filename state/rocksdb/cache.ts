// The in-memory write-back cache of the RocksDB backend: per state a table of resident keys (slots),
// per (key, namespace) a cell holding a value, a whole list or a whole map, with dirty tracking
// so a flush writes only what changed. A cell that exists is resident; a missing cell is unknown
// unless its slot has every namespace resident (`allNs`).
import { WeirError } from '../../common/errors.js'
import type { KeyRef, Namespace } from '../api.js'
import { encodeKey } from '../key-encoding.js'

/** The three state shapes. */
export type Kind = 'value' | 'list' | 'map'

/** A value cell with nothing stored (never set, cleared, or expired). */
export const ABSENT: unique symbol = Symbol('absent')

/** One named state: its stored id, TTL, and resident slots by encoded key. */
export class Table {
  readonly slots = new Map<string, Slot>()
  ttlMs = 0
  refreshOnRead = false
  handle: unknown = undefined
  /** The current key's slot, cached per key object (setCurrentKey runs per row group). */
  cachedKey: KeyRef | undefined = undefined
  cachedSlot: Slot | undefined = undefined
  /** Map state: the entry the last get() found, so the usual get-then-put costs one lookup. */
  lastMap: Map<unknown, MapEntry> | null = null
  lastMk: unknown = undefined
  lastEntry: MapEntry | undefined = undefined

  constructor(readonly name: string, readonly kind: Kind, readonly id: number) {}

  invalidate(): void {
    this.cachedKey = undefined
    this.cachedSlot = undefined
    this.lastMap = null
    this.lastEntry = undefined
  }

  expired(t: number, now: number): boolean {
    return this.ttlMs > 0 && t + this.ttlMs <= now
  }
}

/** One state's resident data for one key: a cell per namespace. The unit of LRU eviction. */
export class Slot {
  d: Cell | undefined = undefined
  ns: Map<Namespace, Cell> | null = null
  /** Every namespace of this key is resident: a missing cell means no state. */
  allNs = false
  /** An every-namespace scan for this slot is under way. */
  loadingAll = false
  /** Last bundle (flush epoch) that asked for this slot, and the epoch it was queued for eviction at. */
  epoch: number
  queuedEpoch: number
  /** Estimated bytes, this slot's share of the cache budget. */
  size: number
  evicted = false
  /** Cells waiting for a flush; the slot cannot be evicted while there are any. */
  dirtyCells = 0
  /** Epoch of the last flush that wrote one of its cells (that write may still be in flight). */
  written = 0

  /** `prefix` is the stored [key group][state id][key] every entry of this slot starts with. */
  constructor(readonly table: Table, readonly key: KeyRef, readonly prefix: Buffer, epoch: number) {
    this.epoch = epoch
    this.queuedEpoch = epoch
    this.size = SLOT_OVERHEAD + prefix.length + key.encoded.length * 2
  }

  get(ns: Namespace): Cell | undefined {
    return ns === '' ? this.d : this.ns === null ? undefined : this.ns.get(ns)
  }

  set(ns: Namespace, cell: Cell): void {
    if (ns === '') this.d = cell
    else (this.ns ??= new Map()).set(ns, cell)
  }

  *cells(): IterableIterator<Cell> {
    if (this.d !== undefined) yield this.d
    if (this.ns !== null) yield* this.ns.values()
  }
}

/** Estimated JS heap bytes per slot, cell and map entry / list element, beyond their stored bytes. */
export const SLOT_OVERHEAD = 160
export const CELL_OVERHEAD = 64
export const ENTRY_OVERHEAD = 72

abstract class CellBase {
  dirty = false
  /** Placeholder while a prefetch reads it; touching it then is an engine bug. */
  loading = false
  size = CELL_OVERHEAD
  /** `key` is the stored key of a value, or the prefix every element / entry of a list or map starts with. */
  constructor(readonly slot: Slot, readonly ns: Namespace, readonly key: Buffer) {}
}

/** One ValueState entry, or ABSENT. */
export class ValueCell extends CellBase {
  readonly kind = 'value'
  v: unknown = ABSENT
  /** TTL clock at the last write (or read, under OnReadAndWrite). */
  t = 0
  /** The database holds an entry for it (so clearing it needs a delete). */
  onDisk = false
}

/**
 * A whole list. `items[i]` is stored under sequence number `seqs[i]`; items before `flushed` are
 * on disk. `replaced` means the list was rewritten (delete range, then put every item); `dropped`
 * are sequence numbers to delete (expired elements).
 */
export class ListCell extends CellBase {
  readonly kind = 'list'
  items: unknown[] = []
  times: number[] = []
  seqs: number[] = []
  nextSeq = 0
  flushed = 0
  replaced = false
  /** Every item must be written again (TTL refreshed on read). */
  rewrite = false
  dropped: number[] = []
}

/** A whole map: live entries by map key, plus what the next flush deletes and puts. */
export class MapCell extends CellBase {
  readonly kind = 'map'
  m = new Map<unknown, MapEntry>()
  /** Entries taken out since the last flush that are on disk. */
  removed: MapEntry[] = []
  /** Entries put since the last flush (each once; skipped if no longer live). */
  changed: MapEntry[] = []
  /** clear() ran: the next flush deletes the whole range before its puts. */
  cleared = false
  /** The database may hold entries of this map. */
  stored = false
}

/** A resident (key, namespace) of one state. */
export type Cell = ValueCell | ListCell | MapCell

/** One MapState entry: the caller's key `k`, its JS Map key `mk`, the value and its TTL clock. */
export class MapEntry {
  /** Encoded user key, computed once when first needed (the stored key is built from it at each write). */
  ek: string | null = null
  onDisk = false
  queued = false
  size = 0
  constructor(readonly k: unknown, public v: unknown, public t: number, readonly mk: unknown) {}
}

/** Object user keys (e.g. rows) are kept under their encoding; the prefix is a lone surrogate, so it cannot collide with text. */
const OBJECT_KEY_PREFIX = '\udfff'

/** The JS Map key of a user key: primitives as they are, objects by encoding (as the heap backend does). */
export function mapKeyOf(k: unknown): unknown {
  if (typeof k !== 'object' || k === null) return k
  return OBJECT_KEY_PREFIX + encodeKey(Array.isArray(k) ? k : [k])
}

/** What the state handles need from the backend. */
export interface CacheHost {
  readonly currentKey: KeyRef | undefined
  readonly ttlNow: number
  /** Approximate live entries (+1 on create, −1 on delete). */
  liveEntries: number
  /** Writes (update, add, put) since the last write batch: what deferred write-back holds in memory. */
  changes: number
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
