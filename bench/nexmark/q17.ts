// Nexmark q17 (per auction and day: count, counts by price band, min, max, avg, sum), as the
// benchmarks run it over a `bid` table: the generator's (queries.ts), a JSON file's
// (file-source-speed.ts) and a Kafka topic's (kafka/queries.ts).

/** The result's columns, for the sink's CREATE TABLE. */
export const Q17_COLUMNS = 'auction BIGINT, `day` STRING, total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, rank3_bids BIGINT, ' +
  'min_price BIGINT, max_price BIGINT, avg_price BIGINT, sum_price BIGINT'

/** q17's SELECT over `bid`; `extra` adds aggregates after sum_price (e.g. ', MAX(t) AS last'). */
export function q17Select(extra = ''): string {
  return `SELECT auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS \`day\`,
    COUNT(*) AS total_bids,
    COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
    COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
    COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
    MIN(price) AS min_price, MAX(price) AS max_price, AVG(price) AS avg_price, SUM(price) AS sum_price${extra}
  FROM bid
  GROUP BY auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd');`
}
