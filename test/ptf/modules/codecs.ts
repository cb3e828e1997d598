// A process function whose states declare codecs: a number, a row, and a user's byte codec for a
// MapState's values. It changes the row it read without writing it back (which must change
// nothing), and writes a string into the number state for the merchant 'bad'.
import { codecs, defineProcessFunction, mapState, type StateCodec, valueState } from 'weir'

/** A count per merchant, stored as its decimal text in bytes. */
const countText: StateCodec<{ count: number }> = {
  id: 'count-text',
  encode: v => new TextEncoder().encode(String(v.count)),
  decode: b => ({ count: Number(new TextDecoder().decode(b)) }),
}

export default defineProcessFunction({
  input: { card_id: 'STRING', merchant: 'STRING', amount: 'DOUBLE' },
  output: { n: 'BIGINT', prev: 'DOUBLE', same_merchant: 'BIGINT' },
  state: {
    n: valueState<number>('n', { codec: codecs.number }),
    last: valueState<{ amount: number | null; merchant: string | null }>('last', { codec: codecs.row({ amount: 'DOUBLE', merchant: 'STRING' }) }),
    perMerchant: mapState<string, { count: number }>('per_merchant', { codec: countText }),
  },
  process(row, ctx) {
    const n = (ctx.state.n.value() ?? 0) + 1
    ctx.state.n.update(row.merchant === 'bad' ? ('many' as unknown as number) : n)
    const last = ctx.state.last.value()
    const prev = last?.amount ?? null
    if (last !== undefined) last.amount = -1 // a read value is a copy: this changes nothing stored
    if (n % 3 !== 0) ctx.state.last.update({ amount: row.amount, merchant: row.merchant })
    const m = row.merchant ?? ''
    const seen = ctx.state.perMerchant.get(m) ?? { count: 0 }
    seen.count++
    if (n % 2 === 0) ctx.state.perMerchant.put(m, seen)
    ctx.emit({ n, prev, same_merchant: ctx.state.perMerchant.get(m)?.count ?? 0 })
  },
})
