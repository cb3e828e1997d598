import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rankQueries } from './rank-queries.js'
import { temporalBenchQueries } from './temporal-queries.js'
import { versionedViewBenchQueries } from './versioned-view-queries.js'
// The Nexmark queries the benchmark runs, as Weir SQL over the built-in generator, into a blackhole sink.
import { joinQueries } from './join-queries.js'
import { overQueries } from './over-queries.js'
import { q14Statements } from './q14.js'
import { ptfQueries } from './ptf-queries.js'
import { q17Select, Q17_COLUMNS } from './q17.js'
import { timeJoinQueries } from './time-join-queries.js'

export interface BenchQuery {
  readonly name: string
  /** 'heap' or 'rocksdb' (state backend the query runs on). */
  readonly backend: 'heap' | 'rocksdb'
  readonly what: string
  /** Events (all kinds) the generator produces for this query. */
  readonly events: number
  readonly stateful: boolean
  readonly sql: string
}

const bidTable = (events: number): string => `
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '${events}', 'nexmark.event.rate' = '100000');
`

const sink = (columns: string): string => `CREATE TABLE sink (${columns}) WITH ('connector' = 'blackhole');\n`

/** Where the checkpointed variants put their checkpoints (query.ts empties it before and after): this process's own, so benchmarks run side by side keep theirs. */
export const BENCH_CHECKPOINTS = join(tmpdir(), `weir-bench-checkpoints-${process.pid}`)
const checkpointEvery = (interval: string): string =>
  `SET 'execution.checkpointing.interval' = '${interval}';\nSET 'state.checkpoints.dir' = 'file://${BENCH_CHECKPOINTS}';\n`
const rocksdb = (cache: string): string => `SET 'state.backend' = 'rocksdb';\nSET 'state.cache.size' = '${cache}';\n`

export function benchQueries(scale = 1): BenchQuery[] {
  const stateless = Math.round(4_000_000 * scale)
  const stateful = Math.round(2_000_000 * scale)
  const bigKeys = 10_000_000
  const bigEvents = Math.round(20_000_000 * scale)
  const heap: Omit<BenchQuery, 'backend'>[] = [
    {
      name: 'q0',
      what: 'pass-through',
      events: stateless,
      stateful: false,
      sql: bidTable(stateless) + sink('auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra STRING') +
        'INSERT INTO sink SELECT auction, bidder, price, dateTime, extra FROM bid;',
    },
    {
      name: 'q1',
      what: 'map: price in euros',
      events: stateless,
      stateful: false,
      sql: bidTable(stateless) + sink('auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), dateTime TIMESTAMP(3), extra STRING') +
        'INSERT INTO sink SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid;',
    },
    {
      name: 'q2',
      what: 'filter: auction mod 123 = 0',
      events: stateless,
      stateful: false,
      sql: bidTable(stateless) + sink('auction BIGINT, price BIGINT') +
        'INSERT INTO sink SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;',
    },
    {
      name: 'q14',
      what: 'map + filter with a user-defined function in TypeScript (count_char)',
      events: stateless,
      stateful: false,
      sql: bidTable(stateless) + q14Statements(),
    },
    {
      // What the UDF costs: q14 with count_char written as built-in functions.
      name: 'q14-builtin',
      what: "q14 with count_char as CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', ''))",
      events: stateless,
      stateful: false,
      sql: bidTable(stateless) + q14Statements().replace(/^CREATE FUNCTION.*\n/, '')
        .replace("count_char(extra, 'c')", "CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', ''))"),
    },
    {
      name: 'q5',
      what: 'HOP(2 s, 10 s) bid count per auction',
      events: stateful,
      stateful: true,
      sql: bidTable(stateful) + sink('auction BIGINT, num BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3)') +
        `INSERT INTO sink
         SELECT auction, COUNT(*) AS num, window_start, window_end
         FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
         GROUP BY auction, window_start, window_end;`,
    },
    {
      name: 'q11',
      what: 'SESSION(10 s) bid count per bidder',
      events: stateful,
      stateful: true,
      sql: bidTable(stateful) + sink('bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3)') +
        // Nexmark's published text: a legacy group window, which runs as the SESSION window TVF.
        `INSERT INTO sink
         SELECT B.bidder, count(*) as bid_count, SESSION_START(B.dateTime, INTERVAL '10' SECOND) as starttime,
           SESSION_END(B.dateTime, INTERVAL '10' SECOND) as endtime
         FROM bid B
         GROUP BY B.bidder, SESSION(B.dateTime, INTERVAL '10' SECOND);`,
    },
    {
      name: 'q17',
      what: 'GROUP BY auction, day: count, min, max, avg, sum',
      events: stateful,
      stateful: true,
      sql: bidTable(stateful) + sink(Q17_COLUMNS) + `INSERT INTO sink ${q17Select()}`,
    },
    ...joinQueries(stateful),
  ]
  const withBackend = (q: Omit<BenchQuery, 'backend'>): BenchQuery => ({ ...q, backend: 'heap' })
  const onHeap = heap.map(withBackend)
  const onRocks = onHeap
    .filter(q => ['q11', 'q17', 'q3', 'q4', 'q20', 'q5-published', 'q9'].includes(q.name))
    .map(q => ({ ...q, name: `${q.name}-rocksdb`, backend: 'rocksdb' as const, what: `${q.what}, RocksDB, hot set in a 64 MB cache`,
      sql: rocksdb('64 mb') + q.sql })
    )
  const big: BenchQuery = {
    name: 'count-10M',
    backend: 'rocksdb',
    events: bigEvents,
    stateful: true,
    what: `GROUP BY key over ${bigKeys.toLocaleString('en-US')} random keys, RocksDB, 64 MB cache`,
    sql: rocksdb('64 mb') + `
      CREATE TABLE ev (k BIGINT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '${bigEvents}',
        'fields.k.kind' = 'random', 'fields.k.min' = '1', 'fields.k.max' = '${bigKeys}', 'fields.v.kind' = 'random', 'fields.v.min' = '1', 'fields.v.max' = '1000', 'seed' = '1');
      CREATE TABLE sink (k BIGINT, c BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM ev GROUP BY k;`,
  }
  // The cost of checkpoints: q17 again with one every second (both backends incremental).
  const checkpointed = [...onHeap, ...onRocks]
    .filter(q => q.name === 'q17' || q.name === 'q17-rocksdb')
    .map(q => ({ ...q, name: `${q.name}-ckpt`, what: `${q.what}, a checkpoint every 1 s`, sql: checkpointEvery('1 s') + q.sql }))
  // Parallel subtasks on worker threads: the stateful queries again at parallelism 2 (`-p2`), beside their runs at 1.
  // q1-p2 is the cost of a thread hop: the generator's second split and its Calc run on a worker thread,
  // and their rows (half of all) cross to the sink on the job's thread; q1 runs all on one.
  const parallel = [...onHeap, ...onRocks, big]
    .filter(q => ['q1', 'q5', 'q11', 'q17', 'q20', 'q11-rocksdb', 'q17-rocksdb', 'q20-rocksdb', 'count-10M'].includes(q.name))
    .map(q => ({ ...q, name: `${q.name}-p2`, what: `${q.what}, parallelism 2 (worker threads)`,
      sql: `SET 'parallelism.default' = '2';\nSET 'execution.worker-threads' = 'true';\n` + q.sql })
    )
  // q11 and q17 at parallelism 2 with their subtasks taking turns on the job's thread ('-p2-1t'): beside
  // '-p2', what running two subtasks costs apart from the threads (the exchange's codec, a second isolate).
  const oneThread = onHeap.filter(q => q.name === 'q11' || q.name === 'q17')
    .map(q => ({ ...q, name: `${q.name}-p2-1t`, what: `${q.what}, parallelism 2 on one thread`,
      sql: `SET 'parallelism.default' = '2';\nSET 'execution.worker-threads' = 'false';\n` + q.sql })
    )
  // q1-hop is the thread hop alone: every row crosses one. The generator reads at 'scan.parallelism' 1 on
  // worker thread 1, and q1's Calc and the sink run on the job's thread (threads.ts).
  const hop = onHeap.filter(q => q.name === 'q1').map(q => ({ ...q, name: 'q1-hop', what: `${q.what}, generator on a worker thread (every row crosses)`,
    sql: `SET 'parallelism.default' = '2';\nSET 'execution.worker-threads' = 'true';\n` +
      q.sql.replace(`'nexmark.table' = 'bid',`, `'nexmark.table' = 'bid', 'scan.parallelism' = '1',`) })
  )
  return [...onHeap, ...onRocks, ...checkpointed, ...overQueries(stateful, bidTable, rocksdb), ...timeJoinQueries(scale), big, ...rankQueries(scale),
    ...temporalBenchQueries(scale), ...versionedViewBenchQueries(scale), ...parallel, ...oneThread, ...hop, ...ptfQueries(stateful, bidTable, rocksdb)]
}
