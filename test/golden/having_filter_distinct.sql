-- HAVING over aggregates, FILTER, and SELECT DISTINCT.
-- unordered
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
CREATE TABLE big_users (u STRING, n BIGINT, big BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'big');
CREATE TABLE users (u STRING) WITH ('connector' = 'print', 'print-identifier' = 'distinct');
INSERT INTO big_users
SELECT `user`, COUNT(*), COUNT(*) FILTER (WHERE amount > 5)
FROM orders GROUP BY `user` HAVING COUNT(*) >= 2;
INSERT INTO users SELECT DISTINCT `user` FROM orders WHERE `user` <> 'c';
