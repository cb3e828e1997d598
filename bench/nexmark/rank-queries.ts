// Nexmark's deduplication and Top-N queries with their published text (Flink's nexmark suite) over
// Weir's generator table `bid`, into a blackhole, on heap and on RocksDB.
import type { BenchQuery } from './queries.js'

const bidTable = (events: number): string => `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '${events}', 'nexmark.event.rate' = '100000');
`

const BID_COLUMNS = 'auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, dateTime TIMESTAMP(3), extra VARCHAR'

export function rankQueries(scale = 1): BenchQuery[] {
  const events = Math.round(2_000_000 * scale)
  const heap: BenchQuery[] = [
    {
      name: 'q18',
      backend: 'heap',
      what: 'dedup: last bid per bidder and auction (ROW_NUMBER … DESC <= 1)',
      events,
      stateful: true,
      sql: bidTable(events) + `CREATE TABLE discard_sink (${BID_COLUMNS}) WITH ('connector' = 'blackhole');
        INSERT INTO discard_sink
        SELECT auction, bidder, price, channel, url, dateTime, extra
         FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS rank_number
               FROM bid)
         WHERE rank_number <= 1;`,
    },
    {
      name: 'q19',
      backend: 'heap',
      what: 'Top-N: top 10 bids per auction by price (ROW_NUMBER <= 10)',
      events,
      stateful: true,
      sql: bidTable(events) + `CREATE TABLE discard_sink (${BID_COLUMNS}, rank_number BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO discard_sink
        SELECT * FROM
        (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
        WHERE rank_number <= 10;`,
    },
  ]
  const onRocks = heap.map(q => ({ ...q, name: `${q.name}-rocksdb`, backend: 'rocksdb' as const, what: `${q.what}, RocksDB, 64 MB cache`,
    sql: `SET 'state.backend' = 'rocksdb';\nSET 'state.cache.size' = '64 mb';\n${q.sql}` })
  )
  return [...heap, ...onRocks]
}
