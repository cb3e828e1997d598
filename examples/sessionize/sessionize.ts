// A custom sessionizer: a user's clicks form a session until `gap_s` seconds pass without one (an
// event-time timer at the last click + gap), or until the user visits the 'logout' page, which ends
// the session at once. Each session is emitted when it ends: its first and last click, its number of
// pages and its path. The open session's clicks are a ListState (appended, never rewritten).
import { type Context, defineProcessFunction, listState, valueState } from 'weir'

interface Click {
  ts: number
  page: string
}

const output = { session_start: 'TIMESTAMP(3)', session_end: 'TIMESTAMP(3)', pages: 'INT', path: 'STRING' } as const
const args = { gap_s: 'INT' } as const
const state = {
  clicks: listState<Click>('clicks', { ttl: '1 d' }),
  // When the open session times out: its last click + gap (the pending timer's time).
  deadline: valueState<number>('deadline', { ttl: '1 d' }),
}

type Ctx = Context<typeof output, typeof state, typeof args>

function endSession(ctx: Ctx): void {
  const clicks = [...ctx.state.clicks.get()].sort((a, b) => a.ts - b.ts)
  const deadline = ctx.state.deadline.value()
  if (deadline !== undefined) ctx.timers.deleteEventTime(deadline)
  ctx.state.clicks.clear()
  ctx.state.deadline.clear()
  if (clicks.length === 0) return
  ctx.emit({
    session_start: clicks[0]!.ts,
    session_end: clicks[clicks.length - 1]!.ts,
    pages: clicks.length,
    path: clicks.map(c => c.page).join(' > '),
  })
}

export default defineProcessFunction({
  input: { page: 'STRING', ts: 'TIMESTAMP(3)' },
  output,
  args,
  state,
  process(row, ctx) {
    const gap = (ctx.args.gap_s ?? 1800) * 1000
    const ts = row.ts ?? 0
    const deadline = ctx.state.deadline.value()
    // The watermark has not reached the deadline yet, but this click is past it: the session is over.
    if (deadline !== undefined && ts > deadline) endSession(ctx)
    ctx.state.clicks.add({ ts, page: row.page ?? '?' })
    if (row.page === 'logout') {
      endSession(ctx)
      return
    }
    const next = Math.max(ts + gap, ctx.state.deadline.value() ?? -Infinity)
    if (next !== ctx.state.deadline.value()) {
      const was = ctx.state.deadline.value()
      if (was !== undefined) ctx.timers.deleteEventTime(was)
      ctx.state.deadline.update(next)
      ctx.timers.registerEventTime(next)
    }
  },
  onTimer(ts, ctx) {
    if (ctx.state.deadline.value() === ts) endSession(ctx)
  },
})
