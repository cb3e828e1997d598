// The 'kafka' connector: a source reading the messages of one or more topics (each partition a
// split, offsets kept in checkpoints), with Flink's options, formats and metadata columns; and a
// sink writing insert-only results, or changelogs as debezium-json (sink/). One table may be read
// and written: each side is given the options that are not the other side's own, as Flink's source
// ignores 'sink.*' and its sink 'scan.*'.
import type { ConnectorFactory, ConnectorOptions } from '../api.js'
import { kafkaSink, valueFormatOf as valueFormat } from './sink/index.js'
import { checkMetadataColumns, KAFKA_METADATA_KEYS } from './source-metadata.js'
import { createKafkaSource } from './source.js'
import { resolveKafkaSourceOptions } from './source-options.js'
import { checkCsvColumns } from '../filesystem/csv-columns.js'

/**
 * @example CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp')
 *   WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json')
 */
export const kafkaConnector: ConnectorFactory = {
  name: 'kafka',
  source: {
    validate(options, schema, metadata, primaryKey) {
      const keys = metadata ?? schema.map(() => null)
      checkMetadataColumns(schema, keys, valueFormat(options))
      const physical = schema.filter((_, i) => keys[i] === null)
      checkCsvColumns(valueFormat(options), physical)
      // A table is checked as what it can be: read (the source's options), written (the sink's), or
      // both. One the source refuses but the sink takes is a sink table: reading it fails as the job
      // starts, with the source's message. An option neither side knows is refused by both.
      try {
        resolveKafkaSourceOptions(without(options, sinkOnly), physical, false)
      } catch (sourceError) {
        // Options only a reader has say the table is read: the source's refusal stands.
        if (Object.keys(options).some(sourceOnly)) throw sourceError
        try {
          kafkaSink.validate(without(options, sourceOnly), physical, primaryKey)
        } catch (sinkError) {
          // Neither takes it: the side the table's own options point to says why.
          throw Object.keys(options).some(sinkOnly) ? sinkError : sourceError
        }
        return
      }
      // A table with options of the sink is (also) written: check them as the sink would.
      if (Object.keys(options).some(sinkOnly)) kafkaSink.validate(without(options, sourceOnly), physical, primaryKey)
    },
    checkRead(options, schema, metadata) {
      const keys = metadata ?? schema.map(() => null)
      resolveKafkaSourceOptions(without(options, sinkOnly), schema.filter((_, i) => keys[i] === null))
    },
    metadataKeys: KAFKA_METADATA_KEYS,
    // Partitions are dealt among the subtasks (partition-owner.ts); a position names its partition.
    splittable: true,
    bounded(options) {
      return (options['scan.bounded.mode'] ?? 'unbounded').trim().toLowerCase() !== 'unbounded'
    },
    changelogMode(options) {
      return valueFormat(options) === 'debezium-json' ? 'updating' : 'insert-only'
    },
    create: ctx => createKafkaSource({ ...ctx, options: without(ctx.options, sinkOnly) }),
  },
  sink: {
    ...kafkaSink,
    validate: (options, schema, primaryKey) => {
      checkCsvColumns(valueFormat(options), schema)
      kafkaSink.validate(without(options, sourceOnly), schema, primaryKey)
    },
    checkWrite: (options, schema, primaryKey, metadata) => kafkaSink.checkWrite!(without(options, sourceOnly), schema, primaryKey, metadata),
    acceptsUpdates: options => kafkaSink.acceptsUpdates(without(options, sourceOnly)),
    create: ctx => kafkaSink.create({ ...ctx, options: without(ctx.options, sourceOnly) }),
    committedAfter: (query, checkpointId) => kafkaSink.committedAfter!({ ...query, options: without(query.options, sourceOnly) }, checkpointId),
  },
}

/** Options only the sink reads (the key options are both sides': key-options.ts). */
function sinkOnly(key: string): boolean {
  return key.startsWith('sink.') || key === 'properties.transaction.timeout.ms' || key === 'properties.compression.type'
}

/** Options only the source reads. */
function sourceOnly(key: string): boolean {
  return SOURCE_ONLY.has(key)
}

/** Listed one by one, so a misspelt 'scan.*' key is refused by both sides, not passed over by the sink. */
const SOURCE_ONLY = new Set([
  'topic-pattern',
  'scan.startup.mode',
  'scan.startup.timestamp-millis',
  'scan.startup.specific-offsets',
  'scan.bounded.mode',
  'scan.bounded.timestamp-millis',
  'scan.bounded.specific-offsets',
  'scan.topic-partition-discovery.interval',
  'scan.watermark.idle-timeout',
  'properties.group.id',
  'properties.auto.offset.reset',
  'properties.isolation.level',
  'properties.commit.offsets.on.checkpoint',
  'json.ignore-parse-errors',
  'csv.ignore-parse-errors',
  'debezium-json.ignore-parse-errors',
])

function without(options: ConnectorOptions, drop: (key: string) => boolean): ConnectorOptions {
  return Object.fromEntries(Object.entries(options).filter(([k]) => !drop(k)))
}
