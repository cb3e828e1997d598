// The latency run's input: Nexmark bids produced to a topic at a fixed rate, each with dateTime set
// to the wall clock when it is sent (so event time, and the windows' watermark, follow real time).
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
const rows = bidRows(Math.ceil(total / 0.92) + 1000)
let pending: unknown[][] = []
let sent = 0
const start = Date.now()
while (sent < total) {
  const due = Math.min(total, Math.floor(((Date.now() - start) / 1000) * rate))
  // At most 2,000 bids a request: a backlog after a stall must not exceed the broker's batch size limit.
  while (due > sent) {
    const messages = []
    for (const end = Math.min(due, sent + 2_000); sent < end; sent++) {
      if (pending.length === 0) pending = [...(await rows.next()).value!]
      const row = pending.pop()!
      row[DATE_TIME] = Date.now()
      messages.push({ partition: sent % partitions, value: encodeBid(row) })
    }
    await producer.send({ topic: topic!, messages })
  }
  await new Promise(r => setTimeout(r, 10))
}
await producer.disconnect()
process.stdout.write(JSON.stringify({ sent, seconds: (Date.now() - start) / 1000 }) + '\n')
