// Parse-speed benchmark for the SQL front end: a ~40-line CREATE TABLE + INSERT … SELECT … GROUP BY
// script parsed N times. Run: npx tsc -p . ; node dist/bench/parse-speed.js [iterations]
// It also prints how long loading the parser took (Chevrotain's grammar analysis at import): a
// lookahead too deep over expressions once made that 11-15 s instead of 0.4 s.
const loadStart = process.hrtime.bigint()
const { parseSql } = await import('../grammar/index.js')
const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6

const SCRIPT = `
-- Nexmark-style source and a windowed aggregate into a sink.
CREATE TEMPORARY TABLE IF NOT EXISTS bid (
  auction  BIGINT NOT NULL,
  bidder   BIGINT,
  price    DECIMAL(10, 2),
  channel  VARCHAR(32) COMMENT 'where the bid came from',
  url      STRING,
  dateTime TIMESTAMP(3),
  extra    STRING,
  ingest   TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  pt AS PROCTIME(),
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND,
  PRIMARY KEY (auction, bidder) NOT ENFORCED
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '1000',
  'fields.price.min' = '1'
);

INSERT INTO bid_stats
SELECT /*+ STATE_TTL('b' = '1d') */
  b.auction,
  window_start,
  window_end,
  COUNT(*) AS bids,
  COUNT(DISTINCT b.bidder) AS bidders,
  SUM(b.price) FILTER (WHERE b.channel <> 'apple') AS volume,
  MAX(CASE WHEN b.price > 100 THEN b.price ELSE 0 END) AS top_price,
  CAST(AVG(b.price) AS DOUBLE) AS avg_price,
  DATE_FORMAT(window_start, 'yyyy-MM-dd HH:mm') AS label
FROM TABLE(
  TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)
) AS b
WHERE b.price BETWEEN 1 AND 10000
  AND b.url LIKE 'https://%'
  AND b.channel IN ('google', 'facebook', 'baidu')
  AND b.extra IS NOT NULL
GROUP BY b.auction, window_start, window_end
HAVING COUNT(*) > 1;
`

const iterations = Number(process.argv[2] ?? 2000)
const rounds = 5
const statementsPerRun = parseSql(SCRIPT).length
const lines = SCRIPT.trim().split('\n').length

// Warm up the JIT before timing.
for (let i = 0; i < 500; i++) parseSql(SCRIPT)

const perScriptMs: number[] = []
for (let r = 0; r < rounds; r++) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) parseSql(SCRIPT)
  perScriptMs.push(Number(process.hrtime.bigint() - start) / 1e6 / iterations)
}
perScriptMs.sort((a, b) => a - b)
const median = perScriptMs[Math.floor(rounds / 2)]!
const best = perScriptMs[0]!
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US')

console.log(`parser loaded in ${loadMs.toFixed(0)} ms`)
console.log(`script: ${lines} lines, ${statementsPerRun} statements (CREATE TABLE + INSERT … SELECT … GROUP BY); ${rounds} rounds × ${iterations} parses`)
console.log(`median ${median.toFixed(3)} ms/script → ${fmt((statementsPerRun * 1000) / median)} statements/s, ${fmt((lines * 1000) / median)} lines/s`)
console.log(`best   ${best.toFixed(3)} ms/script → ${fmt((statementsPerRun * 1000) / best)} statements/s`)
