-- Scalar expressions with NULL semantics, CASE, LIKE, IN, BETWEEN, CAST, COALESCE, string and time functions.
CREATE TABLE orders (
  id BIGINT,
  `user` STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT id,
  CASE WHEN amount IS NULL THEN 'none' WHEN amount > 5 THEN 'big' ELSE 'small' END AS size,
  COALESCE(`user`, '?') AS u,
  UPPER(`user`) || '-' || CAST(id AS STRING) AS tag,
  amount * 2 AS doubled,
  id IN (1, 3, 5) AS odd_pick,
  amount BETWEEN 2 AND 6 AS mid,
  `user` LIKE 'a%' AS is_a,
  EXTRACT(SECOND FROM ts) AS sec,
  DATE_FORMAT(ts, 'HH:mm:ss') AS hms,
  FLOOR(ts TO MINUTE) AS minute
FROM orders
WHERE id <= 7;
