// Measures the Kafka source end to end in a job: N JSON bid-like messages in a topic of 4 partitions
// (produced before the clock starts), read by `SELECT … FROM kafka table` into a blackhole sink,
// bounded at the latest offsets. Prints events/s (wall clock) and CPU-µs/event of this process (the
// broker's CPU is not counted). Usage: node dist/bench/kafka-source-speed.js [N]
import { Session } from '../engine/session.js'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Kafka, logLevel } from 'kafkajs'

const N = Number(process.argv[2] ?? 1_000_000)
const PARTITIONS = 4

// A broker of its own in a temporary folder (scripts/kafka-server.sh, from the checkout above dist/).
const root = fileURLToPath(new URL('../..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'weir-kafka-bench-'))
const script = join(root, 'scripts', 'kafka-server.sh')
const bootstrap = execFileSync('bash', [script, 'start', dir], { cwd: root, encoding: 'utf8' }).trim().split('\n').at(-1)!
try {
  const kafka = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic: 'bids', numPartitions: PARTITIONS }], waitForLeaders: true })
  await admin.disconnect()
  const producer = kafka.producer()
  await producer.connect()
  const base = Date.UTC(2024, 0, 1)
  for (let i = 0; i < N; i += 10_000) {
    const messages = []
    for (let j = i; j < Math.min(N, i + 10_000); j++) {
      messages.push({
        partition: j % PARTITIONS,
        value: `{"auction":${1000 + (j % 997)},"bidder":${j % 10007},"price":${(j * 7919) % 100000},"channel":"channel-${j % 5}",` +
          `"url":"https://www.nexmark.com/item.htm?query=${j % 100}","dateTime":"${
            new Date(base + j).toISOString().replace('T', ' ').slice(0, 23)
          }","extra":""}`,
      })
    }
    await producer.send({ topic: 'bids', messages })
  }
  await producer.disconnect()
  for (const run of [1, 2]) {
    const session = new Session({ println: () => undefined })
    const cpu = process.cpuUsage()
    const start = performance.now()
    await session.executeSql(`
      CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING)
        WITH ('connector' = 'kafka', 'topic' = 'bids', 'properties.bootstrap.servers' = '${bootstrap}', 'format' = 'json',
              'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
      CREATE TABLE sink (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING)
        WITH ('connector' = 'blackhole');
      INSERT INTO sink SELECT * FROM bid;`)
    const [m] = await session.awaitJobs()
    const seconds = (performance.now() - start) / 1000
    const used = process.cpuUsage(cpu)
    if (m!.sourceRecordsRead !== N) throw new Error(`read ${m!.sourceRecordsRead} of ${N}`)
    console.log(
      `run ${run}: ${N} messages in ${seconds.toFixed(2)} s: ${Math.round(N / seconds)} events/s, ${((used.user + used.system) / N).toFixed(2)} CPU-µs/event`,
    )
  }
} finally {
  execFileSync('bash', [script, 'stop', dir], { cwd: root })
  rmSync(dir, { recursive: true, force: true })
}
