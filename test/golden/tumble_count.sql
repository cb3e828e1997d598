-- TUMBLE(10 s) count and exact DECIMAL sum per user; NULL user is its own group, NULL amount sums to NULL.
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
CREATE TABLE out (u STRING, ws TIMESTAMP(3), we TIMESTAMP(3), cnt BIGINT, total DECIMAL(38, 2)) WITH ('connector' = 'print');
INSERT INTO out
SELECT `user`, window_start, window_end, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY `user`, window_start, window_end;
