// The 'upsert-kafka' sink: updating results as a compacted-topic changelog. The PRIMARY KEY is each
// message's key; an insert or update-after writes the row as the key's new value, a delete writes a
// tombstone (a null value), and update-before is dropped (the update-after replaces it), as in Flink.
import type { ConnectorFactory } from '../../api.js'
import { checkMetadataColumns } from '../source-metadata.js'
import { createKafkaWriter, kafkaCommittedAfter, sinkConfigOf, valueFormatOf } from './index.js'
import { resolveConnection, resolveKafkaSink, WRITABLE_METADATA } from './options.js'

/**
 * @example CREATE TABLE totals (user_id STRING, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'totals', 'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'value.format' = 'json')
 */
export const upsertKafkaConnector: ConnectorFactory = {
  name: 'upsert-kafka',
  sink: {
    validate(options, schema, primaryKey = [], metadata) {
      const keys = metadata ?? schema.map(() => null)
      checkMetadataColumns(schema, keys, valueFormatOf(options))
      resolveKafkaSink('upsert-kafka', options, schema.filter((_, i) => keys[i] === null), primaryKey)
    },
    checkWrite(options, schema, primaryKey, metadata) {
      resolveKafkaSink('upsert-kafka', options, schema, primaryKey, metadata)
    },
    writableMetadataKeys: WRITABLE_METADATA,
    acceptsUpdates: () => true,
    updateBefore: () => 'upsert',
    create: ctx => createKafkaWriter(ctx, sinkConfigOf('upsert-kafka', ctx)),
    committedAfter: (query, checkpointId) => kafkaCommittedAfter(resolveConnection(query.options), query, checkpointId),
  },
}
