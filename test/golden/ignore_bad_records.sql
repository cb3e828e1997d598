-- With 'json.ignore-parse-errors', the malformed line 2 is skipped.
CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'filesystem', 'path' = 'test/golden/data/bad.jsonl', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
SELECT a, b FROM t;
