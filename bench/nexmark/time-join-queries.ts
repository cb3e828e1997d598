// Nexmark q7 (an interval join of bids with their tumbling window's highest price) and q8 (a window
// join of new persons and new sellers' auctions in the same tumbling window), with their published
// text over Weir's generator tables, on heap and on RocksDB.
import { ALIGNED } from './join-queries.js'
import type { BenchQuery } from './queries.js'

const table = (name: 'person' | 'auction' | 'bid', columns: string, events: number): string => `
CREATE TABLE ${name} (
  ${columns},
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = '${name}', 'nexmark.events.num' = '${events}', 'nexmark.event.rate' = '100000'${ALIGNED});
`
const BID = 'auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING'
const PERSON = 'id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, state STRING, dateTime TIMESTAMP(3), extra STRING'
const AUCTION = 'id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), '
  + 'seller BIGINT, category BIGINT, extra STRING'

export function timeJoinQueries(scale = 1): BenchQuery[] {
  const q7Events = Math.round(1_000_000 * scale)
  const q8Events = Math.round(4_000_000 * scale)
  const heap: BenchQuery[] = [
    {
      name: 'q7',
      backend: 'heap',
      what: 'interval join: bids with the highest price of their 10 s tumbling window',
      events: q7Events,
      stateful: true,
      sql: table('bid', BID, q7Events) + `
        CREATE TABLE discard_sink (auction BIGINT, price BIGINT, bidder BIGINT, dateTime TIMESTAMP(3), extra VARCHAR) WITH ('connector' = 'blackhole');
        INSERT INTO discard_sink
        SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra
        from bid B
        JOIN (
          SELECT MAX(price) AS maxprice, window_end as dateTime
          FROM TABLE(
                  TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
          GROUP BY window_start, window_end
        ) B1
        ON B.price = B1.maxprice
        WHERE
          B.dateTime BETWEEN B1.dateTime  - INTERVAL '10' SECOND AND B1.dateTime;`,
    },
    {
      name: 'q8',
      backend: 'heap',
      what: 'window join: persons and sellers new in the same 10 s tumbling window',
      events: q8Events,
      stateful: true,
      sql: table('person', PERSON, q8Events) + table('auction', AUCTION, q8Events) + `
        CREATE TABLE discard_sink (id BIGINT, name VARCHAR, stime TIMESTAMP(3)) WITH ('connector' = 'blackhole');
        INSERT INTO discard_sink
        SELECT P.id, P.name, P.starttime
        FROM (
          SELECT id, name,
                 window_start AS starttime,
                 window_end AS endtime
          FROM TABLE(
                    TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
          GROUP BY id, name, window_start, window_end
        ) P
        JOIN (
          SELECT seller,
                 window_start AS starttime,
                 window_end AS endtime
          FROM TABLE(
                    TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
          GROUP BY seller, window_start, window_end
        ) A
        ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime;`,
    },
  ]
  const rocks = heap.map(q => ({
    ...q,
    name: `${q.name}-rocksdb`,
    backend: 'rocksdb' as const,
    what: `${q.what}, RocksDB, 64 MB cache`,
    sql: `SET 'state.backend' = 'rocksdb';\nSET 'state.cache.size' = '64 mb';\n${q.sql}`,
  }))
  return [...heap, ...rocks]
}
