-- error: column 'amout' not found
-- at: 10:12
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT id, amout FROM orders;
