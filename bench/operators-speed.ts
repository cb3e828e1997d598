// Rows per second through the aggregate operators alone, on heap state, with a minimal in-memory
// context. Run on compiled output: `npx tsc -p . ; node dist/bench/operators-speed.js`.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { T } from '../common/types.js'
import { aggregateResultType } from '../expr/aggregate-types.js'
import { GroupAggregateOperator } from '../operators/group-aggregate.js'
import { WindowAggregateOperator } from '../operators/window-aggregate.js'
import { WindowAssignOperator } from '../operators/window-assign.js'
import type { Batch, Row } from '../core/batch.js'
import type { OperatorSpec } from '../core/job-graph.js'
import type { AggCall } from '../core/aggregates.js'
import type { Operator, OperatorContext } from '../core/operator.js'
import { TimerServiceImpl } from '../runtime/timers.js'
import type { KeyRef, Namespace } from '../core/keyed-state.js'
import { HeapKeyedStateBackend } from '../state/heap/heap-backend.js'
import { makeKey } from '../state/key-encoding.js'
import { DEFAULT_JOB_CONFIG } from '../common/config/index.js'
import type { DataType } from '../common/types.js'

const KEYS = 10_000
const BATCH = 1024
const ROWS = Number(process.argv[2] ?? 2_000_000)

function call(fn: AggCall['fn'], arg: number | null, argType: DataType | null, distinct = false): AggCall {
  return { fn, arg, argType, distinct, filter: null, type: aggregateResultType(fn, argType), name: fn }
}

interface Setup {
  readonly name: string
  readonly spec: OperatorSpec
  readonly keys: number[]
  /** Input row i: [key, value, ts]. */
  readonly row: (i: number) => Row
  readonly kinds?: (batch: number) => Uint8Array | null
  /** Event time advances with the rows: watermark after each batch (ms behind the last row). */
  readonly watermarkLag?: number
  /** keyOf computes makeKey per row (as a runtime without a key cache does), or looks keys up. */
  readonly cachedKeys?: boolean
}

const only = process.argv[3]
const cases: string[] = []

/** Without a case name, runs every case in its own process so one case's garbage cannot slow the next. */
function run(setup: Setup): void {
  if (only === undefined) {
    cases.push(setup.name)
    return
  }
  if (setup.name !== only) return
  const state = new HeapKeyedStateBackend()
  const timers = new TimerServiceImpl(() => state.getCurrentKey()!)
  let outRows = 0
  const keyCache = new Map<unknown, KeyRef>()
  const keyCol = setup.keys[0]
  const keyOf = setup.keys.length === 0
    ? (() => {
      const k = makeKey([])
      return () => k
    })()
    : setup.cachedKeys
    ? (row: Row) => {
      const v = row[keyCol!]
      let k = keyCache.get(v)
      if (k === undefined) keyCache.set(v, k = makeKey([v]))
      return k
    }
    : (row: Row) => makeKey([row[keyCol!]])
  const ctx: OperatorContext = {
    operatorId: 'bench',
    state,
    timers,
    config: DEFAULT_JOB_CONFIG,
    metrics: { lateRecordsDropped: 0, rowsIn: 0, rowsOut: 0 },
    output: { emit(b: Batch) {
      outRows += b.rows.length
    } },
    keysOf: (rows: readonly Row[]) => rows.map(keyOf),
  }
  const op = create(setup.spec)
  void op.open(ctx)
  const fire = (ts: number, key: KeyRef, ns: Namespace) => {
    state.setCurrentKey(key)
    op.onTimer!(ts, ns, 'event')
  }
  // Each batch is built untimed just before it is processed, so only the operator is measured
  // and the heap does not hold the whole input.
  // CPU time of this process (all its threads, GC included): steadier than wall time on a shared machine.
  let elapsed = 0
  for (let b = 0, i = 0; i < ROWS; b++) {
    const rows: Row[] = []
    for (let j = 0; j < BATCH && i < ROWS; j++, i++) rows.push(setup.row(i))
    const batch: Batch = { rows, kinds: setup.kinds?.(b) ?? null }
    const t0 = process.cpuUsage()
    state.setTtlTime(0)
    op.processBatch(batch, 0)
    if (setup.watermarkLag !== undefined) {
      const wm = (rows[rows.length - 1]![2] as number) - setup.watermarkLag
      timers.advanceWatermark(wm, fire)
      op.onWatermark?.(wm)
    }
    elapsed += cpuSince(t0)
  }
  const t0 = process.cpuUsage()
  if (setup.watermarkLag !== undefined) {
    timers.advanceWatermark(Infinity, fire)
    op.onWatermark?.(Infinity)
  }
  op.endInput?.()
  elapsed += cpuSince(t0)
  const seconds = elapsed / 1e6
  const rate = ROWS / seconds
  console.log(
    `${setup.name.padEnd(58)} ${
      (rate / 1e6).toFixed(2).padStart(6)
    } M rows/s of CPU  (${outRows} rows out, ${state.stats().entries} state entries left, ${ctx.metrics.lateRecordsDropped} late)`,
  )
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start)
  return d.user + d.system
}

function create(spec: OperatorSpec): Operator {
  switch (spec.kind) {
    case 'GroupAggregate':
      return new GroupAggregateOperator(spec)
    case 'WindowAggregate':
      return new WindowAggregateOperator(spec)
    case 'WindowAssign':
      return new WindowAssignOperator(spec)
    default:
      throw new Error(`not benchmarked: ${spec.kind}`)
  }
}

// Deterministic pseudo-random keys and values.
const rnd = (i: number) => Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) >>> 0
const keyOfRow = (i: number) => `user-${rnd(i) % KEYS}`
const row = (i: number): Row => [keyOfRow(i), rnd(i * 7 + 1) % 1000, i]

const fiveAggs = [call('COUNT', null, null), call('MIN', 1, T.int()), call('MAX', 1, T.int()), call('AVG', 1, T.int()), call('SUM', 1, T.int())]
const groupSpec = (inputUpdating: boolean, aggs = fiveAggs): OperatorSpec => ({ kind: 'GroupAggregate', keys: [0], aggs, inputUpdating, ttlMs: 0 })
// ~1000 rows per ms of event time, so a 10 s TUMBLE holds ~10M rows… use 1 row per ms instead.
const windowSpec = (window: Extract<OperatorSpec, { kind: 'WindowAggregate' }>['window'], aggs: AggCall[]): OperatorSpec => ({ kind: 'WindowAggregate', window,
  timeIndex: 2, timeDomain: 'event', keys: [0], aggs })
const count = [call('COUNT', null, null)]

if (only === undefined) console.log(`operators-speed: ${ROWS} rows, ${KEYS} keys, batches of ${BATCH}, heap state (node ${process.version})`)
for (const cachedKeys of [false, true]) {
  const how = cachedKeys ? 'keyOf cached' : 'keyOf = makeKey'
  run({ name: `group agg COUNT/MIN/MAX/AVG/SUM, insert-only [${how}]`, spec: groupSpec(false), keys: [0], row, cachedKeys })
  run({ name: `group agg COUNT/MIN/MAX/AVG/SUM, retracting input [${how}]`, spec: groupSpec(true), keys: [0], row, cachedKeys, kinds: () => null })
  run({ name: `group agg COUNT(DISTINCT v) [${how}]`, spec: groupSpec(false, [call('COUNT', 1, T.int(), true)]), keys: [0], row, cachedKeys })
  run({ name: `TUMBLE(10 s) COUNT per key [${how}]`, spec: windowSpec({ kind: 'TUMBLE', size: 10_000, offset: 0 }, count), keys: [0], row, cachedKeys,
    watermarkLag: 1000 })
  run({ name: `HOP(2 s, 10 s) COUNT per key [${how}]`, spec: windowSpec({ kind: 'HOP', slide: 2_000, size: 10_000, offset: 0 }, count), keys: [0], row,
    cachedKeys, watermarkLag: 1000 })
  run({ name: `CUMULATE(2 s, 10 s) COUNT/SUM per key [${how}]`,
    spec: windowSpec({ kind: 'CUMULATE', step: 2_000, maxSize: 10_000, offset: 0 }, [...count, call('SUM', 1, T.int())]), keys: [0], row, cachedKeys,
    watermarkLag: 1000 })
  run({ name: `SESSION(gap 5 s) COUNT per key [${how}]`, spec: windowSpec({ kind: 'SESSION', gap: 5_000 }, count), keys: [0], row, cachedKeys,
    watermarkLag: 1000 })
}
run({ name: 'TUMBLE(10 s) global COUNT/MAX',
  spec: { kind: 'WindowAggregate', window: { kind: 'TUMBLE', size: 10_000, offset: 0 }, timeIndex: 2, timeDomain: 'event', keys: [],
    aggs: [...count, call('MAX', 1, T.int())] }, keys: [], row, watermarkLag: 1000 })
run({ name: 'window assign HOP(5 s, 10 s) (2 rows out per row)',
  spec: { kind: 'WindowAssign', window: { kind: 'HOP', slide: 5_000, size: 10_000, offset: 0 }, timeIndex: 2, timeDomain: 'event' }, keys: [], row })

for (const name of cases) {
  const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), String(ROWS), name], { encoding: 'utf8' })
  process.stdout.write(result.status === 0 ? result.stdout : `${name}: failed\n${result.stderr}`)
}
