// Calc throughput with nested values: a filter comparing an ARRAY and a MAP column (element-wise, the
// MAP whatever its entry order) against the same test written on scalar columns, and a projection
// of ARRAY_* / MAP_* functions. Variants alternate, five rounds each (median); process CPU µs per row (process.cpuUsage).
// Run: npx tsc -p . ; node dist/bench/collection-speed.js
import { T, type Field } from '../common/types.js'
import type { Batch } from '../core/batch.js'
import { inputRef, type Rex } from '../core/rex.js'
import { compileCalc, numberLiteral, resolveCall, stringLiteral } from '../expr/index.js'

const FIELDS: Field[] = [
  { name: 'a', type: T.int(false) },
  { name: 'b', type: T.int(false) },
  { name: 'arr', type: T.array(T.int(false), false) },
  { name: 'm', type: T.map(T.string(false), T.int(false), false) },
]
const c = (name: string): Rex => {
  const i = FIELDS.findIndex(f => f.name === name)
  return inputRef(i, FIELDS[i]!.type)
}
const call = (name: string, ...args: Rex[]): Rex => resolveCall(name, args)
const n = numberLiteral
const s = stringLiteral

const ROWS = 500_000
const BATCH = 1024
const PASSES = 4

function makeBatches(): Batch[] {
  const batches: Batch[] = []
  for (let i = 0; i < ROWS; i += BATCH) {
    const rows: unknown[][] = []
    for (let j = i; j < Math.min(ROWS, i + BATCH); j++) {
      const a = j % 7, b = j % 11
      rows.push([a, b, [a, b], j % 2 ? [['x', a], ['y', b]] : [['y', b], ['x', a]]])
    }
    batches.push({ rows, kinds: null })
  }
  return batches
}

const cases: { name: string; projection: Rex[]; condition?: Rex }[] = [
  { name: 'scalar   a = 3 AND b = 5', projection: [c('a')], condition: call('AND', call('=', c('a'), n('3')), call('=', c('b'), n('5'))) },
  { name: 'array    arr = ARRAY[3, 5]', projection: [c('a')], condition: call('=', c('arr'), call('ARRAY', n('3'), n('5'))) },
  { name: "map      m = MAP['y', 5, 'x', 3]", projection: [c('a')], condition: call('=', c('m'), call('MAP', s('y'), n('5'), s('x'), n('3'))) },
  {
    name: 'functions ARRAY_CONTAINS, ARRAY_SORT, ARRAY_JOIN(MAP_KEYS)',
    projection: [call('ARRAY_CONTAINS', c('arr'), n('5')), call('ARRAY_SORT', c('arr')), call('ARRAY_JOIN', call('MAP_KEYS', c('m')), s('-'))],
  },
]

const batches = makeBatches()
const compiled = cases.map(k => compileCalc(k.projection, k.condition))
const cpu: number[][] = cases.map(() => [])
for (let round = 0; round < 6; round++) {
  compiled.forEach((f, i) => {
    const before = process.cpuUsage()
    let kept = 0
    for (let pass = 0; pass < PASSES; pass++) for (const b of batches) kept += f(b)?.rows.length ?? 0
    const d = process.cpuUsage(before)
    const used = (d.user + d.system) / 1e6
    if (kept < 0) throw new Error('unreachable')
    if (round > 0) cpu[i]!.push(used)
  })
}
for (const [i, k] of cases.entries()) {
  const sorted = [...cpu[i]!].sort((x, y) => x - y)
  const median = sorted[Math.floor(sorted.length / 2)]!
  const rows = ROWS * PASSES
  console.log(`${k.name.padEnd(60)} ${((median * 1e6) / rows).toFixed(3)} CPU µs/row  ${(rows / median / 1e6).toFixed(2)} M rows/CPU-s`)
}
