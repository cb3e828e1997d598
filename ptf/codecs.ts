// How a process function's state values are stored: a codec declared per state (a MapState's
// values). The default keeps JSON-compatible values as they are (the state backend's serializer
// stores them); the typed ones check each value when it is written, and `row` and a user's byte
// codec store a compact form and give each read its own copy, so a handler that changes a value it
// read without writing it back changes nothing, on heap as on RocksDB.
import type { ColumnType } from './api.js'

/**
 * A user's codec: `encode` gives the bytes the state backend keeps, `decode` the value back. `id`
 * names the encoding: a checkpoint records it with the state, and a restore with another id is refused.
 */
export interface StateCodec<T> {
  readonly id: string
  encode(value: T): Uint8Array
  decode(bytes: Uint8Array): T
}

/** A built-in codec: checks a value (a message when it does not fit) and maps it to and from what is stored. */
interface BuiltInCodec<T> {
  readonly id: string
  readonly builtIn: true
  /** What is wrong with `value` for this codec, or null. */
  check(value: unknown): string | null
  /** Absent: the value is stored as it is. */
  readonly toStored?: (value: T) => unknown
  readonly fromStored?: (stored: unknown) => T
}

export type AnyCodec<T> = StateCodec<T> | BuiltInCodec<T>

const typed = <T>(id: string, type: string): BuiltInCodec<T> => ({
  id,
  builtIn: true,
  check: v => (typeof v === type ? null : `takes a ${type}, got ${describe(v)}`),
})

const FIELD_CHECKS: Readonly<Record<ColumnType, (v: unknown) => boolean>> = {
  'STRING': v => typeof v === 'string',
  'BOOLEAN': v => typeof v === 'boolean',
  'INT': v => Number.isInteger(v) && (v as number) >= -(2 ** 31) && (v as number) < 2 ** 31,
  'BIGINT': v => Number.isSafeInteger(v),
  'FLOAT': v => typeof v === 'number',
  'DOUBLE': v => typeof v === 'number',
  'TIMESTAMP(3)': v => Number.isInteger(v),
}

/** A row of declared fields (each may be null): stored as the array of its values, read back as a new object. */
function row<C extends Readonly<Record<string, ColumnType>>>(fields: C): BuiltInCodec<{ [K in keyof C]: unknown }> {
  const names = Object.keys(fields)
  for (const [name, type] of Object.entries(fields)) {
    if (FIELD_CHECKS[type] === undefined) {
      throw new TypeError(`codecs.row: field '${name}' has type ${JSON.stringify(type)}; use one of ${Object.keys(FIELD_CHECKS).join(', ')}`)
    }
  }
  const checks = names.map(n => FIELD_CHECKS[fields[n]!])
  return {
    id: `row<${names.map(n => `${n} ${fields[n]}`).join(', ')}>`,
    builtIn: true,
    check: v => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return `takes an object of ${names.join(', ')}, got ${describe(v)}`
      const o = v as Record<string, unknown>
      for (let i = 0; i < names.length; i++) {
        const f = o[names[i]!]
        if (f !== null && f !== undefined && !checks[i]!(f)) return `field '${names[i]}' is ${fields[names[i]!]}, got ${describe(f)}`
      }
      for (const k of Object.keys(o)) if (!(k in fields)) return `has no field '${k}' (fields: ${names.join(', ')})`
      return null
    },
    toStored: v => names.map(n => (v as Record<string, unknown>)[n] ?? null),
    fromStored: s => {
      const a = s as unknown[]
      const o: Record<string, unknown> = {}
      for (let i = 0; i < names.length; i++) o[names[i]!] = a[i]
      return o as { [K in keyof C]: unknown }
    },
  }
}

/** The codecs a state declaration may name: `valueState<number>('n', { codec: codecs.number })`. */
export const codecs = {
  /** The default: JSON-compatible values (numbers, strings, booleans, null, arrays, plain objects), stored as they are. */
  json: { id: 'json', builtIn: true, check: () => null } as BuiltInCodec<never>,
  number: typed<number>('number', 'number'),
  string: typed<string>('string', 'string'),
  boolean: typed<boolean>('boolean', 'boolean'),
  row,
} as const

function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v)
  if (typeof v === 'string') return `'${v.length > 40 ? v.slice(0, 40) + '…' : v}'`
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : `an object (${v.constructor?.name ?? 'no prototype'})`
  return `${typeof v} ${String(v)}`
}

/** The codec's id as a checkpoint records it; also checks that `c` is a codec. */
export function codecId(state: string, c: unknown): string {
  if (c === undefined) return 'json'
  const codec = c as Partial<BuiltInCodec<unknown> & StateCodec<unknown>>
  if (typeof c !== 'object' || c === null || typeof codec.id !== 'string' || codec.id === '') {
    throw new TypeError(`state '${state}': codec must be one of codecs.json / number / string / boolean / row({ … }), or { id, encode, decode }`)
  }
  if (codec.builtIn !== true && (typeof codec.encode !== 'function' || typeof codec.decode !== 'function')) {
    throw new TypeError(`state '${state}': a codec of your own needs encode(value): Uint8Array and decode(bytes): value`)
  }
  return codec.builtIn === true ? codec.id : `user:${codec.id}`
}

/** How a handle maps values: `write` checks and converts (throwing a message), `read` converts back. */
export interface ValueMapping {
  write(value: unknown): unknown
  read(stored: unknown): unknown
}

/** The mapping of a codec, or null when values pass unchanged and unchecked (the default). */
export function valueMapping(c: AnyCodec<unknown> | undefined, fail: (message: string) => Error): ValueMapping | null {
  if (c === undefined || (('builtIn' in c) && c.id === 'json')) return null
  if ('builtIn' in c) {
    const { check, toStored, fromStored } = c
    return {
      write: v => {
        const wrong = check(v)
        if (wrong !== null) throw fail(`codec ${c.id} ${wrong}`)
        return toStored === undefined ? v : toStored(v)
      },
      read: s => (fromStored === undefined || s === undefined ? s : fromStored(s)),
    }
  }
  return {
    write: v => {
      const bytes = c.encode(v)
      if (!(bytes instanceof Uint8Array)) throw fail(`codec ${c.id}: encode returned ${describe(bytes)}, not a Uint8Array`)
      // A copy: the state keeps bytes no later change of the encoder's buffer can reach.
      return bytes.slice()
    },
    read: s => (s === undefined ? s : c.decode((s as Uint8Array).slice())),
  }
}

/** `handle` (a state's handle: value, list or map) with each value written and read through `m`. */
export function mappedHandle(kind: 'value' | 'list' | 'map', handle: unknown, m: ValueMapping): unknown {
  const { write, read } = m
  if (kind === 'value') {
    const h = handle as { value(): unknown; update(v: unknown): void; clear(): void }
    return { value: () => read(h.value()), update: (v: unknown) => h.update(write(v)), clear: () => h.clear() }
  }
  if (kind === 'list') {
    const h = handle as { get(): readonly unknown[]; add(v: unknown): void; update(vs: readonly unknown[]): void; clear(): void }
    return { get: () => h.get().map(read), add: (v: unknown) => h.add(write(v)), update: (vs: readonly unknown[]) => h.update(vs.map(write)), clear: () =>
      h.clear() }
  }
  const h = handle as {
    get(k: unknown): unknown
    put(k: unknown, v: unknown): void
    remove(k: unknown): void
    contains(k: unknown): boolean
    entries(): IterableIterator<[unknown, unknown]>
    keys(): IterableIterator<unknown>
    isEmpty(): boolean
    size(): number
    clear(): void
  }
  return {
    get: (k: unknown) => read(h.get(k)),
    put: (k: unknown, v: unknown) => h.put(k, write(v)),
    remove: (k: unknown) => h.remove(k),
    contains: (k: unknown) => h.contains(k),
    *entries(): IterableIterator<[unknown, unknown]> {
      for (const [k, v] of h.entries()) yield [k, read(v)]
    },
    keys: () => h.keys(),
    isEmpty: () => h.isEmpty(),
    size: () => h.size(),
    clear: () => h.clear(),
  }
}
