// Process table functions against the built-in GROUP BY that computes the same counts (issue 21's
// benchmark): a per-bidder counter in a ValueState, and a per-bidder count per auction in a MapState,
// on heap and on RocksDB. The function emits each new count as an insert; the GROUP BY as an update.
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BenchQuery } from './queries.js'

const HERE = fileURLToPath(import.meta.url)
/** The repository's bench/nexmark, from the sources (tests) or from dist/bench/nexmark (the built bench). */
const SOURCES = HERE.endsWith('.ts') ? dirname(HERE) : resolve(dirname(HERE), '../../../bench/nexmark')
const COUNTER = resolve(SOURCES, 'udf/bid-counter.ts')
const COUNTER_TYPED = resolve(SOURCES, 'udf/bid-counter-typed.ts')
const PER_AUCTION = resolve(SOURCES, 'udf/per-auction.ts')

export function ptfQueries(events: number, bidTable: (events: number) => string, rocksdb: (cache: string) => string): BenchQuery[] {
  const counter = `CREATE FUNCTION bid_counter AS '${COUNTER}';
    CREATE TABLE sink (bidder BIGINT, n BIGINT) WITH ('connector' = 'blackhole');\n`
  const perAuction = `CREATE FUNCTION per_auction AS '${PER_AUCTION}';
    CREATE TABLE sink (bidder BIGINT, auction BIGINT, n BIGINT) WITH ('connector' = 'blackhole');\n`
  const heap: Omit<BenchQuery, 'backend'>[] = [
    {
      name: 'ptf-count',
      what: 'process function: bids per bidder in a ValueState',
      sql: counter + 'INSERT INTO sink SELECT * FROM bid_counter(input => TABLE bid PARTITION BY bidder);',
    },
    {
      name: 'ptf-count-typed',
      what: 'ptf-count with its state declared codecs.number',
      sql: counter.replace(COUNTER, COUNTER_TYPED) + 'INSERT INTO sink SELECT * FROM bid_counter(input => TABLE bid PARTITION BY bidder);',
    },
    {
      name: 'ptf-count-groupby',
      what: 'the same counts by GROUP BY bidder',
      sql: counter.replace(/^CREATE FUNCTION.*\n/, '') + 'INSERT INTO sink SELECT bidder, COUNT(*) FROM bid GROUP BY bidder;',
    },
    {
      name: 'ptf-map',
      what: 'process function: bids per bidder and auction in a MapState',
      sql: perAuction + 'INSERT INTO sink SELECT * FROM per_auction(input => TABLE bid PARTITION BY bidder);',
    },
    {
      name: 'ptf-map-groupby',
      what: 'the same counts by GROUP BY bidder, auction',
      sql: perAuction.replace(/^CREATE FUNCTION.*\n/, '') + 'INSERT INTO sink SELECT bidder, auction, COUNT(*) FROM bid GROUP BY bidder, auction;',
    },
  ].map(q => ({ ...q, events, stateful: true, sql: bidTable(events) + q.sql }))
  return [
    ...heap.map(q => ({ ...q, backend: 'heap' as const })),
    ...heap.map(q => ({ ...q, name: `${q.name}-rocksdb`, backend: 'rocksdb' as const, what: `${q.what}, RocksDB, 64 MB cache`,
      sql: rocksdb('64 mb') + q.sql })
    ),
  ]
}
