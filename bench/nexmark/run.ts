// `npm run bench`: each query in a fresh Node process (compiled JS, one core), generator included:
// the Nexmark queries on heap state, q11 and q17 again on RocksDB, q17 with a checkpoint every second,
// and a GROUP BY over 10M keys on RocksDB with a 64 MB cache; prints events/s, peak memory and state
// size per query; then incremental checkpoints of ~1 GB of RocksDB state, the
// MapState-vs-ValueState<Map> state benchmark, and the storage floor of count-10M.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchQueries } from './queries.js'

const scale = Number(process.env['WEIR_BENCH_SCALE'] ?? '1')
const only = process.argv.slice(2)
// `npm run bench -- kafka [q5|q17] [throughput|latency]`: Kafka to Kafka, exactly once, with a broker of its own (bench/kafka/run.ts).
if (only[0] === 'kafka') {
  execFileSync(process.execPath, [fileURLToPath(new URL('../kafka/run.js', import.meta.url)), ...only.slice(1)], { stdio: 'inherit' })
  process.exit(0)
}
// `npm run bench -- repl`: the REPL's live table, a frame's time with 10,000 rows and 1,000 changes/s (bench/repl/frame.ts).
if (only[0] === 'repl') {
  execFileSync(process.execPath, [fileURLToPath(new URL('../repl/frame.js', import.meta.url))], { stdio: 'inherit' })
  process.exit(0)
}
const script = fileURLToPath(new URL('./query.js', import.meta.url))

interface Result {
  name: string
  what: string
  events: number
  seconds: number
  eventsPerSecond: number
  rowsOut: number
  peakRssMb: number
  peakHeapMb: number
  stateEntries: number
  checkpoints: number
  /** The process's CPU time (every thread), and its main thread's: per event, the figure that moves least with the host's load. */
  cpuSeconds: number
  /** Absent where the platform has no per-thread CPU clock. */
  mainThreadCpuSeconds?: number
}

/** CPU-µs per event, the process's and (in brackets) its main thread's. */
function cpuPerEvent(r: Result): string {
  const main = r.mainThreadCpuSeconds === undefined ? '' : ` (${((r.mainThreadCpuSeconds * 1e6) / r.events).toFixed(2)})`
  return `${((r.cpuSeconds * 1e6) / r.events).toFixed(2)}${main}`
}

const results: Result[] = []
for (const q of benchQueries(scale)) {
  if (only.length && !only.includes(q.name)) continue
  const out = execFileSync(process.execPath, [script, q.name, String(scale)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as Result
  results.push(r)
  process.stdout.write(`${r.name.padEnd(4)} ${Math.round(r.eventsPerSecond).toLocaleString('en-US').padStart(11)} events/s  ` +
    `${r.events.toLocaleString('en-US')} events in ${r.seconds.toFixed(2)} s  CPU-µs/event ${cpuPerEvent(r)}  peak RSS ${r.peakRssMb.toFixed(0)} MB  ` +
    `heap ${r.peakHeapMb.toFixed(0)} MB  state ${r.stateEntries.toLocaleString('en-US')} entries  rows out ${r.rowsOut.toLocaleString('en-US')}` +
    `${r.checkpoints ? `  ${r.checkpoints} checkpoints` : ''}  (${r.what})\n`)
}
process.stdout.write(
  '\n| query | what | events | events/s | CPU-µs/event (main thread) | peak RSS | state entries at end |\n|---|---|---:|---:|---:|---:|---:|\n',
)
for (const r of results) {
  process.stdout.write(
    `| ${r.name} | ${r.what} | ${r.events.toLocaleString('en-US')} | ${Math.round(r.eventsPerSecond).toLocaleString('en-US')} | ${cpuPerEvent(r)} | ${
      r.peakRssMb.toFixed(0)
    } MB | ${r.stateEntries.toLocaleString('en-US')} |\n`,
  )
}

// Incremental RocksDB checkpoints of ~1 GB of state (× scale) with 1% of keys changed, and restore
// time (bench/checkpoint/incremental.ts).
if (only.length === 0 || only.includes('checkpoint')) {
  const checkpointScript = fileURLToPath(new URL('../checkpoint/incremental.js', import.meta.url))
  process.stdout.write('\n')
  execFileSync(process.execPath, [checkpointScript], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, WEIR_KEYS: String(Math.round(4_000_000 * scale)) },
  })
}

// The keyed-state lesson: MapState<product, count> against ValueState<Map<product, count>>, and the
// RocksDB backend's raw state-operation rates (bench/state/rocksdb-speed.ts).
if (only.length === 0 || only.includes('state')) {
  const stateScript = fileURLToPath(new URL('../state/rocksdb-speed.js', import.meta.url))
  for (const which of ['map', 'hot']) {
    process.stdout.write('\n')
    execFileSync(process.execPath, [stateScript, which], { stdio: ['ignore', 'inherit', 'inherit'] })
  }
}

// What count-10M's reads and writes cost RocksDB with no engine around them (bench/state/storage-floor.ts):
// the least any engine on this storage pays for that workload.
if (only.length === 0 || only.includes('floor')) {
  const floorScript = fileURLToPath(new URL('../state/storage-floor.js', import.meta.url))
  process.stdout.write('\nstorage floor of count-10M (RocksDB alone):\n')
  execFileSync(process.execPath, [floorScript, String(Math.round(20_000_000 * scale))], { stdio: ['ignore', 'inherit', 'inherit'] })
}
