// Which columns a Kafka message's key and value hold (Flink's 'key.format', 'key.fields',
// 'key.fields-prefix' and 'value.fields-include'), resolved the same way for the source, which reads
// them, and the sinks, which write them.
import { WeirError } from '../../common/errors.js'
import type { Field } from '../../common/types.js'
import type { ConnectorOptions } from '../api.js'
import { aboutKey, aboutValue, badValue, checkRequiredOptions, enumOption } from '../options.js'

export type MessageFormat = 'json' | 'csv' | 'raw'
export const MESSAGE_FORMATS: readonly MessageFormat[] = ['json', 'csv', 'raw']

/** Where each physical column lives in a message. */
export interface KeyLayout {
  /** Indexes into the physical schema of the key's columns, in the key's order (empty: no key). */
  readonly keyColumns: readonly number[]
  readonly keyFormat: MessageFormat | undefined
  /** The key format's field names: the key columns' names without 'key.fields-prefix'. */
  readonly keyNames: readonly string[]
  /** Indexes of the value's columns (all, or all but the key's with EXCEPT_KEY). */
  readonly valueColumns: readonly number[]
  readonly valueFormat: MessageFormat
  /** The option that named the value format: 'format' or 'value.format'. */
  readonly valueFormatKey: string
}

/**
 * The key and value layout of a table. `primaryKey` (upsert-kafka) gives the key's columns instead
 * of 'key.fields'.
 *
 * @example resolveKeyLayout('kafka', { 'key.format': 'json', 'key.fields': 'id', 'value.format': 'json' }, schema)
 */
export function resolveKeyLayout(connector: string, options: ConnectorOptions, schema: readonly Field[], primaryKey?: readonly number[]): KeyLayout {
  const valueFormatKey = options['value.format'] !== undefined ? 'value.format' : 'format'
  const valueFormat = enumOption(options, valueFormatKey, MESSAGE_FORMATS, 'json')
  const prefix = options['key.fields-prefix'] ?? ''
  const keyColumns = primaryKey ?? keyFieldColumns(options, schema)
  if (keyColumns.length > 0 && options['key.format'] === undefined) checkRequiredOptions(connector, options, ['key.format'])
  if (primaryKey === undefined && keyColumns.length === 0 && options['key.format'] !== undefined) {
    throw aboutKey(WeirError.connector(`option 'key.format' needs 'key.fields'`, { help: `set 'key.fields' = 'col1;col2' or remove 'key.format'` }),
      'key.format')
  }
  const keyFormat = options['key.format'] === undefined ? undefined : enumOption(options, 'key.format', MESSAGE_FORMATS, 'json')
  const include = enumOption(options, 'value.fields-include', ['ALL', 'EXCEPT_KEY'] as const, 'ALL')
  if (include === 'EXCEPT_KEY' && keyColumns.length === 0) {
    throw aboutValue(WeirError.connector(`'value.fields-include' = 'EXCEPT_KEY' needs a key`, { help: `set 'key.fields', or use 'ALL'` }),
      'value.fields-include')
  }
  if (prefix !== '') {
    // As in Flink: with ALL, the value's field names would carry the prefix the key's lose.
    if (include !== 'EXCEPT_KEY') {
      throw aboutKey(
        WeirError.connector(`option 'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY'`, {
          help: `set 'value.fields-include' = 'EXCEPT_KEY', or remove 'key.fields-prefix'`,
        }),
        'key.fields-prefix',
      )
    }
    for (const c of keyColumns) {
      const name = schema[c]!.name
      if (!name.startsWith(prefix)) {
        throw badValue('key.fields-prefix', prefix, `a prefix of every key column's name`, `key column '${name}' does not start with '${prefix}'`)
      }
    }
  }
  const valueColumns = schema.map((_, i) => i).filter(i => include === 'ALL' || !keyColumns.includes(i))
  if (valueColumns.length === 0) {
    throw aboutValue(WeirError.connector(`the value of each message would have no columns`, { help: `use 'value.fields-include' = 'ALL'` }),
      'value.fields-include')
  }
  checkRaw(keyFormat, keyColumns, schema, 'key.format', options)
  checkRaw(valueFormat, valueColumns, schema, valueFormatKey, options)
  const keyNames = keyColumns.map(c => schema[c]!.name.slice(prefix.length))
  return { keyColumns, keyFormat, keyNames, valueColumns, valueFormat, valueFormatKey }
}

function keyFieldColumns(options: ConnectorOptions, schema: readonly Field[]): number[] {
  const text = options['key.fields']
  if (text === undefined) return []
  const names = text.split(';').map(s => s.trim())
  return names.map(name => {
    const i = schema.findIndex(f => f.name === name)
    if (i < 0 || name === '') {
      throw badValue('key.fields', text, `columns of the table separated by ';'`, `'${name}' is not a physical column (${schema.map(f => f.name).join(', ')})`)
    }
    return i
  })
}

/** The raw format holds one STRING column as the message's bytes. */
function checkRaw(format: MessageFormat | undefined, columns: readonly number[], schema: readonly Field[], key: string, options: ConnectorOptions): void {
  if (format !== 'raw') return
  if (columns.length !== 1 || schema[columns[0]!]!.type.kind !== 'STRING') {
    throw badValue(key, options[key]!,
      `a format other than 'raw' for ${columns.length === 1 ? `column of type ${schema[columns[0]!]!.type.kind}` : `${columns.length} columns`}`,
      `the raw format holds exactly one STRING column`)
  }
}
