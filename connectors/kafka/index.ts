// The 'kafka' connector: a source reading the messages of one or more topics (each partition a
// split, offsets kept in checkpoints), with Flink's options, formats and metadata columns.
import type { ConnectorFactory } from '../api.js'
import { checkMetadataColumns, KAFKA_METADATA_KEYS } from './source-metadata.js'
import { createKafkaSource } from './source.js'
import { resolveKafkaSourceOptions } from './source-options.js'

/**
 * @example CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp')
 *   WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json')
 */
export const kafkaConnector: ConnectorFactory = {
  name: 'kafka',
  source: {
    validate(options, schema, metadata) {
      const keys = metadata ?? schema.map(() => null)
      checkMetadataColumns(schema, keys)
      resolveKafkaSourceOptions(options, schema.filter((_, i) => keys[i] === null))
    },
    metadataKeys: KAFKA_METADATA_KEYS,
    bounded(options) {
      return (options['scan.bounded.mode'] ?? 'unbounded').trim().toLowerCase() !== 'unbounded'
    },
    create: createKafkaSource,
  },
}
