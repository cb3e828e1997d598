// debezium-json decoding: each record is a Debezium change event, {"before":…,"after":…,"op":…}
// (with 'debezium-json.schema-include', the "payload" of a {"schema":…,"payload":…} envelope). An
// insert or snapshot read ('c', 'r') is +I of "after", an update ('u') -U of "before" then +U of
// "after", a delete ('d') -D of "before"; the rows are read as the json format reads its objects.
import type { Field } from '../../common/types.js'
import { RowKind, type Row } from '../../core/batch.js'
import { Changes, RecordError, SKIP, type ChangeEvent, type RecordDecoder } from './decoder.js'
import { isBlank, JsonDecoder } from './json-decoder.js'
import type { JsonConfig } from './options.js'

export class DebeziumDecoder implements RecordDecoder {
  readonly ignoreOption = 'debezium-json.ignore-parse-errors'
  private readonly rows: JsonDecoder

  constructor(schema: readonly Field[], config: JsonConfig, private readonly schemaInclude: boolean) {
    this.rows = new JsonDecoder(schema, config, 'debezium-json')
  }

  decode(line: string): Changes | typeof SKIP {
    if (isBlank(line)) return SKIP
    const change = this.change(line)
    const event = change.payload
    const path = this.schemaInclude ? ['payload'] : []
    const op = event['op']
    switch (op) {
      case 'c':
      case 'r':
        return new Changes([this.row(event, 'after', op, line, path)], [RowKind.INSERT], change)
      case 'u':
        return new Changes([this.row(event, 'before', op, line, path), this.row(event, 'after', op, line, path)], [
          RowKind.UPDATE_BEFORE,
          RowKind.UPDATE_AFTER,
        ], change)
      case 'd':
        return new Changes([this.row(event, 'before', op, line, path)], [RowKind.DELETE], change)
      default:
        throw new RecordError(
          op === undefined ? `the change event has no "op"` : `unknown "op" ${JSON.stringify(op)} (expected "c", "r", "u" or "d")`,
          undefined,
          op === undefined && !this.schemaInclude && 'payload' in event
            ? `the event is wrapped in a {"schema", "payload"} envelope: set 'debezium-json.schema-include' = 'true'`
            : undefined,
        )
    }
  }

  reset(): boolean {
    return false
  }

  /** The change event of a line: the object itself, or its "payload" with schema-include. */
  private change(line: string): ChangeEvent & { readonly payload: Record<string, unknown> } {
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch (e) {
      throw new RecordError(`invalid JSON (${(e as Error).message})`)
    }
    if (!isObject(parsed)) throw new RecordError(`expected a Debezium change event (a JSON object), found ${describe(parsed)}`)
    if (!this.schemaInclude) return { payload: parsed }
    const payload = parsed['payload']
    if (!isObject(payload)) {
      throw new RecordError(`expected a {"schema", "payload"} envelope whose "payload" is a change event, found ${describe(payload)} in "payload"`, undefined,
        `'debezium-json.schema-include' = 'true' reads such envelopes; remove it if the events are not wrapped`)
    }
    return { payload, schema: parsed['schema'] }
  }

  /** The row in `field` ('before' or 'after') of an event whose op needs it. */
  private row(event: Record<string, unknown>, field: 'before' | 'after', op: string, line: string, path: readonly string[]): Row {
    const value = event[field]
    if (isObject(value)) return this.rows.decodeObject(value, line, [...path, field])
    if (value === undefined || value === null) {
      throw new RecordError(`a change event with "op" "${op}" has no "${field}" row`, undefined, field === 'before'
        ? `Debezium gives the row before an update or delete only when the database logs whole rows (PostgreSQL: ALTER TABLE … REPLICA IDENTITY FULL)`
        : undefined)
    }
    throw new RecordError(`"${field}" must be an object, found ${describe(value)}`)
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing'
  const text = Array.isArray(v) ? 'an array' : JSON.stringify(v)
  return text.length > 60 ? text.slice(0, 60) + '…' : text
}
