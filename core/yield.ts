// A loop fed by readers whose next() resolves at once (a generator, a file's block already read) runs
// on microtasks only: it gives timers, I/O and signal handlers (Ctrl-C) a turn now and then. The loops
// that read sources do (runtime/scheduler.ts, worker-sources.ts), not the readers: a reader that took
// a turn of its own now and then was not ready meanwhile, and the other sources' ready chunks were
// handed on without it (two generators into one UNION ALL did not take turns).
// Paced generators (datagen's 'rows-per-second', nexmark's 'max-emit-speed' = false) sleep until rows are due.

/** Says when a busy loop should await one macrotask turn (every `everyMs` milliseconds at most). */
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

/**
 * Waits until a paced reader's next rows are due, `wait` ms from now; false once `signal` has aborted.
 * Rows due within the millisecond (Date.now()'s step) are due now: a sleep of a fraction of one is a
 * timer's whole millisecond, in which the other sources' reads would be handed on without this one.
 */
export async function untilDue(wait: number, signal: AbortSignal): Promise<boolean> {
  if (wait >= 1) return sleep(wait, signal)
  return !signal.aborted
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
