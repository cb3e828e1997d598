-- error: column 'id' must appear in GROUP BY or be used in an aggregate function
-- at: 10:16
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT `user`, id, COUNT(*) FROM orders GROUP BY `user`;
