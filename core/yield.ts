// Lets generator sources give timers, I/O and signal handlers a turn: a reader whose next() always
// resolves at once would otherwise keep a consuming loop on microtasks only, and Ctrl-C would never run.
// Paced generators (datagen's 'rows-per-second', nexmark's 'max-emit-speed' = false) sleep until rows are due.

/** Says when a busy reader should await one macrotask turn (every `everyMs` milliseconds at most). */
export class EventLoopYielder {
  private last = performance.now()

  constructor(private readonly everyMs = 20) {}

  /**
   * Waits until a paced reader's next rows are due, `wait` ms from now (a reader that is behind, or not
   * paced, gives the event loop its turn when one is due instead); false once `signal` has aborted.
   */
  async waitFor(wait: number, signal: AbortSignal): Promise<boolean> {
    if (wait > 0) return sleep(wait, signal)
    const turn = this.due()
    if (turn !== null) await turn
    return !signal.aborted
  }

  /** A promise resolving on the next event-loop turn when one is due, else null. */
  due(): Promise<void> | null {
    const now = performance.now()
    if (now - this.last < this.everyMs) return null
    this.last = now
    return new Promise(resolve => setImmediate(resolve))
  }
}

/** Resolves after `ms`, or early (with false) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise(resolve => {
    const onAbort = (): void => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
