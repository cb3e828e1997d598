// A per-card fraud rule, a small state machine: a tiny "probe" payment (under 1.00) followed within a
// minute by one over `threshold` raises an alert, as does a card's first payment at a merchant it has
// paid more than `threshold` in total elsewhere the same day. The probe expires with an event-time timer.
import { defineProcessFunction, mapState, valueState } from 'weir'

export default defineProcessFunction({
  input: { card_id: 'STRING', merchant: 'STRING', amount: 'DOUBLE', ts: 'TIMESTAMP(3)' },
  output: { merchant: 'STRING', amount: 'DOUBLE', reason: 'STRING', ts: 'TIMESTAMP(3)' },
  args: { threshold: 'DOUBLE' },
  state: {
    probe: valueState<number>('probe', { ttl: '1 h' }),
    spent: mapState<string, number>('spent_per_merchant', { ttl: '1 d' }),
  },
  process(row, ctx) {
    const amount = row.amount ?? 0
    const ts = row.ts ?? 0
    const threshold = ctx.args.threshold ?? 500
    const probe = ctx.state.probe.value()
    if (probe !== undefined && amount > threshold && ts - probe <= 60_000) {
      ctx.emit({ merchant: row.merchant, amount, reason: 'large payment right after a probe', ts })
      ctx.state.probe.clear()
      ctx.timers.deleteEventTime(probe + 60_000)
    }
    if (amount < 1) {
      ctx.state.probe.update(ts)
      ctx.timers.registerEventTime(ts + 60_000)
    }
    const merchant = row.merchant ?? '?'
    let elsewhere = 0
    for (const [m, spent] of ctx.state.spent.entries()) if (m !== merchant) elsewhere += spent
    if (!ctx.state.spent.contains(merchant) && elsewhere > threshold && ctx.state.spent.size() >= 2) {
      ctx.emit({ merchant, amount, reason: 'new merchant after a big day', ts })
    }
    ctx.state.spent.put(merchant, (ctx.state.spent.get(merchant) ?? 0) + amount)
  },
  onTimer(ts, ctx) {
    // The probe's minute is over: forget it (unless a newer probe replaced it).
    if (ctx.state.probe.value() === ts - 60_000) ctx.state.probe.clear()
  },
})
