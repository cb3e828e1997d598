// The cost of an uncorrelated NOT IN (the null-aware anti join) when the subquery's values arrive
// after the probe rows: N probe rows with distinct values, then N distinct subquery values (every
// other one equal to a probe value), then the subquery rows retracted. Each value that enters or
// leaves the subquery flips the probe rows with that value: the work should be per row flipped, not
// per probe row held. Heap state, the operator alone, CPU time of the process.
// `npx tsc -p . ; node dist/bench/not-in-speed.js [N]`
import type { Batch, Row } from '../core/batch.js'
import { RowKind } from '../core/batch.js'
import type { OperatorContext } from '../core/operator.js'
import { DEFAULT_JOB_CONFIG } from '../common/config/index.js'
import { SemiJoinOperator } from '../operators/join/semi-join.js'
import { TimerServiceImpl } from '../runtime/timers.js'
import { HeapKeyedStateBackend } from '../state/heap/heap-backend.js'
import { makeKey } from '../state/key-encoding.js'

const N = Number(process.argv[2] ?? 20_000)
const BATCH = 256

const state = new HeapKeyedStateBackend()
const key = makeKey([])
let inserted = 0, deleted = 0
const ctx: OperatorContext = {
  operatorId: 'bench',
  state,
  timers: new TimerServiceImpl(() => state.getCurrentKey()!),
  config: DEFAULT_JOB_CONFIG,
  metrics: { lateRecordsDropped: 0, rowsIn: 0, rowsOut: 0 },
  output: { emit(b: Batch) {
    for (let i = 0; i < b.rows.length; i++) {
      if (b.kinds !== null && b.kinds[i] === RowKind.DELETE) deleted++
      else inserted++
    }
  } },
  keysOf: rows => rows.map(() => key),
}
const op = new SemiJoinOperator({
  kind: 'SemiJoin',
  anti: true,
  leftKeys: [],
  rightKeys: [],
  nullAware: { left: 0, right: 0 },
  leftUpdating: false,
  rightUpdating: true,
  ttlMs: 0,
})
op.open(ctx)

/** CPU µs (user + system) to push `rows(i)` for i < N through input `input` in batches. */
function phase(input: number, kind: RowKind, row: (i: number) => Row): number {
  const t0 = process.cpuUsage()
  for (let i = 0; i < N;) {
    const rows: Row[] = []
    for (let j = 0; j < BATCH && i < N; j++, i++) rows.push(row(i))
    op.processBatch({ rows, kinds: kind === RowKind.INSERT ? null : new Uint8Array(rows.length).fill(kind) }, input)
  }
  const d = process.cpuUsage(t0)
  return d.user + d.system
}

// One probe row in 100 has a NULL value; the rest are 0..N-1.
const probe = phase(0, RowKind.INSERT, i => [i % 100 === 99 ? null : i, `p${i}`])
const build = phase(1, RowKind.INSERT, i => [i * 2])
const after = inserted - deleted
const retract = phase(1, RowKind.DELETE, i => [i * 2])
const fmt = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms  ${(us / N).toFixed(2).padStart(9)} µs/row`
console.log(`NOT IN, ${N} probe rows then ${N} subquery values, then retracted (heap, CPU time)`)
console.log(`  probe rows in          ${fmt(probe)}`)
console.log(`  subquery values in     ${fmt(build)}   (${after} rows qualify after)`)
console.log(`  subquery values out    ${fmt(retract)}   (${inserted - deleted} rows qualify after; ${inserted} +I, ${deleted} -D)`)
