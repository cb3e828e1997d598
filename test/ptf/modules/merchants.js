// Per card, how often each merchant was paid so far (a MapState entry per merchant), in plain JavaScript.
import { defineProcessFunction, mapState } from 'weir'

export const merchants = defineProcessFunction({
  input: { merchant: 'STRING' },
  output: { merchant: 'STRING', times: 'BIGINT', merchants: 'INT' },
  state: { seen: mapState('seen') },
  process(row, ctx) {
    const times = (ctx.state.seen.get(row.merchant) ?? 0) + 1
    ctx.state.seen.put(row.merchant, times)
    ctx.emit({ merchant: row.merchant, times, merchants: ctx.state.seen.size() })
  },
})
