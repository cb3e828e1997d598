-- A continuous query: clicks per user per one-minute window, from the Kafka topic 'clicks' to the
-- topic 'clicks_per_minute', exactly once (a window's row becomes visible to read_committed
-- consumers when the checkpoint after it completes). It runs until Ctrl-C; run it again and it
-- resumes from its last checkpoint. Load some clicks with examples/kafka-load.sql (again, while
-- this runs, for more), and read the results with examples/kafka-read.sql.
-- Run it with:  npx weir run examples/kafka-clicks.sql

SET 'pipeline.name' = 'clicks-per-minute';
SET 'execution.checkpointing.interval' = '1 s';

CREATE TABLE clicks (
  user_id STRING,
  url     STRING,
  amount  DECIMAL(10, 2),
  ts      TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic'     = 'clicks',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.startup.mode' = 'earliest-offset',
  'format'    = 'json'
);

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
  'format'    = 'json'
);

INSERT INTO clicks_per_minute
SELECT user_id, window_start, window_end,
       COUNT(*)            AS clicks,
       COUNT(DISTINCT url) AS pages,
       SUM(amount) FILTER (WHERE url = '/checkout') AS spent
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY user_id, window_start, window_end;
