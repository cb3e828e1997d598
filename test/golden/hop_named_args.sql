-- HOP with named arguments: every row falls in two 10 s windows sliding by 5 s.
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT window_start, window_end, COUNT(*) AS cnt, MAX(amount) AS max_amount
FROM TABLE(HOP(DATA => TABLE orders, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '5' SECOND, SIZE => INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
