-- Two levels of aggregation: the outer GROUP BY consumes the inner one's retractions (one row per batch).
SET 'execution.batch-size' = '1';
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT cnt, COUNT(*) AS users
FROM (SELECT `user`, COUNT(*) AS cnt FROM orders GROUP BY `user`)
GROUP BY cnt;
