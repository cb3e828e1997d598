-- A non-windowed GROUP BY emits +I for a new group, then -U/+U pairs as it changes (batches of 2 rows).
SET 'execution.batch-size' = '2';
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT `user`, COUNT(*) AS cnt, SUM(amount) AS total, MIN(amount) AS lo
FROM orders
WHERE `user` IS NOT NULL
GROUP BY `user`;
