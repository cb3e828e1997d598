// bid-counter.ts with its state's codec declared (codecs.number): each write is checked to be a
// number, and the value is stored as it is (bench/nexmark/ptf-queries.ts, ptf-count-typed).
import { codecs, defineProcessFunction, valueState } from 'weir'

export default defineProcessFunction({
  input: { auction: 'BIGINT' },
  output: { n: 'BIGINT' },
  state: { count: valueState<number>('count', { codec: codecs.number }) },
  process(_row, ctx) {
    const n = (ctx.state.count.value() ?? 0) + 1
    ctx.state.count.update(n)
    ctx.emit({ n })
  },
})
