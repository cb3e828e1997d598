// Lets generator sources give timers, I/O and signal handlers a turn: a reader whose next() always
// resolves at once would otherwise keep a consuming loop on microtasks only, and Ctrl-C would never run.

/** Says when a busy reader should await one macrotask turn (every `everyMs` milliseconds at most). */
export class EventLoopYielder {
  private last = performance.now()

  constructor(private readonly everyMs = 20) {}

  /** A promise resolving on the next event-loop turn when one is due, else null. */
  due(): Promise<void> | null {
    const now = performance.now()
    if (now - this.last < this.everyMs) return null
    this.last = now
    return new Promise(resolve => setImmediate(resolve))
  }
}
