// Measures the exactly-once Kafka sink's produce path alone: q17's result rows encoded as the
// 'upsert-kafka' sink does (MessageEncoder: a JSON key and a ~200-byte JSON value, partitioned by key
// over 4 partitions) and produced by the sink's transactional producer (connectors/kafka/sink/transactions.ts) in transactions of 30,000 messages, as commit(n)
// does after each checkpoint. Prints messages/s and CPU-µs/message of this process (the broker's CPU
// is not counted). Usage: node dist/bench/kafka/sink-speed.js <bootstrap> [messages] [rounds]
import { Kafka, logLevel } from 'kafkajs'
import { T, type Field } from '../../common/types.js'
import type { Batch, Row } from '../../core/batch.js'
import { MessageEncoder, type Message } from '../../connectors/kafka/sink/messages.js'
import type { KafkaSinkConfig } from '../../connectors/kafka/sink/options.js'
import { TransactionalProducer } from '../../connectors/kafka/sink/transactions.js'
import { threadCpuSeconds } from '../measure.js'

const [bootstrap, totalArg, roundsArg] = process.argv.slice(2)
const total = Number(totalArg ?? 300_000), rounds = Number(roundsArg ?? 3)
const PER_TRANSACTION = 30_000
const topic = `sink-speed-${process.pid}`
const kafka = new Kafka({ brokers: [bootstrap!], logLevel: logLevel.NOTHING })
const admin = kafka.admin()
await admin.connect()
await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true })
// q17's output schema, keyed by (auction, day), encoded as the 'upsert-kafka' sink does.
const schema: Field[] = ['auction', 'day', 'total_bids', 'rank1_bids', 'rank2_bids', 'rank3_bids', 'min_price', 'max_price', 'avg_price', 'sum_price']
  .map(name => ({ name, type: name === 'day' ? T.string() : T.bigint() }))
const config: KafkaSinkConfig = { topic, brokers: [bootstrap!], clientId: 'sink-speed', transactionTimeoutMs: 60_000, requestTimeoutMs: 30_000,
  compression: 'none', guarantee: 'exactly-once', transactionalIdPrefix: `sink-speed-${process.pid}`, connector: 'upsert-kafka', keyColumns: [0, 1],
  keyFormat: 'json', valueColumns: schema.map((_, i) => i), valueFormat: 'json', partitioner: 'default', compactByKey: true }
const producer = new TransactionalProducer(kafka, config, 'bench', 'sink')
await producer.connect()
const rows: Row[] = []
for (let i = 0; i < PER_TRANSACTION; i++) rows.push([1000 + i, '2024-01-01', i, i >> 1, i >> 2, i >> 3, i % 977, i * 31, i * 7, i * 1009])
const encoder = new MessageEncoder(config, schema, 4)
let checkpoint = 0
for (let round = 0; round < rounds; round++) {
  const cpu0 = process.cpuUsage(), main0 = threadCpuSeconds()!
  const start = performance.now()
  for (let sent = 0; sent < total; sent += PER_TRANSACTION) {
    const messages: Message[] = []
    encoder.encode({ rows, kinds: null } satisfies Batch, messages)
    await producer.produce(messages, ++checkpoint)
  }
  const seconds = (performance.now() - start) / 1000
  const cpu = process.cpuUsage(cpu0)
  console.log(
    `round ${round + 1}: ${Math.round(total / seconds)} messages/s, ${((cpu.user + cpu.system) / total).toFixed(2)} CPU-µs/message (main ${
      ((threadCpuSeconds()! - main0) * 1e6 / total).toFixed(2)
    })`,
  )
}
await producer.close()
await admin.deleteTopics({ topics: [topic] })
await admin.disconnect()
