// An exactly-once upsert sink's output between two checkpoints, compacted by key as rows arrive
// ('sink.compact-by-key'): a consumer folds the topic by key, so of one checkpoint's rows only each
// key's last one matters. The rows are kept and only the survivors are turned into messages when the
// checkpoint seals them, as Flink's reducing upsert writer serializes only the row it keeps per key:
// in an aggregate's output most rows are replaced by a later one of their key before the checkpoint,
// and encoding them (the value's JSON above all) was a large part of the sink's CPU and garbage.
import { isPlainKeyValue } from '../../../common/values.js'
import type { Batch, Row } from '../../../core/batch.js'
import type { Message, MessageEncoder } from './messages.js'

export class CompactingBuffer {
  /** Rows in arrival order; a row replaced by a later one of its key is a hole (undefined). */
  private rows: (Row | undefined)[] = []
  private kinds: number[] = []
  /** Each row's message key when it was encoded on arrival; undefined: encoded when taken. */
  private keys: (string | null | undefined)[] = []
  /**
   * Rows whose key columns are all plain values (see plainKey): the first key column's value → the
   * index of the latest row of its key, or those of its keys (several keys sharing the first value).
   * Telling keys apart by their values costs no encoding per row; the key is encoded only for the
   * rows taken. (An aggregate's output repeats keys most: the message key's JSON, built and hashed
   * for every row, was most of this buffer's CPU.)
   */
  private byValue = new Map<unknown, number | number[]>()
  /** Other rows (NaN, -0, objects in key columns): the message key → the index of its latest row. */
  private byKey = new Map<string | null, number>()
  private kept = 0
  private readonly keyColumns: readonly number[]

  constructor(private readonly encoder: MessageEncoder) {
    this.keyColumns = encoder.keyColumns
  }

  /** Rows kept (one per key), i.e. the messages take() gives. */
  get size(): number {
    return this.kept
  }

  add(batch: Batch): void {
    const { rows, kinds } = batch
    const encoder = this.encoder
    const columns = this.keyColumns
    for (let r = 0; r < rows.length; r++) {
      const kind = kinds === null ? 0 : kinds[r]!
      if (encoder.skips(kind)) continue
      const row = rows[r]!
      const at = this.rows.length
      let before: number | undefined
      if (columns.length > 0 && plainKey(row, columns)) {
        before = this.replaceByValue(row, at)
        this.keys.push(undefined)
      } else {
        const key = encoder.keyOf(row, kind)
        before = this.byKey.get(key)
        this.byKey.set(key, at)
        this.keys.push(key)
      }
      if (before !== undefined) this.rows[before] = undefined
      else this.kept++
      this.rows.push(row)
      this.kinds.push(kind)
    }
  }

  /** Each key's last message, in the order of those last rows; the buffer is empty afterwards. */
  take(): Message[] {
    const out: Message[] = []
    const { rows, kinds, keys } = this
    const encoder = this.encoder
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]
      if (row === undefined) continue
      const kind = kinds[i]!
      const key = keys[i]
      out.push(encoder.message(row, kind, key === undefined ? encoder.keyOf(row, kind) : key))
    }
    this.rows = []
    this.kinds = []
    this.keys = []
    this.byValue = new Map()
    this.byKey = new Map()
    this.kept = 0
    return out
  }

  /** Records row `at` as the latest of its key; returns the index of the row it replaces, if any. */
  private replaceByValue(row: Row, at: number): number | undefined {
    const columns = this.keyColumns
    const v = row[columns[0]!]
    const found = this.byValue.get(v)
    if (found === undefined) {
      this.byValue.set(v, at)
      return undefined
    }
    if (typeof found === 'number') {
      if (sameKey(this.rows[found]!, row, columns)) {
        this.byValue.set(v, at)
        return found
      }
      this.byValue.set(v, [found, at])
      return undefined
    }
    for (let k = 0; k < found.length; k++) {
      const before = found[k]!
      if (sameKey(this.rows[before]!, row, columns)) {
        found[k] = at
        return before
      }
    }
    found.push(at)
    return undefined
  }
}

/**
 * Whether every key column of `row` holds a plain value (isPlainKeyValue), whose identity is its
 * message key's. (Finer than the message key is safe: two rows of one message key kept apart are
 * both written, in the order of their rows, so a consumer folding by key still ends at the later one.)
 */
function plainKey(row: Row, columns: readonly number[]): boolean {
  for (let c = 0; c < columns.length; c++) if (!isPlainKeyValue(row[columns[c]!])) return false
  return true
}

/** Whether the key columns after the first are equal in two rows of plain keys. */
function sameKey(a: Row, b: Row, columns: readonly number[]): boolean {
  for (let c = 1; c < columns.length; c++) if (a[columns[c]!] !== b[columns[c]!]) return false
  return true
}
