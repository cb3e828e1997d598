// Measures the filesystem JSON source end to end in a job: the Nexmark bids of N events (1.84M of
// 2M) as JSON lines in one file (written before the clock starts), read by a query into a blackhole
// sink, each query in a fresh Session. Prints events/s (wall clock, bids / time from submitting the
// job to its end) and CPU-µs per bid of this process (all threads; "main" is the JS thread).
//
// Queries: q0 (`SELECT *`: every column decoded), proj (`SELECT auction, price, dateTime`: the
// columns q17 reads) and q17 (GROUP BY auction, day with heap state); read-all and read-proj drain
// the source's reader directly, without a job (every column read, or those of proj); decode-all and
// decode-proj do the decode worker's work alone on this thread (its reader into column batches, no
// messages, no rows made), to measure the scanner apart from the threads around it.
//
// Usage: node dist/bench/file-source-speed.js [EVENTS] [FILE] [QUERY[:thread|:main][:pN]...]
// A ':thread' / ':main' suffix sets 'source.decode-thread' to 'true' / 'false' (default: 'auto'), so
// the two can alternate in one run: q0:main q0:thread q0:main q0:thread. ':p2' runs the job at
// 'parallelism.default' = 2 on worker threads: the file's byte ranges ('source.split-size', default
// 32 MB) are dealt to 2 source subtasks (queries only, not read-all / read-proj).
// FILE is written when missing and kept (so builds can be compared on one file, alternating);
// without it a temporary file is used and removed.
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { finished } from 'node:stream/promises'
import { ColumnBatchBuilder } from '../connectors/filesystem/column-batch.js'
import { filesystemConnector } from '../connectors/filesystem/index.js'
import { resolveFsOptions } from '../connectors/filesystem/options.js'
import { decoderFor, FileSourceReader, jsonScanner, scannedColumns } from '../connectors/filesystem/source.js'
import { ownSplits } from '../connectors/filesystem/splits.js'
import { Session } from '../engine/session.js'
import { BID_SCHEMA } from './kafka/bids.js'
import { bidRows, encodeBid } from './kafka/bids.js'
import { threadCpuSeconds } from './measure.js'
import { q17Select, Q17_COLUMNS } from './nexmark/q17.js'

const BID = 'auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING'

const QUERIES: Record<string, string> = {
  q0: `CREATE TABLE sink (${BID}) WITH ('connector' = 'blackhole');
       INSERT INTO sink SELECT * FROM bid;`,
  proj: `CREATE TABLE sink (auction BIGINT, price BIGINT, dateTime TIMESTAMP(3)) WITH ('connector' = 'blackhole');
         INSERT INTO sink SELECT auction, price, dateTime FROM bid;`,
  q17: `CREATE TABLE sink (${Q17_COLUMNS}) WITH ('connector' = 'blackhole');
        INSERT INTO sink ${q17Select()}`,
}

/** The source's reader alone, drained: every column read, or auction, price and dateTime; how many rows. */
async function readDirect(file: string, projected: boolean, thread: string): Promise<number> {
  const reader = await filesystemConnector.source!.create({
    table: 'bid',
    options: { connector: 'filesystem', path: file, format: 'json', 'source.decode-thread': thread },
    schema: BID_SCHEMA,
    signal: new AbortController().signal,
    batchSize: 1024,
    ...(projected ? { readColumns: BID_SCHEMA.map(f => ['auction', 'price', 'dateTime'].includes(f.name)) } : {}),
  })
  let n = 0
  for (let c = await reader.next(); c !== null; c = await reader.next()) n += c.rows.length
  await reader.close()
  return n
}

/** The decode worker's work on this thread: the file's chunks read into column batches (every column, or those of proj); how many rows. */
async function decodeDirect(file: string, projected: boolean): Promise<number> {
  const ctx = {
    table: 'bid',
    options: { connector: 'filesystem', path: file, format: 'json' },
    schema: BID_SCHEMA,
    signal: new AbortController().signal,
    batchSize: 1024,
    ...(projected ? { readColumns: BID_SCHEMA.map(f => ['auction', 'price', 'dateTime'].includes(f.name)) } : {}),
  }
  const config = resolveFsOptions(ctx.options)
  const decoder = decoderFor(config, ctx)
  const reader = new FileSourceReader(await ownSplits([file], config, ctx), decoder, jsonScanner(decoder, config, ctx), false, ctx)
  const columns = new ColumnBatchBuilder(ctx.schema, scannedColumns(ctx), ctx.batchSize)
  let spare: ArrayBuffer | null = null
  let n = 0
  while ((await reader.nextInto(columns)) !== null) {
    const { layout, buffer } = columns.finish(spare)
    n += layout.rows
    spare = buffer
  }
  await reader.close()
  return n
}

/** Writes the bids of `events` Nexmark events to `file` as JSON lines; returns how many. */
async function writeBids(file: string, events: number): Promise<number> {
  const out = createWriteStream(file)
  let n = 0
  for await (const rows of bidRows(events)) {
    n += rows.length
    if (!out.write(rows.map(r => encodeBid(r) + '\n').join(''))) await new Promise<void>(resolve => out.once('drain', () => resolve()))
  }
  out.end()
  await finished(out)
  return n
}

const events = Number(process.argv[2] ?? 2_000_000)
const given = process.argv[3]
const names = process.argv.slice(4)
const dir = given === undefined ? mkdtempSync(join(tmpdir(), 'weir-file-bench-')) : null
const file = given ?? join(dir!, 'bids.json')
try {
  if (!existsSync(file)) console.log(`wrote ${await writeBids(file, events)} bids to ${file}`)
  for (const arg of names.length === 0 ? Object.keys(QUERIES) : names) {
    const [name = arg, ...variants] = arg.split(':')
    const thread = variants.includes('thread') ? 'true' : variants.includes('main') ? 'false' : 'auto'
    const parallelism = Number(variants.find(v => /^p\d+$/.test(v))?.slice(1) ?? 1)
    const sql = QUERIES[name]
    const direct = name === 'read-all' || name === 'read-proj'
    const decodeOnly = name === 'decode-all' || name === 'decode-proj'
    if (sql === undefined && !direct && !decodeOnly) {
      throw new Error(`unknown query '${name}' (${Object.keys(QUERIES).join(', ')}, read-all, read-proj, decode-all, decode-proj)`)
    }
    const cpu = process.cpuUsage()
    const main = threadCpuSeconds() ?? 0
    const start = performance.now()
    let n: number
    if (direct) n = await readDirect(file, name === 'read-proj', thread)
    else if (decodeOnly) n = await decodeDirect(file, name === 'decode-proj')
    else {
      const session = new Session({ println: () => undefined })
      const parallel = parallelism === 1 ? '' : `SET 'parallelism.default' = '${parallelism}';\nSET 'execution.worker-threads' = 'true';\n`
      await session.executeSql(
        `${parallel}CREATE TABLE bid (${BID}) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'json', 'source.decode-thread' = '${thread}');\n${sql}`,
      )
      const [m] = await session.awaitJobs()
      n = m!.sourceRecordsRead
    }
    const seconds = (performance.now() - start) / 1000
    const used = process.cpuUsage(cpu)
    const mainUs = ((threadCpuSeconds() ?? 0) - main) * 1e6
    console.log(
      `${arg}: ${n} bids in ${seconds.toFixed(2)} s: ${Math.round(n / seconds)} events/s, ` +
        `${((used.user + used.system) / n).toFixed(2)} CPU-µs/event (main ${(mainUs / n).toFixed(2)})`,
    )
  }
} finally {
  if (dir !== null) rmSync(dir, { recursive: true, force: true })
}
