// weir/testing: drive a process function without a job — rows, watermarks and processing time in,
// its output, its state per key and its pending timers out — on the same operator and heap state
// backend a job runs it on, with a clock the test sets.
import { ROW_KIND_SHORT, type Batch, type Row } from '../core/batch.js'
import type { KeyRef } from '../core/keyed-state.js'
import type { OperatorContext } from '../core/operator.js'
import type { ProcessFunctionSpec } from '../core/process-function.js'
import { DEFAULT_JOB_CONFIG } from '../common/config/index.js'
import type { Field } from '../common/types.js'
import { ProcessFunctionOperator } from '../operators/process-function.js'
import { dataTypeOf, processStateInfos } from '../planner/functions.js'
import { mappedHandle, valueMapping } from '../ptf/codecs.js'
import type { ColumnType, ProcessFunction } from '../ptf/api.js'
import { TimerServiceImpl } from '../runtime/timers.js'
import { HeapKeyedStateBackend } from '../state/heap/heap-backend.js'
import { makeKey } from '../state/key-encoding.js'

export interface HarnessOptions {
  /** The PARTITION BY columns: each row's key is its values of these. */
  readonly partitionBy: readonly string[]
  /** The call's scalar arguments (`threshold => 500`). */
  readonly args?: Readonly<Record<string, string | number | boolean | null>>
  /** The processing-time clock at the start (ms); default 0. */
  readonly processingTime?: number
  /** What a handler's exception does, as 'weir.process-function.on-error' says: 'fail' (default) throws it, 'skip' counts it (skipped()). */
  readonly onError?: 'fail' | 'skip'
}

/** A pending timer. */
export interface PendingTimer {
  readonly key: readonly unknown[]
  readonly timestamp: number
  readonly domain: 'event' | 'processing'
}

export interface ProcessFunctionHarness {
  /** Runs `process` for one row (an object of the input columns and the PARTITION BY columns). */
  processElement(row: Readonly<Record<string, unknown>>): void
  /** Advances the watermark: due event-time timers fire, in time order. */
  watermark(timestamp: number): void
  /** Sets the processing-time clock (and the TTL clock): due processing-time timers fire. */
  processingTime(now: number): void
  /** Every row emitted so far, as objects: the PARTITION BY columns, then the output columns. */
  readonly output: readonly Record<string, unknown>[]
  /** The kind of each row of `output`: '+I', or with changelog: 'retract' also '-U', '+U', '-D'. */
  readonly kinds: readonly string[]
  /** The rows emitted since the last take(). */
  take(): Record<string, unknown>[]
  /** What state `field` (a property of ctx.state) holds for `key`: a value, a list, or a map as an object of entries; undefined if none. */
  state(key: readonly unknown[], field: string): unknown
  /** The timers not yet fired. */
  timers(): PendingTimer[]
  /** Rows and timers skipped because their handler threw (with onError: 'skip'). */
  skipped(): number
}

/**
 * A harness around `definition`.
 *
 * @example
 * import { harness } from 'weir/testing'
 * const h = await harness(fraud, { partitionBy: ['card_id'], args: { threshold: 500 } })
 * h.processElement({ card_id: 'c1', amount: 600, ts: 1000 })
 * expect(h.take()).toEqual([{ card_id: 'c1', alert: 'over' }])
 */
export async function harness(definition: ProcessFunction, options: HarnessOptions): Promise<ProcessFunctionHarness> {
  const inputCols: [string, ColumnType | undefined][] = [
    ...options.partitionBy.map((c): [string, ColumnType | undefined] => [c, definition.input?.[c]]),
    ...Object.entries(definition.input ?? {}).filter(([c]) => !options.partitionBy.includes(c)),
  ]
  const input: Field[] = inputCols.map(([name, t]) => ({ name, type: dataTypeOf(t ?? 'STRING') }))
  const output: Field[] = Object.entries(definition.output).map(([name, t]) => ({ name, type: dataTypeOf(t) }))
  const args: Record<string, string | number | boolean | null> = {}
  for (const a of Object.keys(definition.args ?? {})) args[a] = options.args?.[a] ?? null
  for (const a of Object.keys(options.args ?? {})) if (!(a in args)) throw new TypeError(`the function takes no argument '${a}'`)
  const spec: ProcessFunctionSpec = {
    kind: 'ProcessFunction',
    function: 'harness',
    module: '<harness>',
    keys: options.partitionBy.map((_, i) => i),
    input,
    output,
    args,
    states: processStateInfos(definition),
    timers: typeof definition.onTimer === 'function',
    ...(definition.changelog === 'retract' ? { changelog: 'retract' as const } : {}),
    ...(definition.changelog === 'upsert' ? { changelog: 'upsert' as const, upsertKey: definition.upsertKey ?? [] } : {}),
  }
  let now = options.processingTime ?? 0
  const state = new HeapKeyedStateBackend()
  state.setTtlTime(now)
  const timers = new TimerServiceImpl(() => state.getCurrentKey()!, { clock: () => now })
  const out: Record<string, unknown>[] = []
  const kinds: string[] = []
  let taken = 0
  const names = [...options.partitionBy, ...output.map(f => f.name)]
  const metrics = { lateRecordsDropped: 0, rowsIn: 0, rowsOut: 0, rowsSkipped: 0 }
  const ctx: OperatorContext = {
    operatorId: 'harness',
    state,
    timers,
    metrics,
    config: options.onError === undefined ? DEFAULT_JOB_CONFIG : { ...DEFAULT_JOB_CONFIG, processFunctionOnError: options.onError },
    output: {
      emit(batch: Batch) {
        batch.rows.forEach((row, r) => {
          out.push(Object.fromEntries(names.map((n, i) => [n, row[i]])))
          kinds.push(ROW_KIND_SHORT[batch.kinds === null ? 0 : batch.kinds[r]!])
        })
      },
    },
    keysOf: (rows: readonly Row[]): readonly KeyRef[] => rows.map(r => makeKey(spec.keys.map(k => r[k]))),
  }
  const op = new ProcessFunctionOperator(spec, definition)
  await op.open(ctx)
  const fire = (domain: 'event' | 'processing') => (ts: number, key: KeyRef, ns: string | number) => {
    state.setCurrentKey(key)
    op.onTimer(ts, ns, domain)
  }
  const handles = new Map<string, { kind: string; handle: unknown }>()
  for (const s of spec.states) {
    const desc = { kind: s.kind, name: s.name,
      ...(s.ttlMs > 0 ? { ttl: { ttlMs: s.ttlMs, updateType: s.updateTtlOnRead ? 'OnReadAndWrite' : 'OnCreateAndWrite' } } : {}) }
    const handle = s.kind === 'value'
      ? state.getValueState(desc as never)
      : s.kind === 'list'
      ? state.getListState(desc as never)
      : state.getMapState(desc as never)
    // Values as the handlers see them: through the state's codec.
    const mapping = valueMapping(definition.state?.[s.field]?.codec, message => new TypeError(message))
    handles.set(s.field, { kind: s.kind, handle: mapping === null ? handle : mappedHandle(s.kind, handle, mapping) })
  }
  return {
    processElement(row) {
      op.processBatch({ rows: [input.map(f => row[f.name] ?? null)], kinds: null }, 0)
    },
    watermark(ts) {
      timers.advanceWatermark(ts, fire('event'))
      op.onWatermark()
    },
    processingTime(t) {
      now = t
      state.setTtlTime(t)
      timers.advanceProcessingTime(t, fire('processing'))
    },
    output: out,
    kinds,
    take() {
      const rows = out.slice(taken)
      taken = out.length
      return rows
    },
    state(key, field) {
      const h = handles.get(field)
      if (h === undefined) throw new TypeError(`the function declares no state '${field}' (it has ${[...handles.keys()].join(', ') || 'none'})`)
      state.setCurrentKey(makeKey(key))
      const handle = h.handle as { value?(): unknown; get?(): unknown; isEmpty?(): boolean; entries?(): IterableIterator<[unknown, unknown]> }
      if (h.kind === 'value') return handle.value!()
      if (h.kind === 'list') {
        const l = handle.get!() as unknown[]
        return l.length === 0 ? undefined : [...l]
      }
      return handle.isEmpty!() ? undefined : Object.fromEntries(handle.entries!())
    },
    skipped: () => metrics.rowsSkipped,
    timers() {
      const snap = timers.snapshot()
      return [
        ...snap.event.map(t => ({ key: t.key, timestamp: t.timestamp, domain: 'event' as const })),
        ...snap.processing.map(t => ({ key: t.key, timestamp: t.timestamp, domain: 'processing' as const })),
      ]
    },
  }
}
