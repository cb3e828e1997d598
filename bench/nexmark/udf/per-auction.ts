// A benchmark process function (bench/nexmark/ptf-queries.ts): bids per key and auction in a
// MapState, each new count emitted — what GROUP BY key, auction COUNT(*) computes, insert-only.
import { defineProcessFunction, mapState } from 'weir'

export default defineProcessFunction({
  input: { auction: 'BIGINT' },
  output: { auction: 'BIGINT', n: 'BIGINT' },
  state: { counts: mapState<number, number>('per_auction') },
  process(row, ctx) {
    const auction = row.auction ?? 0
    const n = (ctx.state.counts.get(auction) ?? 0) + 1
    ctx.state.counts.put(auction, n)
    ctx.emit({ auction, n })
  },
})
