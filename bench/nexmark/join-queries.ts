// The Nexmark join queries the benchmark runs (q3, q4, q20, q5 as published, q9), with their published text over Weir's
// generator tables: each table reads its own kind of the same event sequence of `events` events.
import type { BenchQuery } from './queries.js'

type Table = 'person' | 'auction' | 'bid'

const COLUMNS: Record<Table, string> = {
  person: 'id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, state STRING, dateTime TIMESTAMP(3), extra STRING',
  auction: 'id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), ' +
    'seller BIGINT, category BIGINT, extra STRING',
  bid: 'auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING',
}

/**
 * The tables of a query are read in step, within 1 s of event time (Flink's watermark alignment; its
 * published setup reads every table from one generator, in step by construction). Without it an
 * auction chunk, which spans ~17 times the events a bid chunk does, runs ahead, and q9's join keeps
 * (on RocksDB evicts and re-reads) auctions whose bids come much later.
 */
export const ALIGNED = ",\n  'scan.watermark.alignment.group' = 'nexmark', 'scan.watermark.alignment.max-drift' = '1 s'"

const table = (name: Table, events: number): string => `
CREATE TABLE ${name} (${COLUMNS[name]},
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = '${name}', 'nexmark.events.num' = '${events}', 'nexmark.event.rate' = '100000'${ALIGNED});
`

/** Nexmark q5 as published (hot items): the same HOP(2 s, 10 s) count of bids per auction, joined with its maximum per window. */
export const Q5_PUBLISHED = `
SELECT AuctionBids.auction, AuctionBids.num
FROM (
  SELECT auction, count(*) AS num, window_start AS starttime, window_end AS endtime
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(\`dateTime\`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
  GROUP BY auction, window_start, window_end
) AS AuctionBids
JOIN (
  SELECT max(CountBids.num) AS maxn, CountBids.starttime, CountBids.endtime
  FROM (
    SELECT count(*) AS num, window_start AS starttime, window_end AS endtime
    FROM TABLE(HOP(TABLE bid, DESCRIPTOR(\`dateTime\`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
    GROUP BY auction, window_start, window_end
  ) AS CountBids
  GROUP BY CountBids.starttime, CountBids.endtime
) AS MaxBids
ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime AND AuctionBids.num >= MaxBids.maxn`

/** q3, q20 and q4 on the heap backend (queries.ts adds their RocksDB variants). */
export function joinQueries(events: number): Omit<BenchQuery, 'backend'>[] {
  return [
    {
      name: 'q3',
      what: 'local item suggestion: auction ⋈ person (category 10, OR/ID/CA)',
      events,
      stateful: true,
      sql: table('auction', events) + table('person', events) + `
        CREATE TABLE nexmark_q3 (name VARCHAR, city VARCHAR, state VARCHAR, id BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO nexmark_q3
        SELECT P.name, P.city, P.state, A.id
        FROM auction AS A INNER JOIN person AS P on A.seller = P.id
        WHERE A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');`,
    },
    {
      name: 'q20',
      what: 'expanded bid with auction: bid ⋈ auction (category 10)',
      events,
      stateful: true,
      sql: table('auction', events) + table('bid', events) + `
        CREATE TABLE nexmark_q20 (
          auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, bid_dateTime TIMESTAMP(3), bid_extra VARCHAR,
          itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, auction_dateTime TIMESTAMP(3), expires TIMESTAMP(3),
          seller BIGINT, category BIGINT, auction_extra VARCHAR
        ) WITH ('connector' = 'blackhole');
        INSERT INTO nexmark_q20
        SELECT
          auction, bidder, price, channel, url, B.\`dateTime\`, B.extra,
          itemName, description, initialBid, reserve, A.\`dateTime\`, expires, seller, category, A.extra
        FROM
          bid AS B INNER JOIN auction AS A on B.auction = A.id
        WHERE A.category = 10;`,
    },
    {
      name: 'q4',
      what: 'average winning bid per category: auction ⋈ bid, two GROUP BYs',
      events,
      stateful: true,
      sql: table('auction', events) + table('bid', events) + `
        CREATE TABLE nexmark_q4 (id BIGINT, final BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO nexmark_q4
        SELECT
          Q.category,
          AVG(Q.final)
        FROM (
          SELECT MAX(B.price) AS final, A.category
          FROM auction A, bid B
          WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
          GROUP BY A.id, A.category
        ) Q
        GROUP BY Q.category;`,
    },
    {
      name: 'q5-published',
      what: 'hot items as published: HOP(2 s, 10 s) counts per auction ⋈ their maximum per window',
      events,
      stateful: true,
      sql: table('bid', events) + `
        CREATE TABLE nexmark_q5 (auction BIGINT, num BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO nexmark_q5
        ${Q5_PUBLISHED};`,
    },
    {
      name: 'q9',
      what: 'winning bids: auction ⋈ bid within its lifetime, Top-1 by price per auction',
      events,
      stateful: true,
      sql: table('auction', events) + table('bid', events) + `
        CREATE TABLE nexmark_q9 (
          id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3),
          seller BIGINT, category BIGINT, extra VARCHAR, auction BIGINT, bidder BIGINT, price BIGINT, bid_dateTime TIMESTAMP(3), bid_extra VARCHAR
        ) WITH ('connector' = 'blackhole');
        INSERT INTO nexmark_q9
        SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra, auction, bidder, price, bid_dateTime, bid_extra
        FROM (
          SELECT A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
            ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC) AS rownum
          FROM auction A, bid B
          WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
        )
        WHERE rownum <= 1;`,
    },
  ]
}
