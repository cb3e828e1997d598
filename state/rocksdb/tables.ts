// The states of one RocksDB backend: a table per state name, with the id that prefixes its stored
// keys. Ids are kept in the database itself (a metadata entry per state), so a restored or kept
// database maps its keys back to the same names.
import type RocksDB from 'rocksdb-native'
import { WeirError } from '../../common/errors.js'
import type { StateTtlConfig } from '../../core/keyed-state.js'
import { type Kind, Table } from './cache.js'
import { META_GROUP, prefixEnd } from './codec.js'

const META_STATE = Buffer.from([0xff, 0xff, 0x00, 0x01])
/** The metadata entry of StateTables.listSeq (its decimal digits). */
const META_LIST_SEQ = Buffer.from([0xff, 0xff, 0x00, 0x02])
/**
 * Where listSeq starts: above every sequence number a list numbered from 0 reaches, and above every
 * one a database of an older format holds (they were u32), which has no listSeq entry.
 */
export const FIRST_BLIND_SEQ = 2 ** 32
/** Entries a prefix scan reads per native call. */
export const SCAN_CAPACITY = 1024

export class StateTables {
  readonly byName = new Map<string, Table>()
  readonly list: Table[] = []
  readonly byId: (Table | undefined)[] = []
  /** Metadata entries of tables created since the last write batch (it writes them). */
  pendingMeta: [Buffer, Buffer][] = []
  /**
   * Above every sequence number any list element of this database was ever given: a list that is not
   * resident is appended to blind (cache.ts, ListCell.tail) from here on, above whatever it stores.
   * Every add raises it past the number it gave; it is kept in the database (writeListSeq), so a
   * checkpoint carries it, and a restore that gathers several databases takes the largest.
   */
  listSeq = FIRST_BLIND_SEQ
  /** listSeq as the database holds it (or will, once the write batch that put it is applied). */
  private listSeqWritten = FIRST_BLIND_SEQ
  private nextId = 0
  private namedFor: readonly string[] | null = null
  private namedTables: readonly Table[] = []

  /** The table of a state as an operator declares it: created if new, its TTL as the descriptor says. */
  register(name: string, kind: Kind, ttl: StateTtlConfig | undefined): Table {
    const table = this.table(name, kind)
    table.configure(ttl)
    return table
  }

  /** The table of a state name, created with the next free id (persisted at the next write). */
  table(name: string, kind: Kind): Table {
    let table = this.byName.get(name)
    if (table !== undefined) {
      if (table.kind !== kind) throw WeirError.internal(`state '${name}' is declared as ${kind} state but already exists as ${table.kind} state`)
      return table
    }
    if (this.nextId >= META_GROUP) throw WeirError.internal('too many states in one operator')
    table = this.add(name, kind, this.nextId++)
    this.pendingMeta.push([Buffer.concat([META_STATE, Buffer.from(name, 'utf8')]), Buffer.from(JSON.stringify({ id: table.id, kind }), 'utf8')])
    return table
  }

  /** The tables of these state names (the last list asked for is remembered: requests of one call share theirs). */
  named(names: readonly string[]): readonly Table[] {
    if (names !== this.namedFor) {
      const out: Table[] = []
      for (const name of names) {
        const table = this.byName.get(name)
        if (table !== undefined) out.push(table)
      }
      this.namedFor = names
      this.namedTables = out
    }
    return this.namedTables
  }

  /** State ids and listSeq of a kept or restored database, from its metadata entries. */
  async load(db: RocksDB): Promise<void> {
    for await (const { key, value } of db.iterator({ gte: META_STATE, lt: prefixEnd(META_STATE) }, { capacity: SCAN_CAPACITY })) {
      const { id, kind } = JSON.parse(value.toString('utf8')) as { id: number; kind: Kind }
      this.add(key.subarray(META_STATE.length).toString('utf8'), kind, id)
    }
    for await (const { value } of db.iterator({ gte: META_LIST_SEQ, lt: prefixEnd(META_LIST_SEQ) })) {
      const n = Number(value.toString('utf8'))
      if (!Number.isSafeInteger(n) || n < FIRST_BLIND_SEQ) throw WeirError.internal(`the stored list sequence counter '${value.toString('utf8')}' is not one`)
      this.listSeq = Math.max(this.listSeq, n)
      this.listSeqWritten = this.listSeq
    }
  }

  /** Raises listSeq to at least `seq` (one past a sequence number stored or copied in). */
  raiseListSeq(seq: number): void {
    if (seq > this.listSeq) this.listSeq = seq
  }

  /**
   * Puts listSeq's metadata entry into the write batch being built if it grew since it was last put
   * (the batch then holds it, with every element numbered below it).
   */
  putListSeq(w: { put(key: Uint8Array, value: Uint8Array): void }): void {
    if (this.listSeq === this.listSeqWritten) return
    this.listSeqWritten = this.listSeq
    w.put(META_LIST_SEQ, Buffer.from(String(this.listSeq), 'utf8'))
  }

  private add(name: string, kind: Kind, id: number): Table {
    const table = new Table(name, kind, id)
    this.byName.set(name, table)
    this.list.push(table)
    this.namedFor = null
    this.byId[id] = table
    this.nextId = Math.max(this.nextId, id + 1)
    return table
  }
}
