// Temporal join benchmark queries: bids enriched with the version of their auction valid at the
// bid's time, the auctions read as a versioned table (PRIMARY KEY id, a watermark) from the same
// generator. `events` counts the generator's events once (each source generates the same stream
// and keeps its own table's rows).
import type { BenchQuery } from './queries.js'

const rocksdb = `SET 'state.backend' = 'rocksdb';\nSET 'state.cache.size' = '64 mb';\n`

export function temporalBenchQueries(scale = 1): BenchQuery[] {
  const events = Math.round(2_000_000 * scale)
  const nexmark = (table: string) =>
    `'connector' = 'nexmark', 'nexmark.table' = '${table}', 'nexmark.events.num' = '${events}', 'nexmark.event.rate' = '100000'`
  const sql = `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (${nexmark('bid')});
CREATE TABLE auction (
  id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT,
  category BIGINT, extra STRING, PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (${nexmark('auction')});
CREATE TABLE sink (auction BIGINT, price BIGINT, seller BIGINT, category BIGINT, dateTime TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT b.auction, b.price, a.seller, a.category, b.dateTime
FROM bid AS b JOIN auction FOR SYSTEM_TIME AS OF b.dateTime AS a ON b.auction = a.id;`
  const query: BenchQuery = { name: 'temporal', backend: 'heap', what: 'bids joined with the auction version valid at their time (event-time temporal join)',
    events, stateful: true, sql }
  return [query, { ...query, name: 'temporal-rocksdb', backend: 'rocksdb', what: `${query.what}, RocksDB, 64 MB cache`, sql: rocksdb + sql }]
}
