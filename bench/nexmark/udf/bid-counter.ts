// A benchmark process function (bench/nexmark/ptf-queries.ts): bids per key in a ValueState, each
// new count emitted — what GROUP BY key COUNT(*) computes, insert-only instead of as updates.
import { defineProcessFunction, valueState } from 'weir'

export default defineProcessFunction({
  input: { auction: 'BIGINT' },
  output: { n: 'BIGINT' },
  state: { count: valueState<number>('count') },
  process(_row, ctx) {
    const n = (ctx.state.count.value() ?? 0) + 1
    ctx.state.count.update(n)
    ctx.emit({ n })
  },
})
