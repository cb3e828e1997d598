// The 'upsert-kafka' sink: updating results as a compacted-topic changelog. The PRIMARY KEY is each
// message's key; an insert or update-after writes the row as the key's new value, a delete writes a
// tombstone (a null value), and update-before is dropped (the update-after replaces it), as in Flink.
import type { ConnectorFactory } from '../../api.js'
import { createKafkaWriter, kafkaCommittedAfter } from './index.js'
import { resolveConnection, resolveKafkaSink } from './options.js'

/**
 * @example CREATE TABLE totals (user_id STRING, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'totals', 'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'value.format' = 'json')
 */
export const upsertKafkaConnector: ConnectorFactory = {
  name: 'upsert-kafka',
  sink: {
    validate(options, schema, primaryKey = []) {
      resolveKafkaSink('upsert-kafka', options, schema, primaryKey)
    },
    acceptsUpdates: () => true,
    create: ctx => createKafkaWriter(ctx, resolveKafkaSink('upsert-kafka', ctx.options, ctx.schema, ctx.primaryKey.map(i => ctx.schema[i]!.name))),
    committedAfter: (query, checkpointId) => kafkaCommittedAfter(resolveConnection(query.options), query, checkpointId),
  },
}
