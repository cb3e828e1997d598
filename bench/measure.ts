// What the benchmarks measure besides time: CPU seconds of a thread, and peak memory.
import { readFileSync } from 'node:fs'

/**
 * CPU seconds (user + system) of one thread of this process, the main (JS) thread by default: less
 * disturbed by other load on the machine than wall time. Read from /proc; undefined where there is none.
 */
export function threadCpuSeconds(tid: string | number = process.pid): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/** Peak RSS and heap in bytes, sampled every 20 ms from construction until stop(). */
export class PeakMemory {
  rss = 0
  heap = 0
  private readonly timer = setInterval(() => this.sample(), 20)

  sample(): void {
    const m = process.memoryUsage()
    if (m.rss > this.rss) this.rss = m.rss
    if (m.heapUsed > this.heap) this.heap = m.heapUsed
  }

  /** Stops sampling after a last sample. */
  stop(): void {
    clearInterval(this.timer)
    this.sample()
  }
}
