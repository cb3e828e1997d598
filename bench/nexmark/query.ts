// Runs one benchmark query in this process and prints one JSON line of figures (used by run.ts).
import { readFileSync } from 'node:fs'
import { Session } from '../../engine/session.js'
import { rmSync } from 'node:fs'
import { benchQueries, BENCH_CHECKPOINTS } from './queries.js'

const [name, scaleArg] = process.argv.slice(2)
const query = benchQueries(Number(scaleArg ?? '1')).find(q => q.name === name)
if (!query) {
  process.stderr.write(`unknown query ${name}\n`)
  process.exit(2)
}

let peakRss = 0
let peakHeap = 0
const sample = (): void => {
  const m = process.memoryUsage()
  if (m.rss > peakRss) peakRss = m.rss
  if (m.heapUsed > peakHeap) peakHeap = m.heapUsed
}
const timer = setInterval(sample, 20)

rmSync(BENCH_CHECKPOINTS, { recursive: true, force: true })
const session = new Session({ println: () => undefined, recovery: { fresh: true } })
/** CPU seconds of the main (JS) thread: less disturbed by other load on the machine than wall time (Linux only). */
const mainThreadCpu = (): number | undefined => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}
const cpu0 = process.cpuUsage()
const main0 = mainThreadCpu()
const start = process.hrtime.bigint()
await session.executeSql(query.sql)
const [metrics] = await session.awaitJobs()
const seconds = Number(process.hrtime.bigint() - start) / 1e9
const cpu = process.cpuUsage(cpu0)
const main1 = mainThreadCpu()
clearInterval(timer)
sample()
rmSync(BENCH_CHECKPOINTS, { recursive: true, force: true })
const stateEntries = Object.values(metrics!.stateEntries).reduce((a, b) => a + b, 0)
process.stdout.write(JSON.stringify({
  name: query.name, what: query.what, events: query.events, seconds,
  eventsPerSecond: query.events / seconds, rowsOut: Object.values(metrics!.sinkRows).reduce((a, b) => a + b, 0),
  peakRssMb: peakRss / 2 ** 20, peakHeapMb: peakHeap / 2 ** 20, stateEntries,
  cpuSeconds: (cpu.user + cpu.system) / 1e6, mainThreadCpuSeconds: main0 === undefined || main1 === undefined ? undefined : main1 - main0, checkpoints: metrics!.checkpointsCompleted,
}) + '\n')
