// Temporal join benchmark against a deduplicating view: bids enriched with the latest auction their
// bidder had opened as a seller at the bid's time — the view keeps the last auction per seller by its
// rowtime, over the append-only auction stream of the same generator. `events` counts the generator's
// events once (each source generates the same stream and keeps its own table's rows).
import type { BenchQuery } from './queries.js'

const rocksdb = `SET 'state.backend' = 'rocksdb';\nSET 'state.cache.size' = '64 mb';\n`

export function versionedViewBenchQueries(scale = 1): BenchQuery[] {
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
  category BIGINT, extra STRING, WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (${nexmark('auction')});
CREATE VIEW latest_auction AS SELECT seller, id, category, dateTime FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY seller ORDER BY dateTime DESC) AS rn FROM auction) WHERE rn = 1;
CREATE TABLE sink (auction BIGINT, price BIGINT, opened BIGINT, category BIGINT, dateTime TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT b.auction, b.price, a.id, a.category, b.dateTime
FROM bid AS b JOIN latest_auction FOR SYSTEM_TIME AS OF b.dateTime AS a ON b.bidder = a.seller;`
  const query: BenchQuery = { name: 'temporal-view', backend: 'heap',
    what: "bids joined with their bidder's latest auction as a seller at their time (temporal join against a deduplicating view)", events, stateful: true, sql }
  return [query, { ...query, name: 'temporal-view-rocksdb', backend: 'rocksdb', what: `${query.what}, RocksDB, 64 MB cache`, sql: rocksdb + sql }]
}
