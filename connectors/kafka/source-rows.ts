// A Kafka source's rows put together from a message: the columns of its value (decoded by the value
// format), those of its key ('key.format' over 'key.fields'), and its metadata columns. With
// 'value.fields-include' = 'ALL' the key's columns are in the value too, and the value's win, as in
// Flink. A message without a key gives NULL key columns.
import type { KafkaMessage } from 'kafkajs'
import type { Field } from '../../common/types.js'
import type { Row } from '../../core/batch.js'
import type { SourceContext } from '../api.js'
import { CsvDecoder } from '../filesystem/csv-decoder.js'
import { DebeziumDecoder } from '../filesystem/debezium-decoder.js'
import { Changes, MORE, RecordError, SKIP, type ChangeEvent, type RecordDecoder } from '../filesystem/decoder.js'
import { JsonDecoder } from '../filesystem/json-decoder.js'
import type { MessageFormat } from './key-options.js'
import { metadataReaders, type MetadataReader } from './source-metadata.js'
import type { TopicPartition } from './source-offsets.js'
import type { KafkaSourceConfig, ValueFormat } from './source-options.js'

/** The decoder of a format over `fields` (null for 'raw': the bytes as one STRING). */
export function decoderFor(format: ValueFormat, fields: readonly Field[], config: KafkaSourceConfig): RecordDecoder | null {
  switch (format) {
    case 'json':
      return new JsonDecoder(fields, config.json)
    case 'csv':
      return new CsvDecoder(fields, config.csv)
    case 'raw':
      return null
    case 'debezium-json':
      return new DebeziumDecoder(fields, config.json, config.schemaInclude)
  }
}

/** One record of `decoder` (null: raw), as the values of its columns (a change event: its changes); SKIP for a blank one. */
export function decodeText(decoder: RecordDecoder | null, text: string): Row | Changes | typeof SKIP {
  if (decoder === null) return [text]
  const values = decoder.decode(text)
  if (values === MORE) {
    decoder.reset()
    throw new RecordError('unterminated quoted field')
  }
  return values
}

/** Builds a table row from a message's decoded value; null when the table's rows are the value's as they are. */
export class RowAssembler {
  /** Schema index of each value column, in the value decoder's order. */
  private readonly valueAt: readonly number[]
  /** Schema index of each key column, in the key decoder's order. */
  private readonly keyAt: readonly number[]
  private readonly keyDecoder: RecordDecoder | null
  private readonly meta: readonly (MetadataReader | null)[]
  private readonly width: number

  static create(ctx: SourceContext, config: KafkaSourceConfig): RowAssembler | null {
    const physicalAt = ctx.schema.flatMap((_, i) => ((ctx.metadata?.[i] ?? null) === null ? [i] : []))
    if (physicalAt.length === ctx.schema.length && config.layout.keyColumns.length === 0) return null
    return new RowAssembler(ctx, config, physicalAt)
  }

  private constructor(ctx: SourceContext, config: KafkaSourceConfig, physicalAt: readonly number[]) {
    const layout = config.layout
    this.width = ctx.schema.length
    this.valueAt = layout.valueColumns.map(c => physicalAt[c]!)
    this.keyAt = layout.keyColumns.map(c => physicalAt[c]!)
    const keyFields = layout.keyColumns.map((c, i) => ({ ...ctx.schema[physicalAt[c]!]!, name: layout.keyNames[i]! }))
    this.keyDecoder = layout.keyFormat === undefined ? null : decoderFor(layout.keyFormat, keyFields, config)
    this.meta = metadataReaders(ctx)
  }

  /** The row (the changes) of message `m`, whose value decoded to `values`; a KeyError when its key cannot be decoded. */
  build(values: Row, m: KafkaMessage, tp: TopicPartition): Row
  build(values: Row | Changes, m: KafkaMessage, tp: TopicPartition): Row | Changes
  build(values: Row | Changes, m: KafkaMessage, tp: TopicPartition): Row | Changes {
    const key = this.key(m)
    return values instanceof Changes ? values.map(v => this.assemble(v, key, m, tp, values.event)) : this.assemble(values, key, m, tp, undefined)
  }

  /** The key columns' values of `m` (null: no key columns, or a message without a key). */
  private key(m: KafkaMessage): Row | null {
    if (this.keyAt.length === 0 || m.key === null || m.key === undefined) return null
    let key: Row | Changes | typeof SKIP
    try {
      key = decodeText(this.keyDecoder, m.key.toString('utf8'))
    } catch (e) {
      if (e instanceof RecordError) throw new KeyError(e, m.key.toString('utf8'))
      throw e
    }
    // The key format is json, csv or raw: never a changelog.
    return key === SKIP || key instanceof Changes ? null : key
  }

  private assemble(values: Row, key: Row | null, m: KafkaMessage, tp: TopicPartition, event: ChangeEvent | undefined): Row {
    const row = new Array<unknown>(this.width).fill(null)
    if (key !== null) { for (let i = 0; i < this.keyAt.length; i++) row[this.keyAt[i]!] = key[i] }
    for (let i = 0; i < this.valueAt.length; i++) row[this.valueAt[i]!] = values[i]
    for (let i = 0; i < this.meta.length; i++) {
      const read = this.meta[i]
      if (read !== null && read !== undefined) row[i] = read(m, tp, event)
    }
    return row
  }
}

/** A message key the key format cannot decode. */
export class KeyError extends Error {
  constructor(readonly error: RecordError, readonly key: string) {
    super(error.detail)
  }
}
