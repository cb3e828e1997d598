// OVER aggregate benchmark queries on the Nexmark bid table: per auction, the average price of the
// last 10 bids (ROWS) and of the last 10 seconds (RANGE), on heap and on RocksDB.
import type { BenchQuery } from './queries.js'

export function overQueries(events: number, bidTable: (events: number) => string, rocksdb: (cache: string) => string): BenchQuery[] {
  const sink = `CREATE TABLE sink (auction BIGINT, price BIGINT, dateTime TIMESTAMP(3), avg_price BIGINT, bids BIGINT)
    WITH ('connector' = 'blackhole');\n`
  const over = (frame: string): string =>
    `INSERT INTO sink SELECT auction, price, dateTime, AVG(price) OVER w, COUNT(*) OVER w FROM bid
       WINDOW w AS (PARTITION BY auction ORDER BY dateTime ${frame});`
  const heap: BenchQuery[] = [
    { name: 'over-rows', backend: 'heap', what: 'OVER: avg price of the last 10 bids per auction (ROWS 9 PRECEDING)', events, stateful: true,
      sql: bidTable(events) + sink + over('ROWS BETWEEN 9 PRECEDING AND CURRENT ROW') },
    { name: 'over-range', backend: 'heap', what: "OVER: avg price of the last 10 s of bids per auction (RANGE INTERVAL '10' SECOND)", events, stateful: true,
      sql: bidTable(events) + sink + over("RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW") },
  ]
  return [...heap,
    ...heap.map(q => ({ ...q, name: `${q.name}-rocksdb`, backend: 'rocksdb' as const, what: `${q.what}, RocksDB, 64 MB cache`,
      sql: rocksdb('64 mb') + q.sql })
    )]
}
