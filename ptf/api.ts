// The public API of process table functions: a TypeScript module declares its rows, its keyed state
// and its handlers with `defineProcessFunction`; SQL calls it with a partitioned input
// (`SELECT * FROM f(input => TABLE t PARTITION BY k)`) and the runtime scopes the state to each key.
import { parseDuration } from '../common/durations.js'
import { type AnyCodec, codecId } from './codecs.js'

/** The SQL types a process function's rows and arguments may declare. */
export type ColumnType = 'STRING' | 'BOOLEAN' | 'INT' | 'BIGINT' | 'FLOAT' | 'DOUBLE' | 'TIMESTAMP(3)'

/** The JavaScript value of a column of SQL type `C` (TIMESTAMP(3): epoch milliseconds; FLOAT: a number rounded to 32 bits). */
export type ValueOf<C extends ColumnType> = C extends 'STRING' ? string : C extends 'BOOLEAN' ? boolean : number

/** Column names and their SQL types, in order. */
export type Columns = Readonly<Record<string, ColumnType>>

/** A row as a handler sees it (input) or emits it (output): an object by column name; SQL NULL is null. */
export type RowOf<C extends Columns> = { readonly [K in keyof C]: ValueOf<C[K]> | null }

/** How long an entry lives after it was last written (or read, with `updateTtlOnRead`). */
export interface StateOptions {
  /** '1 h', '30 min', '10 s', or milliseconds. Without it the state is kept until cleared. */
  readonly ttl?: string | number
  /** A read restarts the entry's TTL too (Flink's OnReadAndWrite); default: writes only. */
  readonly updateTtlOnRead?: boolean
}

/** A state's options and how its values (a MapState's values) are stored: `codecs.json` (the default), `number`, `string`, `boolean`, `row({ … })`, or your own `{ id, encode, decode }`. */
export interface CodecOptions<T> extends StateOptions {
  readonly codec?: AnyCodec<T>
}

interface StateDeclBase {
  readonly name: string
  /** 0: no TTL. */
  readonly ttlMs: number
  readonly updateTtlOnRead: boolean
  /** The codec's id ('json' by default), as checkpoints record it. */
  readonly codecId: string
  readonly codec?: AnyCodec<unknown>
}

/** One value per key. */
export interface ValueStateDecl<T> extends StateDeclBase {
  readonly kind: 'value'
  readonly __type?: T
}

/** A list per key; `add` appends without rewriting the list. */
export interface ListStateDecl<T> extends StateDeclBase {
  readonly kind: 'list'
  readonly __type?: T
}

/** A map per key; each entry is stored on its own, so one get/put touches one entry on RocksDB. */
export interface MapStateDecl<K, V> extends StateDeclBase {
  readonly kind: 'map'
  readonly __type?: [K, V]
}

export type StateDecl = ValueStateDecl<unknown> | ListStateDecl<unknown> | MapStateDecl<unknown, unknown>

function ttlOf(name: string, options: (StateOptions & { readonly codec?: unknown }) | undefined): StateDeclBase {
  const ttl = options?.ttl
  let ttlMs = 0
  if (typeof ttl === 'number') ttlMs = ttl
  else if (typeof ttl === 'string') ttlMs = parseDuration(ttl) ?? NaN
  if (!Number.isFinite(ttlMs) || ttlMs < 0) {
    throw new TypeError(`state '${name}': ttl ${JSON.stringify(ttl)} is not a duration (write '1 h', '30 min' or milliseconds)`)
  }
  const codec = options?.codec as AnyCodec<unknown> | undefined
  return { name, ttlMs, updateTtlOnRead: options?.updateTtlOnRead === true, codecId: codecId(name, codec), ...(codec ? { codec } : {}) }
}

/**
 * Declares a ValueState. Values are JSON-compatible (numbers, strings, booleans, null, arrays, plain objects).
 * @example state: { count: valueState<number>('count', { ttl: '1 h' }) }
 */
export function valueState<T>(name: string, options?: CodecOptions<T>): ValueStateDecl<T> {
  return { kind: 'value', ...ttlOf(name, options) }
}

/** @example state: { seen: listState<{ ts: number }>('seen') } */
export function listState<T>(name: string, options?: CodecOptions<T>): ListStateDecl<T> {
  return { kind: 'list', ...ttlOf(name, options) }
}

/** @example state: { perMerchant: mapState<string, number>('per_merchant', { ttl: '1 d' }) } */
export function mapState<K extends string | number, V>(name: string, options?: CodecOptions<V>): MapStateDecl<K, V> {
  return { kind: 'map', ...ttlOf(name, options) }
}

/** The current key's ValueState. */
export interface ValueHandle<T> {
  value(): T | undefined
  update(value: T): void
  clear(): void
}

export interface ListHandle<T> {
  get(): readonly T[]
  add(value: T): void
  update(values: readonly T[]): void
  clear(): void
}

export interface MapHandle<K, V> {
  get(key: K): V | undefined
  put(key: K, value: V): void
  remove(key: K): void
  contains(key: K): boolean
  entries(): IterableIterator<[K, V]>
  keys(): IterableIterator<K>
  isEmpty(): boolean
  size(): number
  clear(): void
}

export type StateDecls = Readonly<Record<string, StateDecl>>

/** What `ctx.state` holds for declarations `S`: each state's handle for the current key. */
export type StateHandles<S extends StateDecls> = {
  readonly [K in keyof S]: S[K] extends ValueStateDecl<infer T> ? ValueHandle<T>
    : S[K] extends ListStateDecl<infer T> ? ListHandle<T>
    : S[K] extends MapStateDecl<infer MK, infer MV> ? MapHandle<MK, MV>
    : never
}

/** Timers of the current key. A timer fires once per (key, timestamp, domain), however often registered. */
export interface Timers {
  /** Fires `onTimer` when the watermark reaches `timestamp` (epoch ms). */
  registerEventTime(timestamp: number): void
  /** Fires `onTimer` when the wall clock reaches `timestamp` (epoch ms). */
  registerProcessingTime(timestamp: number): void
  deleteEventTime(timestamp: number): void
  deleteProcessingTime(timestamp: number): void
}

/**
 * The kind of an emitted row: an insert (the default), or — with `changelog: 'retract'` — a change of
 * a row emitted before: its old version retracted ('-U') then its new one ('+U'), or deleted ('-D').
 * With `changelog: 'upsert'`, '+I' and '+U' both set the latest row of its upsert key and '-D'
 * deletes the row of its key (its other columns are not read); '-U' is refused.
 */
export type RowKindName = '+I' | '-U' | '+U' | '-D'

/** What every handler sees. */
export interface Context<O extends Columns, S extends StateDecls, A extends Columns> {
  /** The current key's state. */
  readonly state: StateHandles<S>
  /** The values of the PARTITION BY columns of the current key, in order. */
  readonly key: readonly unknown[]
  /** The scalar arguments of the SQL call (`threshold => 500`). */
  readonly args: RowOf<A>
  readonly timers: Timers
  /** The operator's event-time watermark (-Infinity before the first). */
  readonly watermark: number
  /** The wall clock, epoch ms. */
  readonly processingTime: number
  /**
   * Outputs a row; the PARTITION BY columns are prepended to it. `kind` (default '+I') other than
   * '+I' needs `changelog: 'retract'` (a retraction repeats the row emitted before, as it was) or
   * `changelog: 'upsert'` ('+U' replaces the row of the same upsert key, '-D' deletes it).
   */
  emit(row: RowOf<O>, kind?: RowKindName): void
}

/** What `onTimer` sees beside the Context: which clock fired. */
export interface TimerContext<O extends Columns, S extends StateDecls, A extends Columns> extends Context<O, S, A> {
  readonly timeDomain: 'event' | 'processing'
}

/** What `open` sees: the arguments (no key is current). */
export interface OpenContext<A extends Columns> {
  readonly args: RowOf<A>
  readonly functionName: string
}

/** A process function as a module declares it. */
export interface ProcessFunctionDefinition<I extends Columns, O extends Columns, S extends StateDecls, A extends Columns> {
  /** Input columns the function reads (checked against the SQL input at plan time; others are passed too). */
  readonly input?: I
  /** Output columns, after the PARTITION BY columns. */
  readonly output: O
  /** Scalar arguments it takes by name; an argument not declared here is refused in SQL. */
  readonly args?: A
  /**
   * 'insert-only' (default): every emitted row is final. 'retract': the function also emits changes
   * of rows it emitted ('-U' then '+U', '-D'), and SQL downstream sees an updating stream (a GROUP BY
   * over it retracts, a sink needs a changelog format or a primary key). 'upsert': the function emits
   * the latest row per `upsertKey` ('+I'/'+U', no '-U' before it) and deletes by key ('-D'); an
   * upsert sink with that key takes it as it is, other consumers get it with retractions added.
   */
  readonly changelog?: 'insert-only' | 'retract' | 'upsert'
  /**
   * With `changelog: 'upsert'`: the output columns that, with the PARTITION BY columns, identify a row
   * (`[]`: one row per partition key).
   */
  readonly upsertKey?: readonly (keyof O & string)[]
  readonly state?: S
  /** Called per input row with the row's key current. Synchronous: state reads never wait. */
  process(row: RowOf<I>, ctx: Context<O, S, A>): void
  /** Called per due timer with its key current. */
  onTimer?(timestamp: number, ctx: TimerContext<O, S, A>): void
  open?(ctx: OpenContext<A>): void
  close?(): void
}

/** A checked definition, marked so a module's export can be told from anything else. */
export type ProcessFunction<I extends Columns = Columns, O extends Columns = Columns, S extends StateDecls = StateDecls, A extends Columns = Columns> =
  & ProcessFunctionDefinition<I, O, S, A>
  & { readonly __weir: 'process-function' }

const TYPES: readonly ColumnType[] = ['STRING', 'BOOLEAN', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'TIMESTAMP(3)']

/**
 * Declares a process function; export it as the module's default (or only) export.
 *
 * @example
 * export default defineProcessFunction({
 *   input: { card_id: 'STRING', amount: 'DOUBLE' },
 *   output: { total: 'DOUBLE' },
 *   state: { total: valueState<number>('total', { ttl: '1 d' }) },
 *   process(row, ctx) {
 *     const total = (ctx.state.total.value() ?? 0) + (row.amount ?? 0)
 *     ctx.state.total.update(total)
 *     ctx.emit({ total })
 *   },
 * })
 */
export function defineProcessFunction<I extends Columns, O extends Columns, S extends StateDecls = {}, A extends Columns = {}>(
  definition: ProcessFunctionDefinition<I, O, S, A>,
): ProcessFunction<I, O, S, A> {
  checkDefinition(definition)
  return Object.freeze({ ...definition, __weir: 'process-function' as const })
}

/** Throws a TypeError saying what is wrong with a definition (a module may skip defineProcessFunction). */
export function checkDefinition(d: unknown): asserts d is ProcessFunctionDefinition<Columns, Columns, StateDecls, Columns> {
  if (typeof d !== 'object' || d === null) throw new TypeError('a process function is an object made by defineProcessFunction({ … })')
  const def = d as Record<string, unknown>
  if (typeof def['process'] !== 'function') throw new TypeError('a process function needs process(row, ctx)')
  for (const h of ['onTimer', 'open', 'close']) {
    if (def[h] !== undefined && typeof def[h] !== 'function') throw new TypeError(`'${h}' of a process function must be a function`)
  }
  for (const what of ['input', 'output', 'args'] as const) {
    const cols = def[what]
    if (cols === undefined && what !== 'output') continue
    if (typeof cols !== 'object' || cols === null) throw new TypeError(`a process function needs '${what}': { column: 'STRING' | 'DOUBLE' | … }`)
    for (const [name, type] of Object.entries(cols)) {
      if (!TYPES.includes(type as ColumnType)) throw new TypeError(`${what} column '${name}' has type ${JSON.stringify(type)}; use one of ${TYPES.join(', ')}`)
    }
  }
  const changelog = def['changelog']
  if (changelog !== undefined && changelog !== 'insert-only' && changelog !== 'retract' && changelog !== 'upsert') {
    throw new TypeError(`changelog ${JSON.stringify(changelog)} is not one of 'insert-only', 'retract', 'upsert'`)
  }
  checkUpsertKey(def['upsertKey'], changelog === 'upsert', Object.keys(def['output'] as object))
  const names = new Set<string>()
  for (const [field, s] of Object.entries((def['state'] ?? {}) as Record<string, unknown>)) {
    const decl = s as Partial<StateDecl> | null
    if (decl === null || typeof decl !== 'object' || (decl.kind !== 'value' && decl.kind !== 'list' && decl.kind !== 'map') || typeof decl.name !== 'string') {
      throw new TypeError(`state '${field}' is not a state declaration: use valueState(…), listState(…) or mapState(…)`)
    }
    if (names.has(decl.name)) throw new TypeError(`two states are named '${decl.name}'`)
    names.add(decl.name)
  }
}

function checkUpsertKey(key: unknown, upsert: boolean, output: readonly string[]): void {
  if (!upsert) {
    if (key !== undefined) throw new TypeError("upsertKey is declared but changelog is not 'upsert': declare changelog: 'upsert' too, or drop upsertKey")
    return
  }
  if (key === undefined) {
    throw new TypeError(
      "changelog: 'upsert' needs upsertKey: the output columns that identify a row beside the PARTITION BY columns (upsertKey: [] for one row per partition key)",
    )
  }
  if (!Array.isArray(key)) throw new TypeError(`upsertKey must be an array of output column names, got ${JSON.stringify(key)}`)
  const seen = new Set<unknown>()
  for (const c of key) {
    if (typeof c !== 'string' || !output.includes(c)) {
      throw new TypeError(`upsertKey column ${JSON.stringify(c)} is not an output column (output: ${output.join(', ') || 'none'})`)
    }
    if (seen.has(c)) throw new TypeError(`upsertKey names '${c}' twice`)
    seen.add(c)
  }
}
