// `npm run bench -- kafka [q5|q17] [throughput|latency]`: Weir between two Kafka topics, exactly once.
//
// It starts a broker of its own (scripts/kafka-server.sh, in a temporary folder; stopped at the end;
// WEIR_KAFKA_BOOTSTRAP=host:port uses a running one instead) and measures two things:
//
// throughput: the bids of 2M Nexmark events (× WEIR_BENCH_SCALE; 1.84M bids, JSON, ~200 B each) are
//   produced to a topic of 4 partitions BEFORE the clock starts. Then each query (queries.ts: q5, a
//   HOP(2 s, 10 s) count per auction into 'kafka'; q17, a per auction and day aggregate into
//   'upsert-kafka') runs in a fresh Node process at parallelism 1, from the topic's first offset to
//   its end as of the start ('scan.bounded.mode' = 'latest-offset'), with a checkpoint every second
//   and the sink exactly-once (each checkpoint's output produced in one transaction after it
//   completes). events/s = bids read / wall seconds from submitting the job until it has ended, i.e.
//   until its last transaction has committed. CPU-µs/event is the CPU time (user + system, all
//   threads) of that Weir process per bid; "main" is its JS thread's share. The broker's CPU (same
//   machine) is not counted. Each query runs twice; both runs are printed.
//
// latency: a producer process (feed.ts) writes bids at a fixed rate (20K/s for 40 s by default,
//   WEIR_KAFKA_RATE, WEIR_KAFKA_SECONDS) with dateTime = the wall clock, into a topic with
//   message.timestamp.type = LogAppendTime (so each record's Kafka timestamp is its append time),
//   while the query runs unbounded with a 1 s checkpoint interval. Each result carries last_append,
//   the largest Kafka timestamp of the bids it aggregates (the latest input that changed it). A
//   read_committed consumer in this process reads the output topic; latency = the time a result is
//   delivered to it − last_append. Results whose last_append falls in the first 10 s (warm-up) are
//   left out. p50 and p99 over the rest. For q5, a window's result can only be emitted once the
//   watermark (dateTime − 4 s, the reference DDL) passes its end, so its latency includes those 4 s
//   by the query's definition; q17's results are due at the next checkpoint.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Kafka, logLevel, type Admin } from 'kafkajs'
import { retrying } from '../../connectors/kafka/retry.js'
import { produceBids } from './bids.js'
import { KAFKA_QUERIES, type KafkaQueryName } from './queries.js'

const PARTITIONS = 4
const scale = Number(process.env['WEIR_BENCH_SCALE'] ?? '1')
const args = process.argv.slice(2)
const queries = KAFKA_QUERIES.filter(q => !args.some(a => a.startsWith('q')) || args.includes(q))
const runThroughput = !args.includes('latency') || args.includes('throughput')
const runLatency = !args.includes('throughput') || args.includes('latency')
const rate = Number(process.env['WEIR_KAFKA_RATE'] ?? 20_000)
const feedSeconds = Number(process.env['WEIR_KAFKA_SECONDS'] ?? 40)
const WARM_UP_MS = 10_000

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url))
const root = here('../../..')
const serverScript = join(root, 'scripts', 'kafka-server.sh')

interface JobFigures {
  seconds: number
  events: number
  rowsOut: number
  cpuSeconds: number
  mainThreadCpuSeconds: number | null
  checkpoints: number
}

async function createTopic(admin: Admin, topic: string, logAppendTime = false): Promise<void> {
  const configEntries = logAppendTime ? [{ name: 'message.timestamp.type', value: 'LogAppendTime' }] : []
  // Retried: right after a topic is created the broker may not serve its metadata yet
  // (UNKNOWN_TOPIC_OR_PARTITION, which kafkajs' wait for its leaders does not retry).
  await retrying(() => admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS, configEntries }], waitForLeaders: true }))
  await retrying(() => admin.fetchTopicMetadata({ topics: [topic] }))
}

function runJob(query: KafkaQueryName, bootstrap: string, input: string, output: string, mode: 'bounded' | 'latency') {
  return spawn(process.execPath, [here('./job.js'), query, bootstrap, input, output, mode, '1000'], { stdio: ['ignore', 'pipe', 'inherit'] })
}

async function throughput(kafka: Kafka, admin: Admin, bootstrap: string): Promise<void> {
  const events = Math.round(2_000_000 * scale)
  await createTopic(admin, 'bids', true)
  const producer = kafka.producer()
  await producer.connect()
  const t0 = performance.now()
  const bids = await produceBids(producer, 'bids', PARTITIONS, events)
  await producer.disconnect()
  process.stdout.write(`produced ${bids.toLocaleString('en-US')} bids (${events.toLocaleString('en-US')} Nexmark events) to 'bids' ` +
    `(${PARTITIONS} partitions) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
  for (const run of [1, 2]) {
    for (const q of queries) {
      const output = `out-${q}-${run}`
      await createTopic(admin, output)
      const child = runJob(q, bootstrap, 'bids', output, 'bounded')
      let out = ''
      child.stdout.on('data', d => (out += d))
      const code = await new Promise(r => child.on('exit', r))
      if (code !== 0) throw new Error(`the ${q} job exited with ${code}`)
      const f = JSON.parse(out.trim().split('\n').at(-1)!) as JobFigures
      if (f.events !== bids) throw new Error(`${q} read ${f.events} of ${bids} bids`)
      process.stdout.write(
        `${q.padEnd(4)} run ${run}: ${Math.round(f.events / f.seconds).toLocaleString('en-US').padStart(8)} events/s  ` +
          `${(f.cpuSeconds * 1e6 / f.events).toFixed(2)} CPU-µs/event (main ${(f.mainThreadCpuSeconds! * 1e6 / f.events).toFixed(2)})  ` +
          `${f.events.toLocaleString('en-US')} bids in ${f.seconds.toFixed(2)} s, ${f.rowsOut.toLocaleString('en-US')} messages out, ` +
          `${f.checkpoints} checkpoints\n`,
      )
    }
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function latency(kafka: Kafka, admin: Admin, bootstrap: string): Promise<void> {
  for (const q of queries) {
    const input = `live-${q}`, output = `live-out-${q}`
    await createTopic(admin, input, true)
    await createTopic(admin, output)
    const latencies: number[] = []
    let firstAppend = Number.POSITIVE_INFINITY
    const consumer = kafka.consumer({ groupId: `bench-latency-${q}`, readUncommitted: false, maxWaitTimeInMs: 50 })
    await consumer.connect()
    await consumer.subscribe({ topic: output, fromBeginning: true })
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const now = Date.now()
        for (const m of batch.messages) {
          if (m.value === null) continue
          const { last_append } = JSON.parse(m.value.toString()) as { last_append: string }
          const appended = Date.parse(last_append.replace(' ', 'T') + 'Z')
          if (appended >= firstAppend + WARM_UP_MS) latencies.push(now - appended)
        }
      },
    })
    const job = runJob(q, bootstrap, input, output, 'latency')
    job.stdout.resume()
    // Give the job time to start reading before the first bid.
    await new Promise(r => setTimeout(r, 5_000))
    firstAppend = Date.now()
    const feed = spawn(process.execPath, [here('./feed.js'), bootstrap, input, String(PARTITIONS), String(rate), String(feedSeconds)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let fed = ''
    feed.stdout.on('data', d => (fed += d))
    await new Promise(r => feed.on('exit', r))
    // The last results: q17's at the next checkpoints; q5's windows that the watermark still passes.
    await new Promise(r => setTimeout(r, 8_000))
    job.kill('SIGTERM')
    await new Promise(r => job.on('exit', r))
    await consumer.disconnect()
    const { sent, seconds } = JSON.parse(fed.trim()) as { sent: number; seconds: number }
    latencies.sort((a, b) => a - b)
    process.stdout.write(
      `${q.padEnd(4)} latency at ${Math.round(sent / seconds).toLocaleString('en-US')} bids/s for ${seconds.toFixed(0)} s, ` +
        `1 s checkpoints: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms ` +
        `(${latencies.length.toLocaleString('en-US')} results after the ${WARM_UP_MS / 1000} s warm-up)\n`,
    )
  }
}

const own = process.env['WEIR_KAFKA_BOOTSTRAP'] === undefined
const dir = own ? mkdtempSync(join(tmpdir(), 'weir-kafka-bench-')) : ''
const bootstrap = own
  ? execFileSync('bash', [serverScript, 'start', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').at(-1)!
  : process.env['WEIR_KAFKA_BOOTSTRAP']!
try {
  const kafka = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  if (!own) {
    // A reused broker: start from fresh topics.
    const mine = (await admin.listTopics()).filter(t => /^(bids|out-q|live-)/.test(t))
    if (mine.length > 0) await admin.deleteTopics({ topics: mine })
    await new Promise(r => setTimeout(r, 2_000))
  }
  if (runThroughput) await throughput(kafka, admin, bootstrap)
  if (runLatency) await latency(kafka, admin, bootstrap)
  await admin.disconnect()
} finally {
  if (own) {
    execFileSync('bash', [serverScript, 'stop', dir], { cwd: root, stdio: 'ignore' })
    rmSync(dir, { recursive: true, force: true })
  }
}
