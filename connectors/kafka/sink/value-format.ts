// The value format of a Kafka sink and its options: json, csv and raw rows, or debezium-json change
// events (a 'kafka' table only: upsert-kafka's messages are upserts already). The format options are
// the filesystem connector's (the Kafka source's too); those that only decoding reads are accepted
// and have no effect, as in Flink.
import { WeirError } from '../../../common/errors.js'
import type { ConnectorOptions } from '../../api.js'
import { FORMAT_OPTIONS, resolveFsOptions, type CsvConfig, type JsonConfig } from '../../filesystem/options.js'
import { aboutKey, aboutValue, boolOption } from '../../options.js'
import type { MessageFormat } from '../key-options.js'

/** A message format, or 'debezium-json': each row a change event ({"before", "after", "op"}). */
export type SinkValueFormat = MessageFormat | 'debezium-json'

/**
 * Flink's 'encode.decimal-as-plain-number' of json and debezium-json: Weir writes a DECIMAL's plain
 * digits either way (Flink's default may write 2.7E-8, the same JSON number), so it only is checked.
 */
const PLAIN_DECIMALS = ['json.encode.decimal-as-plain-number', 'debezium-json.encode.decimal-as-plain-number']

/** Every format option a Kafka sink takes (each only with its format). */
export const SINK_FORMAT_OPTIONS: readonly string[] = [...Object.values(FORMAT_OPTIONS).flat(), ...PLAIN_DECIMALS]

export interface SinkValueConfig {
  readonly format: SinkValueFormat
  readonly json: JsonConfig
  readonly csv: CsvConfig
}

/**
 * The value format named by `formatKey` ('format' or 'value.format') and its options, checked.
 *
 * @example resolveSinkValueFormat('kafka', { format: 'debezium-json', 'debezium-json.timestamp-format.standard': 'ISO-8601' }, 'format')
 */
export function resolveSinkValueFormat(connector: 'kafka' | 'upsert-kafka', options: ConnectorOptions, formatKey: string): SinkValueConfig {
  const named = (options[formatKey] ?? 'json').trim().toLowerCase()
  if (named === 'debezium-json' && connector === 'upsert-kafka') {
    throw aboutValue(
      WeirError.connector(`connector 'upsert-kafka' cannot write format 'debezium-json': its messages are upserts of the key, not change events`, {
        help: `use 'value.format' = 'json' (or 'csv'), or write the change events to a 'kafka' table with 'value.format' = 'debezium-json'`,
      }),
      formatKey,
    )
  }
  const format = (named === 'debezium-json' ? 'debezium-json' : named) as SinkValueFormat
  const formatOptions: Record<string, string> = { path: 'kafka', format: format === 'raw' ? 'json' : format }
  for (const key of SINK_FORMAT_OPTIONS) {
    if (options[key] === undefined) continue
    if (format === 'raw') {
      throw aboutKey(WeirError.connector(`option '${key}' does not apply to format 'raw'`, { help: `remove '${key}', or change the format` }), key)
    }
    if (PLAIN_DECIMALS.includes(key)) {
      const owner = key.slice(0, key.indexOf('.encode'))
      if (owner !== format) {
        throw aboutKey(WeirError.connector(`option '${key}' applies to format '${owner}', but '${formatKey}' is '${format}'`, {
          help: `remove '${key}' or set '${formatKey}' = '${owner}'`,
        }), key)
      }
      boolOption(options, key, false)
      continue
    }
    formatOptions[key] = options[key]
  }
  const { json, csv, schemaInclude } = resolveFsOptions(formatOptions)
  if (schemaInclude) {
    // As in Flink: the envelope's "schema" is Kafka Connect's, which a serializer does not write.
    throw aboutKey(WeirError.unsupported(`the Kafka sink cannot write 'debezium-json.schema-include' = 'true'`, {
      help: `remove the option from the table you write (a table you only read may keep it): the sink writes each change event without a schema`,
    }), 'debezium-json.schema-include')
  }
  return { format, json, csv }
}
