-- A row older than the watermark is dropped: file 3's 00:00:01 row arrives after file 2 moved the watermark to 00:00:30.
CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/late', 'format' = 'csv');
SELECT k, window_start, COUNT(*) AS cnt
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
