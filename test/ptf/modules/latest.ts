// Per card, the latest row of each amount bucket (50 wide) as an upsert stream keyed by (card_id,
// bucket): how many payments fell in it and the last one. A payment of the top bucket (200 and more)
// also deletes the card's bucket 0 by key.
import { defineProcessFunction, mapState } from 'weir'

export default defineProcessFunction({
  input: { amount: 'DOUBLE' },
  output: { bucket: 'INT', n: 'BIGINT', last: 'DOUBLE' },
  changelog: 'upsert',
  upsertKey: ['bucket'],
  state: { counts: mapState<number, number>('counts') },
  process(row, ctx) {
    const amount = row.amount ?? 0
    const bucket = Math.floor(amount / 50)
    if (bucket === 4 && ctx.state.counts.contains(0)) {
      ctx.state.counts.remove(0)
      ctx.emit({ bucket: 0, n: null, last: null }, '-D')
    }
    const n = (ctx.state.counts.get(bucket) ?? 0) + 1
    ctx.state.counts.put(bucket, n)
    ctx.emit({ bucket, n, last: amount }, n === 1 ? '+I' : '+U')
  },
})
