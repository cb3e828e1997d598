// Creates a topic (scripts/kafka-server.sh topic): node scripts/kafka-topic.mjs ADDRESS NAME PARTITIONS.
// A topic that exists already is left as it is (its partition count is reported, not changed).
import { Kafka, logLevel } from 'kafkajs'

const [address, name, partitions] = process.argv.slice(2)
const admin = new Kafka({ brokers: [address], logLevel: logLevel.NOTHING, retry: { retries: 3 } }).admin()
try {
  await admin.connect()
  const created = await admin.createTopics({ topics: [{ topic: name, numPartitions: Number(partitions) }], waitForLeaders: true })
  if (created) {
    console.log(`created topic '${name}' with ${partitions} partition${partitions === '1' ? '' : 's'} at ${address}`)
  } else {
    const meta = await admin.fetchTopicMetadata({ topics: [name] })
    console.log(`topic '${name}' exists already at ${address} (${meta.topics[0].partitions.length} partitions)`)
  }
} catch (e) {
  console.error(`kafka-server: could not create topic '${name}' at ${address}: ${e instanceof Error ? e.message : e}`)
  process.exitCode = 1
} finally {
  await admin.disconnect()
}
