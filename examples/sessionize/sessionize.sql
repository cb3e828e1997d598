-- Sessions of the clicks in clicks.jsonl, by sessionize.ts: npx weir run examples/sessionize/sessionize.sql
CREATE TABLE clicks (
  user_id STRING,
  page    STRING,
  ts      TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/sessionize/clicks.jsonl', 'format' = 'json');

CREATE TABLE sessions (user_id STRING, session_start TIMESTAMP(3), session_end TIMESTAMP(3), pages INT, path STRING)
  WITH ('connector' = 'print');

CREATE FUNCTION sessionize AS './sessionize.ts' LANGUAGE TYPESCRIPT;

-- TABLE(…) around the call, as Flink's documentation writes it, or without: the same call.
INSERT INTO sessions
SELECT * FROM TABLE(sessionize(input => TABLE clicks PARTITION BY user_id, gap_s => 600));
