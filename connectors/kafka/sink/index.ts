// The 'kafka' sink (insert-only results, or any changelog as debezium-json change events) and what it shares with 'upsert-kafka' (upsert.ts): option
// checking, creating the writer for the delivery guarantee, and what exactly-once output is
// committed already (the marker, see transactions.ts).
import type { CommitQuery, CommittedOutput, ConnectorOptions, SinkContext, SinkFactory, SinkWriter } from '../../api.js'
import { MessageEncoder } from './messages.js'
import { resolveConnection, resolveGuarantee, resolveKafkaSink, WRITABLE_METADATA, type KafkaConnection, type KafkaSinkConfig } from './options.js'
import { kafkaClient, kafkaSinkError, partitionCount, TransactionalProducer } from './transactions.js'
import { ExactlyOnceKafkaWriter, StreamingKafkaWriter, type KafkaSinkCommit } from './writer.js'

export async function createKafkaWriter(ctx: SinkContext, config: KafkaSinkConfig): Promise<SinkWriter> {
  const { guarantee, warning } = resolveGuarantee(config, ctx.exactlyOnce)
  if (warning !== undefined) (ctx.log ?? (line => process.stderr.write(line + '\n')))(warning.replace('table writes', `table '${ctx.table}' writes`))
  const kafka = kafkaClient(config)
  const encoder = new MessageEncoder(config, ctx.schema, await partitionCount(kafka, config, ctx.table))
  return guarantee === 'exactly-once'
    ? ExactlyOnceKafkaWriter.create(ctx, config, kafka, encoder)
    : StreamingKafkaWriter.create(ctx, config, kafka, encoder, guarantee)
}

/**
 * SinkFactory.committedAfter of both Kafka sinks: the marker says which checkpoint's transaction was
 * the last to commit; output of checkpoints after `checkpointId` (and after the restored one, which a
 * restore produces anyway) is visible already.
 */
export async function kafkaCommittedAfter(config: KafkaConnection, query: CommitQuery, checkpointId: number): Promise<CommittedOutput | undefined> {
  if (config.guarantee !== undefined && config.guarantee !== 'exactly-once') return undefined
  const kafka = kafkaClient(config)
  // The marker of a topic that does not exist cannot be read: Kafka calls that retriable, so the read
  // would be retried for minutes and then fail with the broker's words. Say so now, as create() would.
  await partitionCount(kafka, config, query.table)
  const producer = new TransactionalProducer(kafka, config, query.jobName, query.operatorId)
  let marker: number
  try {
    await producer.connect()
    marker = await producer.marker()
  } catch (e) {
    throw kafkaSinkError(e, query.table, config, 'reading which checkpoints it committed')
  } finally {
    await producer.close()
  }
  const restored = (query.restoredCommit as KafkaSinkCommit | undefined)?.checkpoint ?? 0
  if (marker <= Math.max(checkpointId, restored)) return undefined
  return {
    checkpoints: [marker],
    description:
      `the messages of every checkpoint up to ${marker} in Kafka topic '${config.topic}' (the offset of consumer group '${producer.id}' on its partition 0 says so)`,
    // Committed messages cannot be taken back; a new topic (or prefix) starts a record of its own.
    remedy: `write to a new topic, or set another 'sink.transactional-id-prefix' (consumers of '${config.topic}' would see those messages twice)`,
  }
}

/** The sink's config for a SinkContext: its options checked against the columns it writes. */
export function sinkConfigOf(connector: 'kafka' | 'upsert-kafka', ctx: SinkContext): KafkaSinkConfig {
  return resolveKafkaSink(connector, ctx.options, ctx.schema, ctx.primaryKey.map(i => ctx.schema[i]!.name), ctx.metadata)
}

/** The value format as written ('format' or 'value.format'), lower-case. */
export function valueFormatOf(options: ConnectorOptions): string {
  return (options['value.format'] ?? options['format'] ?? '').trim().toLowerCase()
}

/**
 * @example CREATE TABLE out (w TIMESTAMP(3), n BIGINT) WITH ('connector' = 'kafka', 'topic' = 'counts', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json')
 */
export const kafkaSink: SinkFactory = {
  validate(options, schema, primaryKey = []) {
    resolveKafkaSink('kafka', options, schema, primaryKey)
  },
  checkWrite(options, schema, primaryKey, metadata) {
    resolveKafkaSink('kafka', options, schema, primaryKey, metadata)
  },
  writableMetadataKeys: WRITABLE_METADATA,
  // As in Flink, a debezium-json value writes a changelog: every change is an event of its own.
  acceptsUpdates: options => valueFormatOf(options) === 'debezium-json',
  create: ctx => createKafkaWriter(ctx, sinkConfigOf('kafka', ctx)),
  committedAfter: (query, checkpointId) => kafkaCommittedAfter(resolveConnection(query.options), query, checkpointId),
}
