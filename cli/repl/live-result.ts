// A running SELECT's result as the REPL shows it. Table mode keeps the current rows, retractions
// applied (-U/-D remove a row of equal values, a +U right after a -U takes its place, so an updated
// row stays where it was); changelog mode keeps the changes as they came. Both keep at most
// 'sql-client.display.max-rows', dropping the oldest, as Flink's SQL client does.
import { ROW_KIND_SHORT, RowKind, formatValue, type Batch, type Field } from '../../index.js'

export type LiveMode = 'table' | 'changelog'

export class LiveResult {
  /** Table mode: one slot per row, null where a row was retracted (compacted now and then). */
  private slots: (readonly string[] | null)[] = []
  /** Table mode: the slots holding each row's values, oldest first. */
  private readonly index = new Map<string, number[]>()
  private live = 0
  /** The first slot that may hold a row (rows before it were dropped or retracted). */
  private head = 0
  /** The slot a -U just emptied, for the +U that follows it. */
  private updated: number | undefined
  /** Changes received, of every kind. */
  changes = 0
  /** Rows were dropped to keep max-rows. */
  capped = false
  readonly columns: readonly string[]

  constructor(readonly schema: readonly Field[], readonly mode: LiveMode, readonly maxRows: number) {
    this.columns = mode === 'changelog' ? ['op', ...schema.map(f => f.name)] : schema.map(f => f.name)
  }

  /** Rows held now. */
  get size(): number {
    return this.live
  }

  apply(batch: Batch): void {
    for (let i = 0; i < batch.rows.length; i++) {
      const kind = batch.kinds === null ? RowKind.INSERT : batch.kinds[i]!
      const cells = this.schema.map((f, j) => formatValue(batch.rows[i]![j], f.type, '<NULL>'))
      if (this.mode === 'changelog') this.add([ROW_KIND_SHORT[kind] ?? '?', ...cells], undefined)
      else if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) this.add(cells, kind === RowKind.UPDATE_AFTER ? this.updated : undefined)
      else this.updated = this.retract(cells)
      if (kind !== RowKind.UPDATE_BEFORE) this.updated = undefined
    }
    this.changes += batch.rows.length
    if (this.slots.length > 2 * this.live + 1024) this.compact()
  }

  /** Up to `count` rows from the `offset`-th row held, oldest first. */
  rows(offset: number, count: number): (readonly string[])[] {
    const out: (readonly string[])[] = []
    let seen = 0
    for (let s = this.head; s < this.slots.length && out.length < count; s++) {
      const row = this.slots[s]
      if (row === null || row === undefined) continue
      if (seen++ >= offset) out.push(row)
    }
    return out
  }

  private add(cells: readonly string[], slot: number | undefined): void {
    if (slot !== undefined && slot >= this.head && this.slots[slot] === null) this.slots[slot] = cells
    else {
      slot = this.slots.length
      this.slots.push(cells)
    }
    if (this.mode === 'table') {
      const key = keyOf(cells)
      const at = this.index.get(key)
      if (at === undefined) this.index.set(key, [slot])
      else {
        at.push(slot)
        at.sort((a, b) => a - b)
      }
    }
    this.live++
    if (this.live > this.maxRows) this.dropOldest()
  }

  /** Removes the newest row equal to `cells`; its slot, or undefined when no such row is held. */
  private retract(cells: readonly string[]): number | undefined {
    const key = keyOf(cells)
    const at = this.index.get(key)
    const slot = at?.pop()
    if (slot === undefined) return undefined
    if (at!.length === 0) this.index.delete(key)
    this.slots[slot] = null
    this.live--
    return slot
  }

  private dropOldest(): void {
    while (this.slots[this.head] === null) this.head++
    const row = this.slots[this.head]!
    if (this.mode === 'table') {
      const key = keyOf(row)
      const at = this.index.get(key)!
      at.shift()
      if (at.length === 0) this.index.delete(key)
    }
    this.slots[this.head++] = null
    this.live--
    this.capped = true
  }

  /** Drops emptied slots; the index is rebuilt with the new slot numbers. */
  private compact(): void {
    const kept = this.rows(0, this.live)
    this.slots = [...kept]
    this.head = 0
    this.updated = undefined
    this.index.clear()
    if (this.mode === 'table') {
      kept.forEach((row, slot) => {
        const key = keyOf(row)
        const at = this.index.get(key)
        if (at === undefined) this.index.set(key, [slot])
        else at.push(slot)
      })
    }
  }
}

function keyOf(cells: readonly string[]): string {
  return cells.join('\u0000')
}
