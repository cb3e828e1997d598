// The metadata a Kafka source offers for `col TYPE METADATA [FROM 'key']` columns (Flink's keys and
// types), and how each is read off a message.
import type { KafkaMessage } from 'kafkajs'
import { WeirError } from '../../common/errors.js'
import { formatType, type DataType, type Field } from '../../common/types.js'
import type { SourceContext } from '../api.js'
import { about } from '../options.js'
import type { TopicPartition } from './source-offsets.js'

export type MetadataReader = (m: KafkaMessage, tp: TopicPartition) => unknown

interface MetadataKey {
  /** The type Flink declares; a column's type must be this (nullability aside). */
  readonly type: DataType['kind']
  readonly typeText: string
  readonly read: MetadataReader
}

const KEYS: Readonly<Record<string, MetadataKey>> = {
  'topic': { type: 'STRING', typeText: 'STRING', read: (_, tp) => tp.topic },
  'partition': { type: 'INT', typeText: 'INT', read: (_, tp) => tp.partition },
  'offset': { type: 'BIGINT', typeText: 'BIGINT', read: m => Number(m.offset) },
  'timestamp': { type: 'TIMESTAMP_LTZ', typeText: 'TIMESTAMP_LTZ(3)', read: m => Number(m.timestamp) },
}

/** The metadata keys the Kafka source offers. */
export const KAFKA_METADATA_KEYS: readonly string[] = Object.keys(KEYS)

/** Checks the table's metadata columns: known keys, each with Flink's type. */
export function checkMetadataColumns(schema: readonly Field[], metadata: readonly (string | null)[]): void {
  for (const [i, k] of metadata.entries()) {
    if (k === null) continue
    const f = schema[i]!
    const spec = KEYS[k]
    if (spec === undefined) {
      throw about(
        WeirError.connector(`connector 'kafka' has no metadata '${k}' (column '${f.name}')`, {
          help: `the Kafka source offers ${KAFKA_METADATA_KEYS.map(x => `'${x}'`).join(', ')}; name one with METADATA FROM '…'`,
        }),
        { column: f.name },
      )
    }
    const ok = f.type.kind === spec.type && (f.type.kind !== 'TIMESTAMP_LTZ' || f.type.precision === 3)
    if (!ok) {
      throw about(
        WeirError.connector(`metadata '${k}' of connector 'kafka' is ${spec.typeText}, but column '${f.name}' is declared ${formatType(f.type)}`, {
          help: `declare the column as ${spec.typeText}, and convert it in a computed column if you need another type`,
        }),
        { column: f.name },
      )
    }
  }
}

/** Per schema column: how to read its metadata, or null for a column of the value. */
export function metadataReaders(ctx: SourceContext): (MetadataReader | null)[] {
  return ctx.schema.map((_, i) => {
    const k = ctx.metadata?.[i] ?? null
    return k === null ? null : KEYS[k]!.read
  })
}
