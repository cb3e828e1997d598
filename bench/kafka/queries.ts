// The Kafka benchmark's queries: Nexmark q5 (HOP bid count per auction, bench/nexmark/queries.ts) and
// q17 (per auction and day: count, min, max, avg, sum) over a Kafka table of JSON bids, written to a
// Kafka topic exactly-once ('kafka' for q5's insert-only windows, 'upsert-kafka' for q17's updating
// groups), with a checkpoint every `checkpointMs` (the sink's transactions follow checkpoints).
//
// For the latency run each result also carries `last_append`: the largest Kafka timestamp (the
// broker's append time: the input topic uses LogAppendTime) of the bids it aggregates, i.e. the
// append time of the latest input that changed it.

import { q17Select, Q17_COLUMNS } from '../nexmark/q17.js'

export type KafkaQueryName = 'q5' | 'q17'
export const KAFKA_QUERIES: readonly KafkaQueryName[] = ['q5', 'q17']

export interface KafkaQueryConfig {
  readonly bootstrap: string
  readonly input: string
  readonly output: string
  readonly checkpointMs: number
  readonly checkpointDir: string
  /** Read to the topic's end and finish (throughput), or run until cancelled (latency). */
  readonly bounded: boolean
  /** Add the results' last_append column (latency). */
  readonly latency: boolean
}

export function kafkaQuerySql(name: KafkaQueryName, c: KafkaQueryConfig): string {
  const kafka = (topic: string): string => `'topic' = '${topic}', 'properties.bootstrap.servers' = '${c.bootstrap}'`
  const appendColumn = c.latency ? `, append_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'` : ''
  const head = `
    SET 'pipeline.name' = 'kafka-bench-${name}';
    SET 'execution.checkpointing.interval' = '${c.checkpointMs} ms';
    SET 'state.checkpoints.dir' = 'file://${c.checkpointDir}';
    CREATE TABLE bid (
      auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING${appendColumn},
      WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
    ) WITH ('connector' = 'kafka', ${kafka(c.input)}, 'format' = 'json', 'scan.startup.mode' = 'earliest-offset'${
    c.bounded ? `, 'scan.bounded.mode' = 'latest-offset'` : ''
  });
  `
  const last = c.latency ? ', last_append TIMESTAMP_LTZ(3)' : ''
  const lastAgg = c.latency ? ', MAX(append_time) AS last_append' : ''
  switch (name) {
    case 'q5':
      return head + `
        CREATE TABLE out (auction BIGINT, num BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3)${last})
          WITH ('connector' = 'kafka', ${kafka(c.output)}, 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
        INSERT INTO out
        SELECT auction, COUNT(*) AS num, window_start, window_end${lastAgg}
        FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
        GROUP BY auction, window_start, window_end;`
    case 'q17':
      return head + `
        CREATE TABLE out (${Q17_COLUMNS}${last}, PRIMARY KEY (auction, \`day\`) NOT ENFORCED)
          WITH ('connector' = 'upsert-kafka', ${kafka(c.output)}, 'key.format' = 'json', 'value.format' = 'json',
                'sink.delivery-guarantee' = 'exactly-once');
        INSERT INTO out ${q17Select(lastAgg)}`
  }
}
