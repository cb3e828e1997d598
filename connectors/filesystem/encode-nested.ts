// ROW, ARRAY and MAP values as JSON text for the json and debezium-json sinks, as Flink's JSON format
// writes them: a ROW as an object by field name, an ARRAY as an array, a MAP as an object whose keys
// are the keys' text; NULL at any level is null.
import type { DataType } from '../../common/types.js'

type Nested = Extract<DataType, { kind: 'ROW' | 'ARRAY' | 'MAP' }>
type ValueEncoder = (v: unknown) => string

/** The JSON text of a non-null nested value; `inner` encodes the (non-null) values of the types inside. */
export function nestedJsonEncoder(type: Nested, inner: (t: DataType) => ValueEncoder): ValueEncoder {
  const orNull = (enc: ValueEncoder): ValueEncoder => v => (v === null || v === undefined ? 'null' : enc(v))
  switch (type.kind) {
    case 'ROW': {
      const prefixes = type.fields.map((f, i) => `${i === 0 ? '{' : ','}${JSON.stringify(f.name)}:`)
      const encs = type.fields.map(f => orNull(inner(f.type)))
      if (prefixes.length === 0) return () => '{}'
      return v => {
        const r = v as readonly unknown[]
        let s = ''
        for (let i = 0; i < prefixes.length; i++) s += prefixes[i]! + encs[i]!(r[i])
        return s + '}'
      }
    }
    case 'ARRAY': {
      const enc = orNull(inner(type.element))
      return v => '[' + (v as readonly unknown[]).map(enc).join(',') + ']'
    }
    case 'MAP': {
      const enc = orNull(inner(type.value))
      // A JSON key is text: a string key as it is, any other key as its JSON text (1, true).
      const keyEnc = type.key.kind === 'STRING' ? (k: unknown) => k as string : (k: unknown) => (k === null ? 'null' : inner(type.key)(k).replace(/^"|"$/g, ''))
      return v => '{' + (v as readonly (readonly [unknown, unknown])[]).map(([k, x]) => `${JSON.stringify(keyEnc(k))}:${enc(x)}`).join(',') + '}'
    }
  }
}
