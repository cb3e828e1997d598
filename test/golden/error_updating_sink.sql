-- error: can only take inserts, but the query produces updates from the GROUP BY aggregate at line 12
-- at: 12:1
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
CREATE TABLE out (u STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-golden-never-written', 'format' = 'json');
INSERT INTO out
SELECT `user`, COUNT(*) FROM orders GROUP BY `user`;
