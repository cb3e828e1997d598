// Flink's pages on windowing table-valued functions, window aggregation and window Top-N,
// deduplication and joins (docs/content/docs/dev/table/sql/queries/window-*.md): their examples,
// over the bid tables they show, with the results they show.
import type { CompatPage, CompatTable } from '../compat-case.js'

const bidRows = (rows: readonly (readonly [string, string, string])[]) => rows.map(([t, price, item]) => ({ bidtime: `2020-04-15 ${t}:00`, price, item }))

/** The six bids of the window TVF page. */
const BID: CompatTable = {
  name: 'Bid',
  columns: "bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND",
  rows: bidRows([['08:05', '4.00', 'C'], ['08:07', '2.00', 'A'], ['08:09', '5.00', 'D'], ['08:11', '3.00', 'B'], ['08:13', '1.00', 'E'], [
    '08:17',
    '6.00',
    'F',
  ]]),
}

/** The nine bids with suppliers of the window aggregation and window Top-N pages. */
const SUPPLIER_BID: CompatTable = {
  name: 'SBid',
  columns: "bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING, supplier_id STRING, WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND",
  rows: [
    ['08:05', '4.00', 'A', 'supplier1'],
    ['08:06', '4.00', 'C', 'supplier2'],
    ['08:07', '2.00', 'G', 'supplier1'],
    ['08:08', '2.00', 'B', 'supplier3'],
    ['08:09', '5.00', 'D', 'supplier4'],
    ['08:11', '2.00', 'B', 'supplier3'],
    ['08:13', '1.00', 'E', 'supplier1'],
    ['08:15', '3.00', 'H', 'supplier2'],
    ['08:17', '6.00', 'F', 'supplier5'],
  ].map(([t, price, item, supplier_id]) => ({ bidtime: `2020-04-15 ${t}:00`, price, item, supplier_id })),
}

const w = (start: string, end: string) => `2020-04-15 ${start}:00.000 | 2020-04-15 ${end}:00.000`

export const WINDOW_PAGES: readonly CompatPage[] = [{
  page: 'sql/queries/window-tvf.md',
  tables: [BID],
  cases: [
    {
      name: 'TUMBLE: each bid with its 10-minute window',
      sql: "SELECT * FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))",
      expect: [
        ['08:05', '4.00', 'C', '08:00', '08:10'],
        ['08:07', '2.00', 'A', '08:00', '08:10'],
        ['08:09', '5.00', 'D', '08:00', '08:10'],
        ['08:11', '3.00', 'B', '08:10', '08:20'],
        ['08:13', '1.00', 'E', '08:10', '08:20'],
        ['08:17', '6.00', 'F', '08:10', '08:20'],
      ].map(([t, p, i, s, e]) => `2020-04-15 ${t}:00.000 | ${p} | ${i} | ${w(s!, e!)} | 2020-04-15 ${e === '08:10' ? '08:09' : '08:19'}:59.999`),
    },
    {
      name: 'TUMBLE with named arguments, summed per window',
      sql: `SELECT window_start, window_end, SUM(price) AS total_price
        FROM TABLE(TUMBLE(DATA => TABLE Bid, TIMECOL => DESCRIPTOR(bidtime), SIZE => INTERVAL '10' MINUTES))
        GROUP BY window_start, window_end`,
      expect: [`${w('08:00', '08:10')} | 11.00`, `${w('08:10', '08:20')} | 10.00`],
    },
    {
      name: 'HOP: 10-minute windows every 5 minutes, summed',
      sql: `SELECT window_start, window_end, SUM(price) AS total_price
        FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
        GROUP BY window_start, window_end`,
      expect: [
        `${w('08:00', '08:10')} | 11.00`,
        `${w('08:05', '08:15')} | 15.00`,
        `${w('08:10', '08:20')} | 10.00`,
        `${w('08:15', '08:25')} | 6.00`,
      ],
    },
    {
      name: 'HOP: each bid in its two windows',
      sql: "SELECT item, window_start FROM TABLE(HOP(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) WHERE item = 'C'",
      expect: ['C | 2020-04-15 08:00:00.000', 'C | 2020-04-15 08:05:00.000'],
    },
    {
      name: 'CUMULATE: 2-minute steps up to 10 minutes, summed',
      sql: `SELECT window_start, window_end, SUM(price) AS total_price
        FROM TABLE(CUMULATE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES))
        GROUP BY window_start, window_end`,
      expect: [
        `${w('08:00', '08:06')} | 4.00`,
        `${w('08:00', '08:08')} | 6.00`,
        `${w('08:00', '08:10')} | 11.00`,
        `${w('08:10', '08:12')} | 3.00`,
        `${w('08:10', '08:14')} | 4.00`,
        `${w('08:10', '08:16')} | 4.00`,
        `${w('08:10', '08:18')} | 10.00`,
        `${w('08:10', '08:20')} | 10.00`,
      ],
    },
    {
      name: 'SESSION per item, 5-minute gap',
      sql: `SELECT window_start, window_end, item, SUM(price) AS total_price
        FROM TABLE(SESSION(TABLE Bid PARTITION BY item, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
        GROUP BY item, window_start, window_end`,
      expect: [
        `${w('08:05', '08:10')} | C | 4.00`,
        `${w('08:07', '08:12')} | A | 2.00`,
        `${w('08:09', '08:14')} | D | 5.00`,
        `${w('08:11', '08:16')} | B | 3.00`,
        `${w('08:13', '08:18')} | E | 1.00`,
        `${w('08:17', '08:22')} | F | 6.00`,
      ],
    },
    {
      name: 'window offset: TUMBLE with OFFSET => 1 minute',
      sql: `SELECT window_start, window_end, SUM(price) AS total_price
        FROM TABLE(TUMBLE(TABLE Bid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES))
        GROUP BY window_start, window_end`,
      expect: [`${w('08:01', '08:11')} | 11.00`, `${w('08:11', '08:21')} | 10.00`],
    },
  ],
}, {
  page: 'sql/queries/window-agg.md',
  tables: [SUPPLIER_BID],
  cases: [
    {
      name: 'GROUPING SETS in a window aggregate',
      sql: `SELECT window_start, window_end, supplier_id, SUM(price) AS total_price
        FROM TABLE(TUMBLE(TABLE SBid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
        GROUP BY window_start, window_end, GROUPING SETS ((supplier_id), ())`,
      expect: [
        `${w('08:00', '08:10')} | NULL | 17.00`,
        `${w('08:00', '08:10')} | supplier1 | 6.00`,
        `${w('08:00', '08:10')} | supplier2 | 4.00`,
        `${w('08:00', '08:10')} | supplier3 | 2.00`,
        `${w('08:00', '08:10')} | supplier4 | 5.00`,
        `${w('08:10', '08:20')} | NULL | 12.00`,
        `${w('08:10', '08:20')} | supplier1 | 1.00`,
        `${w('08:10', '08:20')} | supplier2 | 3.00`,
        `${w('08:10', '08:20')} | supplier3 | 2.00`,
        `${w('08:10', '08:20')} | supplier5 | 6.00`,
      ],
    },
    {
      name: 'ROLLUP in a window aggregate',
      sql: `SELECT window_start, window_end, supplier_id, SUM(price) AS total_price
        FROM TABLE(TUMBLE(TABLE SBid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
        GROUP BY window_start, window_end, ROLLUP (supplier_id)`,
      expect: [
        `${w('08:00', '08:10')} | NULL | 17.00`,
        `${w('08:00', '08:10')} | supplier1 | 6.00`,
        `${w('08:00', '08:10')} | supplier2 | 4.00`,
        `${w('08:00', '08:10')} | supplier3 | 2.00`,
        `${w('08:00', '08:10')} | supplier4 | 5.00`,
        `${w('08:10', '08:20')} | NULL | 12.00`,
        `${w('08:10', '08:20')} | supplier1 | 1.00`,
        `${w('08:10', '08:20')} | supplier2 | 3.00`,
        `${w('08:10', '08:20')} | supplier3 | 2.00`,
        `${w('08:10', '08:20')} | supplier5 | 6.00`,
      ],
    },
    {
      name: 'cascading window aggregates: a window over window_time of another',
      sql: `CREATE VIEW window1 AS
          SELECT window_start AS window_5mintumble_start, window_end AS window_5mintumble_end, window_time AS rowtime, SUM(price) AS partial_price
          FROM TABLE(TUMBLE(TABLE SBid, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES))
          GROUP BY supplier_id, window_start, window_end, window_time;
        SELECT window_start, window_end, SUM(partial_price) AS total_price
          FROM TABLE(TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES))
          GROUP BY window_start, window_end`,
      expect: [`${w('08:00', '08:10')} | 17.00`, `${w('08:10', '08:20')} | 12.00`],
    },
  ],
}, {
  page: 'sql/queries/window-topn.md',
  tables: [SUPPLIER_BID],
  cases: [{
    name: 'top 3 suppliers by price per 10-minute window',
    sql: `SELECT * FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
        FROM (SELECT window_start, window_end, supplier_id, SUM(price) AS price, COUNT(*) AS cnt
          FROM TABLE(TUMBLE(TABLE SBid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
          GROUP BY window_start, window_end, supplier_id)
      ) WHERE rownum <= 3`,
    expect: [
      `${w('08:00', '08:10')} | supplier1 | 6.00 | 2 | 1`,
      `${w('08:00', '08:10')} | supplier4 | 5.00 | 1 | 2`,
      `${w('08:00', '08:10')} | supplier2 | 4.00 | 1 | 3`,
      `${w('08:10', '08:20')} | supplier5 | 6.00 | 1 | 1`,
      `${w('08:10', '08:20')} | supplier2 | 3.00 | 1 | 2`,
      `${w('08:10', '08:20')} | supplier3 | 2.00 | 1 | 3`,
    ],
  }, {
    name: 'top 3 items by price per window, on the window TVF directly',
    sql: `SELECT bidtime, price, item, supplier_id, window_start, window_end, rownum FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
        FROM TABLE(TUMBLE(TABLE SBid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      ) WHERE rownum <= 3`,
    expect: [
      `2020-04-15 08:09:00.000 | 5.00 | D | supplier4 | ${w('08:00', '08:10')} | 1`,
      `2020-04-15 08:05:00.000 | 4.00 | A | supplier1 | ${w('08:00', '08:10')} | 2`,
      `2020-04-15 08:06:00.000 | 4.00 | C | supplier2 | ${w('08:00', '08:10')} | 3`,
      `2020-04-15 08:17:00.000 | 6.00 | F | supplier5 | ${w('08:10', '08:20')} | 1`,
      `2020-04-15 08:15:00.000 | 3.00 | H | supplier2 | ${w('08:10', '08:20')} | 2`,
      `2020-04-15 08:11:00.000 | 2.00 | B | supplier3 | ${w('08:10', '08:20')} | 3`,
    ],
  }],
}, {
  page: 'sql/queries/window-deduplication.md',
  tables: [SUPPLIER_BID],
  cases: [{
    name: 'the last bid of each 10-minute window',
    sql: `SELECT bidtime, price, item, supplier_id, window_start, window_end, rownum FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bidtime DESC) AS rownum
        FROM TABLE(TUMBLE(TABLE SBid, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
      ) WHERE rownum <= 1`,
    expect: [
      `2020-04-15 08:09:00.000 | 5.00 | D | supplier4 | ${w('08:00', '08:10')} | 1`,
      `2020-04-15 08:17:00.000 | 6.00 | F | supplier5 | ${w('08:10', '08:20')} | 1`,
    ],
  }],
}]
