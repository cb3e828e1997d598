-- OVER aggregates run in event-time order as the watermark passes the rows; file 3's 00:00:01 row
-- arrives after the watermark reached 00:00:30 and is dropped (the job counts it as late).
CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/late', 'format' = 'csv');
SELECT k, ts, COUNT(*) OVER w AS n, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn,
  COUNT(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '25' SECOND PRECEDING AND CURRENT ROW) AS recent
FROM ev
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
