// Nexmark bids as Kafka messages for the Kafka benchmark: the built-in generator's bid rows (all
// seven columns) encoded as the JSON the 'json' format reads, and a producer that writes them to a
// topic, spreading them round robin over its partitions in large requests.
import type { Producer } from 'kafkajs'
import { T, type Field } from '../../common/types.js'
import type { Row } from '../../core/batch.js'
import { jsonRowEncoder } from '../../connectors/filesystem/encoders.js'
import { TABLE_FIELDS } from '../../connectors/nexmark/config.js'
import { nexmarkConnector } from '../../connectors/nexmark/index.js'

/** The connector's bid fields (connectors/nexmark/config.ts), typed as the bench's Kafka table declares them. */
export const BID_SCHEMA: Field[] = TABLE_FIELDS.bid.map(([name, kind]) => ({
  name,
  type: kind === 'long' ? T.bigint() : kind === 'time' ? T.timestamp(3) : T.string(),
}))
/** Index of dateTime in a bid row. */
export const DATE_TIME = 5

export const encodeBid = jsonRowEncoder(BID_SCHEMA, { ignoreParseErrors: false, failOnMissingField: false, timestampStandard: 'SQL', timestampEpoch: null })

/** Bid rows of the Nexmark stream at 100K events/s of event time, `size` rows at a time. */
export async function* bidRows(events: number, size = 10_000): AsyncGenerator<Row[]> {
  const reader = await nexmarkConnector.source!.create({
    table: 'bid',
    options: { connector: 'nexmark', 'nexmark.table': 'bid', 'nexmark.events.num': String(events), 'nexmark.event.rate': '100000' },
    schema: BID_SCHEMA,
    signal: new AbortController().signal,
    batchSize: size,
  })
  try {
    for (;;) {
      const chunk = await reader.next()
      if (chunk === null) return
      if (chunk.rows.length > 0) yield chunk.rows
    }
  } finally {
    await reader.close()
  }
}

/**
 * Bids per send: one record batch per partition each, ~250 bids (~60 KB) at 4 partitions. A Java
 * producer's batches are smaller still (batch.size 16 KB); with 10,000 per send (625 KB batches) a
 * consumer's 1 MB partition fetches ended in a cut batch that is fetched again, ~65% more bytes.
 */
const BIDS_PER_SEND = 1_000

/** Produces the bids of `events` Nexmark events to `topic` (round robin over `partitions`); returns how many. */
export async function produceBids(producer: Producer, topic: string, partitions: number, events: number): Promise<number> {
  let n = 0
  for await (const rows of bidRows(events, BIDS_PER_SEND)) {
    const messages = rows.map(r => ({ partition: n++ % partitions, value: encodeBid(r) }))
    await producer.send({ topic, messages, acks: -1 })
  }
  return n
}
