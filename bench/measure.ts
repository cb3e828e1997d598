// What the benchmarks measure besides time: CPU seconds of a thread, and peak memory.
import { readdirSync, readFileSync } from 'node:fs'
import v8 from 'node:v8'

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

/** CPU seconds of every thread of this process, summed per thread name (the main thread as "… main"): libuv's pool, RocksDB's threads, V8's. */
export function cpuSecondsByThreadName(): Record<string, number> {
  const out: Record<string, number> = {}
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
    const name = `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}${tid === String(process.pid) ? ' main' : ''}`
    out[name] = +((out[name] ?? 0) + (threadCpuSeconds(tid) ?? 0)).toFixed(2)
  }
  return out
}

/**
 * Peak RSS and heap in bytes. The RSS is the kernel's high-water mark for the process (exact, and
 * free to read); the heap is sampled every 100 ms from construction until stop(). (Sampling both
 * with process.memoryUsage() every 20 ms took ~1% of the processing thread's time.)
 */
export class PeakMemory {
  rss = 0
  heap = 0
  private readonly timer = setInterval(() => this.sample(), 100)

  sample(): void {
    const used = v8.getHeapStatistics().used_heap_size
    if (used > this.heap) this.heap = used
  }

  /** Stops sampling after a last sample, and reads the peak RSS. */
  stop(): void {
    clearInterval(this.timer)
    this.sample()
    this.rss = process.resourceUsage().maxRSS * 1024
  }
}

/**
 * CPU seconds of the threads of this process that a job started (its worker threads, and RocksDB's
 * flush and compaction threads, told apart by name: those that appear after construction), sampled
 * every 100 ms from /proc since a thread's figures go with it when it ends (only the new threads are
 * read then: a sample costs ~0.1 ms), with the CPU the threads that were there before (the job's own
 * thread aside: V8's GC and compiler helpers, libuv's pool, which runs RocksDB's reads and writes and
 * its write-ahead log) used meanwhile. Empty figures where there is no /proc.
 */
export class ThreadCpu {
  private readonly before: Map<string, number>
  private readonly started = new Map<string, number>()
  /** Names of the started threads, read once each. */
  private readonly names = new Map<string, string>()
  private readonly timer = setInterval(() => this.sample(), 100)

  constructor() {
    this.before = this.read(null)
  }

  /** The CPU seconds of every thread but the job's and those `except` names. */
  private read(except: ReadonlyMap<string, number> | null): Map<string, number> {
    const out = new Map<string, number>()
    try {
      for (const tid of readdirSync('/proc/self/task')) {
        if (tid === String(process.pid) || except?.has(tid)) continue
        const cpu = threadCpuSeconds(tid)
        if (cpu !== undefined) out.set(tid, cpu)
      }
    } catch {
      // no /proc
    }
    return out
  }

  sample(): void {
    for (const [tid, cpu] of this.read(this.before)) {
      this.started.set(tid, cpu)
      if (!this.names.has(tid)) this.names.set(tid, threadName(tid))
    }
  }

  /**
   * Stops sampling after a last sample: the started threads' CPU seconds (RocksDB's, named
   * `rocksdb:high…` for flushes and `rocksdb:low…` for compactions, apart; the rest in order of id),
   * and the others' (the job's thread excluded).
   */
  stop(): { workers: number[]; rocksdb: { flush: number; compaction: number }; helpers: number } {
    clearInterval(this.timer)
    this.sample()
    const rocksdb = { flush: 0, compaction: 0 }
    const workers: number[] = []
    for (const [tid, cpu] of [...this.started].sort((a, b) => Number(a[0]) - Number(b[0]))) {
      const name = this.names.get(tid) ?? ''
      if (name.startsWith('rocksdb:high')) rocksdb.flush += cpu
      else if (name.startsWith('rocksdb:low')) rocksdb.compaction += cpu
      else workers.push(+cpu.toFixed(2))
    }
    let helpers = 0
    for (const [tid, cpu] of this.read(this.started)) helpers += cpu - (this.before.get(tid) ?? 0)
    return { workers, rocksdb: { flush: +rocksdb.flush.toFixed(2), compaction: +rocksdb.compaction.toFixed(2) }, helpers: +helpers.toFixed(2) }
  }
}

/** A thread's name (the kernel's `comm`), '' when unreadable. */
function threadName(tid: string): string {
  try {
    return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}
