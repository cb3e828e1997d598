// Measures the Nexmark generator alone: rows/s and events/s (all kinds walked) for the bid table with
// every column, a two-column subset, and the auction and person tables, through the SourceReader API.
import { T, type Field } from '../common/types.js'
import { nexmarkConnector } from '../connectors/nexmark/index.js'
import { BID_SCHEMA } from './kafka/bids.js'

const BID = BID_SCHEMA
const AUCTION: Field[] = ['id', 'itemName', 'description', 'initialBid', 'reserve', 'dateTime', 'expires', 'seller', 'category', 'extra']
  .map(name => ({ name, type: name === 'dateTime' || name === 'expires'
    ? T.timestamp(3)
    : ['id', 'initialBid', 'reserve', 'seller', 'category'].includes(name)
    ? T.bigint()
    : T.string() })
  )
const PERSON: Field[] = ['id', 'name', 'emailAddress', 'creditCard', 'city', 'state', 'dateTime', 'extra']
  .map(name => ({ name, type: name === 'dateTime' ? T.timestamp(3) : name === 'id' ? T.bigint() : T.string() }))

async function run(label: string, table: string, schema: Field[], events: number): Promise<void> {
  const options = { connector: 'nexmark', 'nexmark.table': table, 'nexmark.events.num': String(events) }
  const reader = await nexmarkConnector.source!.create({
    table,
    options,
    schema,
    signal: new AbortController().signal,
    batchSize: 1024,
  })
  let rows = 0
  let check = 0
  const start = process.hrtime.bigint()
  for (;;) {
    const chunk = await reader.next()
    if (chunk === null) break
    rows += chunk.rows.length
    // Touch the rows so the work cannot be skipped.
    if (chunk.rows.length > 0) check += (chunk.rows[chunk.rows.length - 1]![0] as number | bigint) ? 1 : 0
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  console.log(
    `${label.padEnd(28)} ${(rows / seconds / 1e6).toFixed(2).padStart(6)} M rows/s  ${
      (events / seconds / 1e6).toFixed(2).padStart(6)
    } M events/s  (${rows} rows in ${seconds.toFixed(2)} s${check < 0 ? '' : ''})`,
  )
  await reader.close()
}

const events = Number(process.argv[2] ?? 20_000_000)
await run('warm-up (bid, all columns)', 'bid', BID, 2_000_000)
await run('bid, all 7 columns', 'bid', BID, events)
await run('bid, auction + price', 'bid', [BID[0]!, BID[2]!], events)
await run('auction, all columns', 'auction', AUCTION, events)
await run('person, all columns', 'person', PERSON, events)
