// Expression compiler throughput on Nexmark-like bid rows: a q2-style filter, the q1 projection
// (0.908 * price as an exact DECIMAL), a filter plus five projections, and a heavier mix.
// Run: npx tsc -p . ; node dist/bench/expr-speed.js
import { T, type Field } from '../common/types.js'
import type { Batch } from '../core/batch.js'
import { inputRef, type Rex } from '../core/rex.js'
import { compileCalc, numberLiteral, resolveCall, stringLiteral } from '../expr/index.js'

const BID: Field[] = [
  { name: 'auction', type: T.bigint(false) },
  { name: 'bidder', type: T.bigint(false) },
  { name: 'price', type: T.bigint(false) },
  { name: 'channel', type: T.string(false) },
  { name: 'url', type: T.string(false) },
  { name: 'dateTime', type: T.timestamp(3, false, 'rowtime') },
  { name: 'extra', type: T.string(false) },
]
const c = (name: string): Rex => {
  const i = BID.findIndex(f => f.name === name)
  return inputRef(i, BID[i]!.type)
}
const call = (name: string, ...args: Rex[]): Rex => resolveCall(name, args)
const n = numberLiteral
const s = stringLiteral

const ROWS = 1_000_000
const BATCH = 1024
const CHANNELS = ['Google', 'Facebook', 'Baidu', 'Apple', 'channel-1234']

function makeBatches(): Batch[] {
  const batches: Batch[] = []
  let t = Date.UTC(2024, 0, 1)
  for (let i = 0; i < ROWS; i += BATCH) {
    const rows: unknown[][] = []
    for (let j = i; j < Math.min(ROWS, i + BATCH); j++) {
      t += 7
      rows.push([1000 + (j % 10007), 2000 + (j % 7919), 100 + ((j * 7919) % 100_000), CHANNELS[j % 5], `https://www.nexmark.com/item.htm?query=${j % 100}`, t,
        ''])
    }
    batches.push({ rows, kinds: null })
  }
  return batches
}

interface Case {
  readonly name: string
  readonly projection: Rex[]
  readonly condition?: Rex
  readonly target?: number
}

const cases: Case[] = [
  {
    name: 'q2 filter  MOD(auction, 123) = 0 → auction, price',
    projection: [c('auction'), c('price')],
    condition: call('=', call('MOD', c('auction'), n('123')), n('0')),
    target: 5e6,
  },
  {
    name: 'q1 project auction, bidder, 0.908 * price, dateTime, extra',
    projection: [c('auction'), c('bidder'), call('*', n('0.908'), c('price')), c('dateTime'), c('extra')],
    target: 2e6,
  },
  {
    name: "filter + 5  price > 5000 AND channel <> 'Apple'; 5 exprs",
    projection: [
      c('auction'),
      call('+', c('bidder'), n('1')),
      call('*', n('0.908'), c('price')),
      call('CASE', call('>', c('price'), n('50000')), s('high'), s('low')),
      call('IS_NULL', c('extra')),
    ],
    condition: call('AND', call('>', c('price'), n('5000')), call('<>', c('channel'), s('Apple'))),
  },
  {
    name: 'heavier    UPPER, DATE_FORMAT, LIKE, TUMBLE-style FLOOR, CAST',
    projection: [
      call('UPPER', c('channel')),
      call('DATE_FORMAT', c('dateTime'), s('yyyy-MM-dd HH:mm')),
      call('LIKE', c('url'), s('%query=1%')),
      call('FLOOR_TO', c('dateTime'), s('MINUTE')),
      resolveCall('CONCAT', [c('channel'), s('-'), c('auction')]),
    ],
  },
]

function measure(batches: Batch[], run: (b: Batch) => Batch | null): number {
  let kept = 0
  const start = process.hrtime.bigint()
  for (const b of batches) kept += run(b)?.rows.length ?? 0
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  if (kept < 0) console.log(kept)
  return ROWS / seconds
}

const batches = makeBatches()
console.log(`expr-speed: ${ROWS.toLocaleString('en')} rows in ${BATCH}-row batches, node ${process.version}`)
for (const k of cases) {
  const run = compileCalc(k.projection, k.condition)
  measure(batches, run) // warm-up: let the JIT see the generated function
  const rates = Array.from({ length: 5 }, () => measure(batches, run)).sort((a, b) => a - b)
  const median = rates[2]!
  const verdict = k.target === undefined ? '' : median >= k.target ? `  (target ${k.target / 1e6}M: ok)` : `  (target ${k.target / 1e6}M: BELOW)`
  console.log(`${k.name.padEnd(64)} ${(median / 1e6).toFixed(2).padStart(6)} M rows/s  (best ${(rates[4]! / 1e6).toFixed(2)})${verdict}`)
}
