-- Alerts of the per-card fraud rule in fraud.ts: npx weir run examples/fraud/fraud.sql
CREATE TABLE payments (
  card_id  STRING,
  merchant STRING,
  amount   DOUBLE,
  ts       TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/fraud/payments.jsonl', 'format' = 'json');

CREATE TABLE alerts (card_id STRING, merchant STRING, amount DOUBLE, reason STRING, ts TIMESTAMP(3)) WITH ('connector' = 'print');

CREATE FUNCTION fraud AS './fraud.ts' LANGUAGE TYPESCRIPT;

INSERT INTO alerts
SELECT * FROM fraud(input => TABLE payments PARTITION BY card_id, threshold => 500);
