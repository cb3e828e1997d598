// A user's process table function (ptf/api.ts) as an operator: rows keyed by the PARTITION BY
// columns go to `process` one by one, in arrival order, with the row's key current in the state
// backend; due timers go to `onTimer` with their key current. Each row's state was prefetched with
// its batch, so the handlers run synchronously against resident state.
import type { Batch, Row } from '../core/batch.js'
import type { ProcessFunctionSpec } from '../core/process-function.js'
import type { KeyRef, Namespace, StateTtlConfig } from '../core/keyed-state.js'
import type { Operator, OperatorContext, OperatorDescriptor, TimerDomain } from '../core/operator.js'
import { WeirError } from '../common/errors.js'
import { formatValue } from '../common/values.js'
import { type Field, formatType, withNullable } from '../common/types.js'
import type { Context, ProcessFunction, Timers, TimerContext } from '../ptf/api.js'
import { loadProcessFunction } from '../ptf/load.js'
import { HandlerJournal } from '../ptf/rollback.js'
import { mappedHandle, valueMapping } from '../ptf/codecs.js'

type Handlers = Context<never, never, never> & { timeDomain: 'event' | 'processing' }

export class ProcessFunctionOperator implements Operator {
  private def!: ProcessFunction
  private ctx!: OperatorContext
  /** Rows emitted since the last flush (a skipped row's are taken back: see run). */
  private outRows: Row[] = []
  /** Their kinds (RowKind), while one is not an insert; null while all are. */
  private outKinds: number[] | null = null
  private skip = false
  /** With `skip`: the state writes and timer operations of the running handler call, undone if it throws. */
  private journal: HandlerJournal | null = null
  /** The first skipped failure's message (logged once per subtask). */
  private warned = false
  private readonly state: Record<string, unknown> = {}
  private key: KeyRef | undefined = undefined
  /** The row a handler is running for (null: a timer), for the error that names it. */
  private current: Row | null = null
  private readonly handlerCtx: Handlers
  /** Makes the object a handler sees from an input row: one shape for every row (a compiled literal). */
  private readonly rowObject: (row: Row) => Record<string, unknown>

  /** `definition`: the function itself, instead of loading spec.module (weir/testing's harness). */
  constructor(readonly spec: ProcessFunctionSpec, private readonly definition?: ProcessFunction) {
    const self = this
    // Field names are quoted by JSON.stringify: any column name is a property name here.
    // A FLOAT column reaches the handler as a 32-bit float, whatever number its input held.
    const read = (f: Field,
      i: number): string => (f.type.kind === 'DOUBLE' && f.type.float === true ? `row[${i}] === null ? null : Math.fround(row[${i}])` : `row[${i}]`)
    this.rowObject = new Function('row', `return { ${spec.input.map((f, i) => `${JSON.stringify(f.name)}: ${read(f, i)}`).join(', ')} }`) as (
      row: Row,
    ) => Record<string, unknown>
    const timers: Timers = {
      registerEventTime: ts => self.ctx.timers.registerEventTimeTimer(checkTime(ts, self), ''),
      registerProcessingTime: ts => self.ctx.timers.registerProcessingTimeTimer(checkTime(ts, self), ''),
      deleteEventTime: ts => self.ctx.timers.deleteEventTimeTimer(ts, ''),
      deleteProcessingTime: ts => self.ctx.timers.deleteProcessingTimeTimer(ts, ''),
    }
    this.handlerCtx = {
      state: this.state as never,
      get key() {
        return self.key?.values ?? []
      },
      args: spec.args as never,
      timers,
      get watermark() {
        return self.ctx.timers.currentWatermark()
      },
      get processingTime() {
        return self.ctx.timers.currentProcessingTime()
      },
      emit: (row: unknown, kind?: unknown) => self.emit(row, kind),
      timeDomain: 'event',
    }
  }

  async open(ctx: OperatorContext): Promise<void> {
    this.ctx = ctx
    this.skip = ctx.config.processFunctionOnError === 'skip'
    const journal = this.journal = this.skip ? new HandlerJournal() : null
    if (journal !== null) {
      const ctxTimers = this.handlerCtx as { timers: Timers }
      ctxTimers.timers = journal.timers(ctxTimers.timers)
    }
    const spec = this.spec
    this.def = this.definition ?? await loadProcessFunction(spec.module, /\.(c|m)?ts$/.test(spec.module) ? 'TYPESCRIPT' : 'JAVASCRIPT')
    const declared = Object.entries(this.def.state ?? {})
    for (const s of spec.states) {
      // The module may have changed since the plan: its state must still be what the plan (and EXPLAIN) said.
      const now = declared.find(([field]) => field === s.field)?.[1]
      if (now === undefined || now.kind !== s.kind || now.name !== s.name || (now.codecId ?? 'json') !== (s.codec ?? 'json')) {
        throw WeirError.execution(`process function '${spec.function}': state '${s.field}' of ${spec.module} changed since the job was planned`, {
          help: 'plan the job again (CREATE FUNCTION loads the module)',
        })
      }
      const ttl: StateTtlConfig | undefined = s.ttlMs > 0
        ? { ttlMs: s.ttlMs, updateType: s.updateTtlOnRead ? 'OnReadAndWrite' : 'OnCreateAndWrite' }
        : undefined
      const desc = { kind: s.kind, name: s.name, ...(ttl ? { ttl } : {}) } as const
      const handle = s.kind === 'value' ?
        ctx.state.getValueState(desc as never)
        : s.kind === 'list' ?
        ctx.state.getListState(desc as never)
        : ctx.state.getMapState(desc as never)
      const journaled = journal === null ? handle : journal.handle(s.kind, handle)
      const mapping = valueMapping(now.codec, message => this.failure(`state '${s.name}': ${message}`, undefined, 'write values the codec takes'))
      this.state[s.field] = mapping === null ? journaled : mappedHandle(s.kind, journaled, mapping)
    }
    if (this.def.open) this.run(() => this.def.open!({ args: spec.args as never, functionName: spec.function }), false)
  }

  processBatch(batch: Batch, input: number): void {
    const rows = batch.rows
    if (rows.length === 0) return
    const keys = this.ctx.keysOf(rows, input)
    const state = this.ctx.state
    const rowObject = this.rowObject
    const def = this.def
    const hctx = this.handlerCtx as unknown as Context<never, never, never>
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!
      const key = keys[i]!
      if (this.key !== key) {
        state.setCurrentKey(key)
        this.key = key
      }
      this.current = row
      // As run() does, without a closure per row.
      const emitted = this.outRows.length
      try {
        def.process(rowObject(row) as never, hctx)
        this.journal?.commit()
      } catch (e) {
        this.caught(e, emitted, this.skip)
      }
    }
    this.current = null
    this.flush()
  }

  onTimer(timestamp: number, _namespace: Namespace, domain: TimerDomain): void {
    const onTimer = this.def.onTimer
    if (onTimer === undefined) return
    this.key = this.ctx.state.getCurrentKey()
    this.handlerCtx.timeDomain = domain
    this.current = null
    this.run(() => onTimer.call(this.def, timestamp, this.handlerCtx as unknown as TimerContext<never, never, never>), this.skip)
    this.handlerCtx.timeDomain = 'event'
    if (domain === 'processing') this.flush()
  }

  onWatermark(): void {
    this.flush()
  }

  endInput(): void {
    this.flush()
  }

  close(): void {
    if (this.def?.close) this.run(() => this.def.close!(), false)
  }

  private flush(): void {
    if (this.outRows.length === 0) return
    const batch: Batch = { rows: this.outRows, kinds: this.outKinds === null ? null : Uint8Array.from(this.outKinds) }
    this.outRows = []
    this.outKinds = null
    this.ctx.output.emit(batch)
  }

  /** Output row = [...key values, ...declared output columns in order]; values are checked against the declared types. */
  private emit(value: unknown, kindName: unknown): void {
    const spec = this.spec
    const kind = kindName === undefined ? 0 : KINDS.indexOf(kindName as string)
    if (kind < 0) throw this.failure(`emit's kind must be one of ${KINDS.map(k => `'${k}'`).join(', ')}, got ${JSON.stringify(kindName)}`)
    if (kind !== 0 && spec.changelog === undefined) {
      throw this.failure(`emitted a '${KINDS[kind]}' row, but the function's output is insert-only`, undefined,
        "declare changelog: 'retract' (or 'upsert' with an upsertKey) in defineProcessFunction({ … }) to emit changes of earlier rows")
    }
    if (kind === 1 && spec.changelog === 'upsert') {
      throw this.failure(`emitted a '-U' row, but the function's output is an upsert stream`, undefined,
        "emit the new row as '+U' (it replaces the row of its upsert key) or delete the key with '-D'; declare changelog: 'retract' to emit retractions")
    }
    if (typeof value !== 'object' || value === null) throw this.failure(`emit takes an object of the output columns, got ${String(value)}`)
    const o = value as Record<string, unknown>
    const keyValues = this.key?.values ?? []
    const row: Row = new Array(keyValues.length + spec.output.length)
    for (let k = 0; k < keyValues.length; k++) row[k] = keyValues[k]
    for (let c = 0; c < spec.output.length; c++) {
      const f = spec.output[c]!
      const v = o[f.name]
      row[keyValues.length + c] = v === undefined ? null : checkValue(v, f, this)
    }
    if (kind !== 0 && this.outKinds === null) this.outKinds = new Array<number>(this.outRows.length).fill(0)
    this.outRows.push(row)
    this.outKinds?.push(kind)
  }

  /**
   * Runs user code; what it throws fails the job naming the function, the key and the row — or, with
   * `skip` ('weir.process-function.on-error' = 'skip'), what the call did is undone — the rows it
   * emitted taken back, its state writes restored and its timer operations dropped (ptf/rollback.ts) —
   * the row is counted (JobMetrics.skippedRecords) and the first failure logged.
   */
  private run(f: () => void, skip: boolean): void {
    const emitted = this.outRows.length
    try {
      f()
      this.journal?.commit()
    } catch (e) {
      this.caught(e, emitted, skip)
    }
  }

  /** A handler threw: fails the job, or with `skip` undoes the call (the first `emitted` rows stay) and counts it. */
  private caught(e: unknown, emitted: number, skip: boolean): void {
    const error = e instanceof UserCodeError ? e.error : this.failure(e instanceof Error ? e.message : String(e), e).error
    if (!skip) throw error
    this.journal?.rollback()
    this.outRows.length = emitted
    if (this.outKinds !== null) this.outKinds.length = emitted
    const m = this.ctx.metrics
    m.rowsSkipped = (m.rowsSkipped ?? 0) + 1
    if (!this.warned) {
      this.warned = true
      process.stderr.write(
        `warning: ${error.message} — skipped ('weir.process-function.on-error' = 'skip'); later failures of this subtask are counted, not logged\n`,
      )
    }
  }

  failure(message: string, cause?: unknown, help = 'fix the function, or filter the rows it cannot take before calling it'): UserCodeError {
    const spec = this.spec
    const key = this.key?.values.map((v, k) => formatValue(v, spec.input[spec.keys[k]!]!.type)).join(', ')
    const row = this.current === null ? undefined : spec.input.map((f, i) => `${f.name}=${formatValue(this.current![i], f.type)}`).join(', ')
    const notes = [`function: ${spec.function} (${spec.module})`, ...(key === undefined ? [] : [`key: [${key}]`]),
      row === undefined ? 'in onTimer' : `row: ${row}`]
    const stack = cause instanceof Error && cause.stack ? cause.stack.split('\n').slice(1, 4).map(l => l.trim()) : []
    return new UserCodeError(
      WeirError.execution(`process function '${spec.function}' failed on key [${key ?? ''}]${row === undefined ? '' : ` at row (${row})`}: ${message}`, {
        notes: [...notes, ...stack],
        help,
        cause,
      }),
    )
  }
}

const KINDS = ['+I', '-U', '+U', '-D']

/** An error already made for the user: passes through `run` as it is. */
class UserCodeError extends Error {
  constructor(readonly error: WeirError) {
    super(error.message)
  }
}

function checkTime(ts: number, op: ProcessFunctionOperator): number {
  if (typeof ts !== 'number' || !Number.isFinite(ts)) throw op.failure(`a timer's time must be a finite number of epoch ms, got ${String(ts)}`)
  return ts
}

function checkValue(v: unknown, f: Field, op: ProcessFunctionOperator): unknown {
  if (v === null) return null
  switch (f.type.kind) {
    case 'STRING':
      if (typeof v === 'string') return v
      break
    case 'BOOLEAN':
      if (typeof v === 'boolean') return v
      break
    case 'DOUBLE':
      if (typeof v === 'number') return f.type.float === true ? Math.fround(v) : v
      break
    case 'INT':
    case 'BIGINT':
    case 'TIMESTAMP':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v
      break
    default:
      return v
  }
  throw op.failure(
    `emitted ${JSON.stringify(v)} as '${f.name}', which is declared ${
      f.type.kind === 'TIMESTAMP' ? 'TIMESTAMP(3) (epoch ms)' : formatType(withNullable(f.type, true))
    }`,
  )
}

/** Keyed state per PARTITION BY key; timers of both domains when the module has onTimer; a TTL'd state is swept. */
export const processFunction: OperatorDescriptor<ProcessFunctionSpec> = {
  traits: spec => ({
    keyedState: true,
    input: 'batch',
    ttlSweep: spec.states.some(s => s.ttlMs > 0),
    timers: spec.timers ? ['event', 'processing'] : [],
  }),
  create: spec => new ProcessFunctionOperator(spec),
}
