-- UNION ALL of a view and a CTE.
-- unordered
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
CREATE VIEW a_orders AS SELECT id, amount FROM orders WHERE `user` = 'a';
WITH b_orders AS (SELECT id, amount FROM orders WHERE `user` = 'b')
SELECT id, amount FROM a_orders
UNION ALL
SELECT id, amount FROM b_orders;
