-- Loads examples/data/clicks.jsonl into the Kafka topic 'clicks', exactly once, and exits.
-- A broker and the topics first (see the README's "Kafka in and out"):
--   scripts/kafka-server.sh start && scripts/kafka-server.sh topic clicks 4 && scripts/kafka-server.sh topic clicks_per_minute 1
-- Then:  npx weir run examples/kafka-load.sql

SET 'execution.checkpointing.interval' = '1 s';

CREATE TABLE clicks_file (
  user_id STRING,
  url     STRING,
  amount  DECIMAL(10, 2),
  ts      TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path'      = 'examples/data/clicks.jsonl',
  'format'    = 'json'
);

CREATE TABLE clicks_topic (
  user_id STRING,
  url     STRING,
  amount  DECIMAL(10, 2),
  ts      TIMESTAMP(3)
) WITH (
  'connector' = 'kafka',
  'topic'     = 'clicks',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.fields' = 'user_id',
  'key.format' = 'json',
  'format'    = 'json'
);

INSERT INTO clicks_topic SELECT * FROM clicks_file;
