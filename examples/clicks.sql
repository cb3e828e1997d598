-- Clicks per user per one-minute tumbling window, read from a JSON-lines file and printed.
-- Run it with:  npx weir run examples/clicks.sql

CREATE TABLE clicks (
  user_id STRING,
  url     STRING,
  amount  DECIMAL(10, 2),
  ts      TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path'      = 'examples/data/clicks.jsonl',
  'format'    = 'json'
);

CREATE TABLE clicks_per_minute (
  user_id      STRING,
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  clicks       BIGINT,
  pages        BIGINT,
  spent        DECIMAL(38, 2)
) WITH ('connector' = 'print');

INSERT INTO clicks_per_minute
SELECT user_id, window_start, window_end,
       COUNT(*)            AS clicks,
       COUNT(DISTINCT url) AS pages,
       SUM(amount) FILTER (WHERE url = '/checkout') AS spent
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY user_id, window_start, window_end;
