-- error: must be a time attribute
-- at: 5:39
CREATE TABLE t (k STRING, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/orders.jsonl', 'format' = 'json');
SELECT k, window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY k, window_start, window_end;
