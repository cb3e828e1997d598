// The latency run's input: Nexmark bids (the first 200,000, over again if more are needed) produced
// to a topic at a fixed rate, each with dateTime set to the wall clock when it is sent (so event time, and the windows' watermark, follow real time).
// Every 10 ms it sends the bids due since it started, so it keeps the rate on average even when a
// send takes longer. Usage: node dist/bench/kafka/feed.js <bootstrap> <topic> <partitions> <events/s> <seconds>
import { Kafka, logLevel } from 'kafkajs'
import { bidRows, DATE_TIME, encodeBid } from './bids.js'

const [bootstrap, topic, partitionsArg, rateArg, secondsArg] = process.argv.slice(2)
const partitions = Number(partitionsArg), rate = Number(rateArg), seconds = Number(secondsArg)
const total = Math.round(rate * seconds)
const kafka = new Kafka({ brokers: [bootstrap!], logLevel: logLevel.NOTHING })
const producer = kafka.producer()
await producer.connect()
// Encoded before the clock starts (generating and encoding as it goes kept this producer from the
// rate on a busy machine): each bid's JSON split around its dateTime, which is filled in per request.
const POOL = Math.min(total, 200_000)
const templates: [string, string][] = []
const marker = '1970-01-01 00:00:00.000'
for await (const rows of bidRows(Math.ceil(POOL / 0.92) + 1000)) {
  for (const row of rows) {
    if (templates.length === POOL) break
    row[DATE_TIME] = 0
    const json = encodeBid(row)
    const at = json.indexOf(marker)
    templates.push([json.slice(0, at), json.slice(at + marker.length)])
  }
}
let sent = 0
const start = Date.now()
while (sent < total) {
  const due = Math.min(total, Math.floor(((Date.now() - start) / 1000) * rate))
  // At most 2,000 bids a request: a backlog after a stall must not exceed the broker's batch size limit.
  while (due > sent) {
    const now = new Date().toISOString().replace('T', ' ').slice(0, 23)
    const messages = []
    for (const end = Math.min(due, sent + 2_000); sent < end; sent++) {
      const [before, after] = templates[sent % POOL]!
      messages.push({ partition: sent % partitions, value: before + now + after })
    }
    await producer.send({ topic: topic!, messages })
  }
  await new Promise(r => setTimeout(r, 10))
}
await producer.disconnect()
process.stdout.write(JSON.stringify({ sent, seconds: (Date.now() - start) / 1000 }) + '\n')
