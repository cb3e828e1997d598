-- SESSION(5 s) per user: a's rows at 1, 8 and 12 s form two sessions ([1,6) and [8,17)).
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT `user`, window_start, window_end, COUNT(*) AS cnt
FROM TABLE(SESSION(TABLE orders PARTITION BY `user`, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY `user`, window_start, window_end;
