// 'scan.watermark.idle-timeout' for a Kafka source: a partition that has delivered no message for
// that long is idle, and the reader says so (an empty chunk with `idle`), so it stops holding the
// source's watermark back — the watermark is the minimum over the partitions, and one without data
// would otherwise stall every window. It counts again as soon as it gives rows. As in Flink, a
// partition is idle from the start when nothing arrives for it within the timeout.

export class IdleSplits {
  /** Per split: when it last delivered messages (or was added). */
  private readonly lastActive: number[] = []
  /** Per split: said to be idle, and nothing delivered since. */
  private readonly idle: boolean[] = []
  /** The earliest time a split not yet idle may become so. */
  private due = Infinity

  constructor(private readonly timeoutMs: number) {}

  add(now: number): void {
    this.lastActive.push(now)
    this.idle.push(false)
    this.due = Math.min(this.due, now + this.timeoutMs)
  }

  /** Messages arrived for `split`. */
  active(split: number, now: number): void {
    this.lastActive[split] = now
    if (this.idle[split]) {
      this.idle[split] = false
      this.due = Math.min(this.due, now + this.timeoutMs)
    }
  }

  /** Milliseconds until a split may become idle (Infinity: none can). */
  waitMs(now: number): number {
    return Math.max(0, this.due - now)
  }

  /**
   * The splits that have just become idle: none delivered for the timeout, and `state` says it is
   * waiting for data (not 'busy': messages of it still buffered; an 'ended' split is never idle).
   */
  poll(now: number, state: (split: number) => 'waiting' | 'busy' | 'ended'): number[] {
    if (now < this.due) return []
    const found: number[] = []
    let due = Infinity
    for (let s = 0; s < this.lastActive.length; s++) {
      if (this.idle[s]) continue
      const st = state(s)
      if (st === 'ended') {
        this.idle[s] = true // and never reported: it holds nothing back
        continue
      }
      if (st === 'busy') this.lastActive[s] = now
      const at = this.lastActive[s]! + this.timeoutMs
      if (at <= now) {
        this.idle[s] = true
        found.push(s)
      } else due = Math.min(due, at)
    }
    this.due = due
    return found
  }
}
