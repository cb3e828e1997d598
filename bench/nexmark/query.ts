// Runs one benchmark query in this process and prints one JSON line of figures (used by run.ts).
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Session } from '../../engine/session.js'
import { stateBackendFor } from '../../state/backends.js'
import { PeakMemory, ThreadCpu, threadCpuSeconds } from '../measure.js'
import { benchQueries, BENCH_CHECKPOINTS } from './queries.js'

const [name, scaleArg] = process.argv.slice(2)
const query = benchQueries(Number(scaleArg ?? '1')).find(q => q.name === name)
if (!query) {
  process.stderr.write(`unknown query ${name}\n`)
  process.exit(2)
}

// The clock starts with the engine's code loaded, as the SQL parser already is by the imports above: the
// state backend's modules are imported on a job's first subtask, and RocksDB's (two dozen modules and its
// native binding, ~40–60 ms once per process) would otherwise count against that one run's events/s.
await stateBackendFor(query.backend, true)
const peak = new PeakMemory()

rmSync(BENCH_CHECKPOINTS, { recursive: true, force: true })
// Bytes of keyed state each checkpoint stored itself (what it named of earlier ones not counted).
let stateBytesStored = 0
const onCheckpoint = (_job: string, _id: number, location: string): void => {
  const manifest = JSON.parse(readFileSync(join(fileURLToPath(location), '_metadata'), 'utf8')) as {
    operators: Record<string, { subtasks: { state?: { uploaded?: { bytes?: number; storedSize?: number }; entries?: { bytes: number } } }[] }>
  }
  for (const op of Object.values(manifest.operators)) {
    for (const { state } of op.subtasks) stateBytesStored += state?.uploaded?.bytes ?? state?.uploaded?.storedSize ?? state?.entries?.bytes ?? 0
  }
}
const session = new Session({ println: () => undefined, recovery: { fresh: true }, onCheckpoint })
const threads = new ThreadCpu()
const cpu0 = process.cpuUsage()
const main0 = threadCpuSeconds()
const start = process.hrtime.bigint()
await session.executeSql(query.sql)
const [metrics] = await session.awaitJobs()
const seconds = Number(process.hrtime.bigint() - start) / 1e9
const cpu = process.cpuUsage(cpu0)
const main1 = threadCpuSeconds()
const { workers, rocksdb, helpers } = threads.stop()
peak.stop()
rmSync(BENCH_CHECKPOINTS, { recursive: true, force: true })
const stateEntries = Object.values(metrics!.stateEntries).reduce((a, b) => a + b, 0)
process.stdout.write(JSON.stringify({
  name: query.name,
  what: query.what,
  events: query.events,
  seconds,
  eventsPerSecond: query.events / seconds,
  rowsOut: Object.values(metrics!.sinkRows).reduce((a, b) => a + b, 0),
  peakRssMb: peak.rss / 2 ** 20,
  peakHeapMb: peak.heap / 2 ** 20,
  stateEntries,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  mainThreadCpuSeconds: main0 === undefined || main1 === undefined ? undefined : main1 - main0,
  // The worker threads' CPU seconds, and the other threads' (V8's GC and compiler helpers, libuv's pool).
  workerThreadCpuSeconds: workers,
  // RocksDB's flush and compaction threads (its reads, writes and write-ahead log run in libuv's pool, a helper).
  rocksdbThreadCpuSeconds: rocksdb,
  helperThreadCpuSeconds: helpers,
  checkpoints: metrics!.checkpointsCompleted,
  stateBytesStored,
}) + '\n')
