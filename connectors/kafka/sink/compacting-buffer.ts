// An exactly-once upsert sink's output between two checkpoints, compacted by key as rows arrive
// ('sink.compact-by-key'): a consumer folds the topic by key, so of one checkpoint's rows only each
// key's last one matters. The rows are kept and only the survivors are turned into messages when the
// checkpoint seals them, as Flink's reducing upsert writer serializes only the row it keeps per key:
// in an aggregate's output most rows are replaced by a later one of their key before the checkpoint,
// and encoding them (the value's JSON above all) was a large part of the sink's CPU and garbage.
import type { Batch, Row } from '../../../core/batch.js'
import type { Message, MessageEncoder } from './messages.js'

export class CompactingBuffer {
  /** Rows in arrival order; a row replaced by a later one of its key is a hole (undefined). */
  private rows: (Row | undefined)[] = []
  private kinds: number[] = []
  private keys: (string | null)[] = []
  /** Each key's latest row, as an index into the arrays above. */
  private latest = new Map<string | null, number>()

  constructor(private readonly encoder: MessageEncoder) {}

  /** Rows kept (one per key), i.e. the messages take() gives. */
  get size(): number {
    return this.latest.size
  }

  add(batch: Batch): void {
    const { rows, kinds } = batch
    const encoder = this.encoder
    for (let r = 0; r < rows.length; r++) {
      const kind = kinds === null ? 0 : kinds[r]!
      if (encoder.skips(kind)) continue
      const row = rows[r]!
      const key = encoder.keyOf(row, kind)
      const at = this.rows.length
      const before = this.latest.get(key)
      if (before !== undefined) this.rows[before] = undefined
      this.latest.set(key, at)
      this.rows.push(row)
      this.kinds.push(kind)
      this.keys.push(key)
    }
  }

  /** Each key's last message, in the order of those last rows; the buffer is empty afterwards. */
  take(): Message[] {
    const out: Message[] = []
    const { rows, kinds, keys } = this
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]
      if (row !== undefined) out.push(this.encoder.message(row, kinds[i]!, keys[i]!))
    }
    this.rows = []
    this.kinds = []
    this.keys = []
    this.latest = new Map()
    return out
  }
}
