// State TTL on RocksDB: a stream of ever-new keys counted per key, with and without a TTL; prints
// live entries, entries stored on disk and the state folder's size at the end of the job.
// Run on compiled output: `node dist/bench/state/ttl-disk.js 2000000 '2 s'` (or `none` for no TTL).
import { Session } from '../../engine/session.js'

const events = Number(process.argv[2] ?? '1000000')
const ttl = process.argv[3] ?? '2 s'
const session = new Session({ println: () => undefined, countStoredState: true })
const start = Date.now()
await session.executeSql(`SET 'state.backend' = 'rocksdb'; ${ttl !== 'none' ? `SET 'table.exec.state.ttl' = '${ttl}';` : ''}
  CREATE TABLE ev (k BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '${events}',
    'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '${events}');
  CREATE TABLE sink (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
  INSERT INTO sink SELECT k, COUNT(*) FROM ev GROUP BY k;`)
const [m] = await session.awaitJobs()
const seconds = (Date.now() - start) / 1000
process.stdout.write(
  `${events.toLocaleString('en-US')} new keys, TTL ${ttl}: ${
    Object.values(m!.stateEntries).reduce((a, b) => a + b, 0).toLocaleString('en-US')
  } live entries, ` +
    `${(m!.stateStoredEntries ?? 0).toLocaleString('en-US')} stored, state folder ${((m!.stateDiskBytes ?? 0) / 2 ** 20).toFixed(1)} MB, ` +
    `${Math.round(events / seconds).toLocaleString('en-US')} events/s\n`,
)
