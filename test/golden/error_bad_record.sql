-- error: bad.jsonl:2
CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/bad.jsonl', 'format' = 'json');
SELECT a, b FROM t;
