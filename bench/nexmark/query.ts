// Runs one benchmark query in this process and prints one JSON line of figures (used by run.ts).
import { Session } from '../../engine/session.js'
import { benchQueries } from './queries.js'

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

const session = new Session({ println: () => undefined })
const start = process.hrtime.bigint()
await session.executeSql(query.sql)
const [metrics] = await session.awaitJobs()
const seconds = Number(process.hrtime.bigint() - start) / 1e9
clearInterval(timer)
sample()
const stateEntries = Object.values(metrics!.stateEntries).reduce((a, b) => a + b, 0)
process.stdout.write(JSON.stringify({
  name: query.name, what: query.what, events: query.events, seconds,
  eventsPerSecond: query.events / seconds, rowsOut: Object.values(metrics!.sinkRows).reduce((a, b) => a + b, 0),
  peakRssMb: peakRss / 2 ** 20, peakHeapMb: peakHeap / 2 ** 20, stateEntries,
}) + '\n')
