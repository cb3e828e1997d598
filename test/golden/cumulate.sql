-- CUMULATE: 20 s windows growing in 10 s steps; counts per window are cumulative within each 20 s.
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT window_start, window_end, COUNT(*) AS cnt, COUNT(DISTINCT `user`) AS users
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '20' SECOND))
GROUP BY window_start, window_end;
