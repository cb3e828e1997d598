// count-10M at the state level: GROUP BY k over uniform random keys through the RocksDB backend,
// driven as the runtime drives it (batches of 1024: prefetch → value()/update() → flush, deferred
// write-back), without the rest of the engine. Prints events/s, where the main thread's time went,
// CPU seconds (process, main thread, per thread name), GC pauses and peak memory.
// Run on compiled output: `node dist/bench/state/group-count.js [events=2000000] [keys=10000000] [cacheMb=64]`
// (env: WEIR_WRITE_BUFFER_MB; WEIR_PIPELINE=1 prefetches batch N+1 before processing batch N, as the runtime could).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks'
import { valueState, type KeyRef, type PrefetchRequest } from '../../core/keyed-state.js'
import { makeKey } from '../../state/key-encoding.js'
import { RocksDbKeyedStateBackend } from '../../state/rocksdb/index.js'
import { cpuSecondsByThreadName, PeakMemory, threadCpuSeconds } from '../measure.js'
import { seededRandom } from '../../common/random.js'

const MB = 2 ** 20
const BATCH = 1024
const events = Number(process.argv[2] ?? 2_000_000)
const keys = Number(process.argv[3] ?? 10_000_000)
const cacheMb = Number(process.argv[4] ?? 64)
/** Prefetch batch N+1 before processing batch N (as the runtime reads ahead for group aggregates). */
const pipeline = process.env.WEIR_PIPELINE === '1'

const peak = new PeakMemory()
/** Milliseconds of GC pauses by kind (major, minor, incremental, weakcb). */
const gcMs: Record<string, number> = {}
const GC_KINDS: Record<number, string> = {
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
}
new PerformanceObserver(list => {
  for (const e of list.getEntries()) {
    const kind = GC_KINDS[(e as unknown as { detail: { kind: number } }).detail.kind] ?? 'other'
    gcMs[kind] = Math.round((gcMs[kind] ?? 0) + e.duration)
  }
}).observe({ entryTypes: ['gc'] })

const root = await mkdtemp(join(tmpdir(), 'weir-group-count-'))
try {
  const b = await RocksDbKeyedStateBackend.open({
    dir: join(root, 'op'),
    jobName: 'bench',
    operatorId: 'op',
    cacheBytes: cacheMb * MB,
    writeBack: 'deferred',
    writeBufferBytes: process.env.WEIR_WRITE_BUFFER_MB ? Number(process.env.WEIR_WRITE_BUFFER_MB) * MB : undefined,
  })
  const acc = b.getValueState(valueState<number[]>('acc'))
  const keyRng = seededRandom(1)
  const valueRng = seededRandom(2)
  const batchOf = (done: number): KeyRef[] => Array.from({ length: Math.min(BATCH, events - done) }, () => makeKey([1 + Math.floor(keyRng() * keys)]))
  const requestsOf = (batch: readonly KeyRef[]): PrefetchRequest[] => batch.map(key => ({ key, namespace: '' }))
  // Main-thread time: waiting for a batch's prefetch; processing it; flushing it and starting the next prefetch.
  let waiting = 0, processing = 0, flushing = 0, distinct = 0
  const cpu0 = process.cpuUsage()
  const main0 = threadCpuSeconds()!
  const t0 = performance.now()
  let next = batchOf(0)
  let loading = b.prefetch(requestsOf(next))
  for (let done = 0; done < events; done += BATCH) {
    const t1 = performance.now()
    await loading
    const batch = next
    if (pipeline && done + BATCH < events) {
      // The next batch's reads run while this one is processed and flushed.
      next = batchOf(done + BATCH)
      loading = b.prefetch(requestsOf(next))
    }
    const t2 = performance.now()
    for (const key of batch) {
      b.setCurrentKey(key)
      const a = acc.value()
      if (a === undefined) {
        distinct++
        acc.update([1, 1, Math.floor(valueRng() * 1000)])
      } else {
        a[0]++
        a[1]++
        a[2] += Math.floor(valueRng() * 1000)
        acc.update(a)
      }
    }
    const t3 = performance.now()
    await b.flush()
    if (!pipeline && done + BATCH < events) {
      next = batchOf(done + BATCH)
      loading = b.prefetch(requestsOf(next))
    }
    const t4 = performance.now()
    waiting += t2 - t1
    processing += t3 - t2
    flushing += t4 - t3
  }
  await b.sync()
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const mainCpu = threadCpuSeconds()! - main0
  peak.stop()
  const c = b.cacheStats()
  const pct = (x: number): string => `${Math.round((100 * x) / ms)}%`
  console.log(JSON.stringify({
    events,
    keys,
    cacheMb,
    pipeline,
    distinct,
    eventsPerSecond: Math.round(events / (ms / 1000)),
    seconds: +(ms / 1000).toFixed(1),
    cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1),
    mainThreadCpuSeconds: +mainCpu.toFixed(1),
    prefetchWait: pct(waiting),
    process: pct(processing),
    flushAndNextPrefetch: pct(flushing),
    gets: c.gets,
    residentSlots: c.slots,
    peakRssMb: Math.round(peak.rss / MB),
    peakHeapMb: Math.round(peak.heap / MB),
    diskMb: +((await b.diskBytes()) / MB).toFixed(1),
  }))
  console.log(JSON.stringify({ threadCpuSeconds: cpuSecondsByThreadName(), gcMs }))
  await b.destroy()
} finally {
  peak.stop()
  await rm(root, { recursive: true, force: true })
}
