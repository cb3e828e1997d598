-- Prints what examples/kafka-clicks.sql has committed to the topic 'clicks_per_minute' so far, as a
-- read_committed consumer sees it, and exits.
-- Run it with:  npx weir run examples/kafka-read.sql

CREATE TABLE clicks_per_minute (
  user_id      STRING,
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  clicks       BIGINT,
  pages        BIGINT,
  spent        DECIMAL(38, 2)
) WITH (
  'connector' = 'kafka',
  'topic'     = 'clicks_per_minute',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset',
  'format'    = 'json'
);

SELECT * FROM clicks_per_minute;
