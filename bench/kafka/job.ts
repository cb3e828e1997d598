// Runs one Kafka benchmark query (queries.ts) in this process, which does nothing else, and prints
// one JSON line of figures: wall seconds from submitting the job to its end (the bounded throughput
// run: the last transaction committed), and the CPU seconds of the whole process and of its main
// (JS) thread. The latency run's job is unbounded: run.ts stops it with SIGTERM.
// Usage (run.ts does this): node dist/bench/kafka/job.js <q5|q17> <bootstrap> <input> <output> <bounded|latency> <checkpoint ms>
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { threadCpuSeconds } from '../measure.js'
import { kafkaQuerySql, type KafkaQueryName } from './queries.js'

const [name, bootstrap, input, output, mode, checkpointMs] = process.argv.slice(2)
const checkpointDir = mkdtempSync(join(tmpdir(), 'weir-kafka-bench-ckpt-'))
process.on('SIGTERM', () => {
  rmSync(checkpointDir, { recursive: true, force: true })
  process.exit(0)
})
const sql = kafkaQuerySql(name as KafkaQueryName, {
  bootstrap: bootstrap!,
  input: input!,
  output: output!,
  checkpointMs: Number(checkpointMs),
  checkpointDir,
  bounded: mode === 'bounded',
  latency: mode === 'latency',
})
const session = new Session({ println: () => undefined, recovery: { fresh: true } })
const cpu0 = process.cpuUsage()
const main0 = threadCpuSeconds()
const start = process.hrtime.bigint()
await session.executeSql(sql)
const [metrics] = await session.awaitJobs()
const seconds = Number(process.hrtime.bigint() - start) / 1e9
const cpu = process.cpuUsage(cpu0)
const main1 = threadCpuSeconds()
rmSync(checkpointDir, { recursive: true, force: true })
process.stdout.write(JSON.stringify({
  seconds,
  events: metrics!.sourceRecordsRead,
  rowsOut: Object.values(metrics!.sinkRows).reduce((a, b) => a + b, 0),
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  mainThreadCpuSeconds: main0 === undefined || main1 === undefined ? null : main1 - main0,
  checkpoints: metrics!.checkpointsCompleted,
}) + '\n')
