// Joins bounded in time: window joins (both inputs windowed by the same TUMBLE/HOP/CUMULATE, the
// condition equating window_start and window_end of both) and interval joins (an equi-join whose
// condition also bounds one side's time attribute by the other's from below and from above). Both
// are planned as the regular join of the same condition (keys, residual) marked with `time`: the
// operator then keeps each side's rows only as long as time allows a match, and emits insert-only.
// Any other join is left to the regular join.
import { WeirError } from '../../common/errors.js'
import { timeAttrOf, withNullable, type Field } from '../../common/types.js'
import { inputRef, type Rex } from '../../core/rex.js'
import type { TimeDomain } from '../../core/windows.js'
import type { JoinTime, LogicalPlan } from '../logical/nodes.js'
import { changelogOf, describe } from '../changelog.js'
import { windowColumnsOf, type WindowColumn } from '../window-columns.js'
import type { JoinInputs } from './join-binder.js'
import { regularJoin } from './regular-join.js'

/** The join as a window or interval join, or undefined when its condition bounds nothing in time. */
export function timeJoin(j: JoinInputs): LogicalPlan | undefined {
  return windowJoin(j) ?? intervalJoin(j)
}

// ------------------------------------------------------------------------------ window joins

function windowJoin(j: JoinInputs): LogicalPlan | undefined {
  const lw = j.left.plan.fields.length
  const lcols = windowColumnsOf(j.left.plan), rcols = windowColumnsOf(j.right.plan)
  let start: [WindowColumn, WindowColumn] | undefined
  let end: [WindowColumn, WindowColumn, number, number] | undefined
  for (const c of j.conjuncts) {
    const pair = columnEquality(c, lw)
    if (pair === undefined) continue
    const l = lcols[pair[0]], r = rcols[pair[1]]
    if (l === undefined || r === undefined || l.role !== r.role) continue
    if (l.role === 'start') start = [l, r]
    else if (l.role === 'end') end = [l, r, pair[0], pair[1]]
  }
  if (start === undefined || end === undefined) return undefined
  const [l, r] = end
  if (!sameWindow(l, r) || !sameWindow(start[0], l) || !sameWindow(start[1], r)) {
    throw WeirError.plan(`a window join needs both inputs windowed alike, but they are ${formatWindow(l)} and ${formatWindow(r)}`, {
      span: j.join.on?.span ?? j.span,
      help: 'window both inputs with the same window function, time domain, size, slide or step and offset',
    })
  }
  if (l.window.kind === 'SESSION') {
    throw WeirError.unsupported('a window join over SESSION windows is not supported', {
      span: j.join.on?.span ?? j.span,
      help: 'window both inputs by TUMBLE, HOP or CUMULATE',
    })
  }
  if (l.domain === 'processing') {
    throw WeirError.unsupported('a window join over processing-time windows is not supported: its windows would close at a moment neither input knows', {
      span: j.join.on?.span ?? j.span,
      help: 'window both inputs on an event-time attribute (a column with a WATERMARK)',
    })
  }
  refuseUpdating(j, 'window join')
  // window_start and window_end stay among the join keys: a key's state is one window's rows.
  const time: JoinTime = { kind: 'window', window: l.window, leftEnd: end[2], rightEnd: end[3] }
  return markTimed(regularJoin(j), time)
}

export function sameWindow(a: WindowColumn, b: WindowColumn): boolean {
  return a.domain === b.domain && JSON.stringify(a.window) === JSON.stringify(b.window)
}

export function formatWindow(c: WindowColumn): string {
  const w = c.window
  const ms = (n: number) => `${n} ms`
  const body = w.kind === 'TUMBLE'
    ? `size ${ms(w.size)}`
    : w.kind === 'HOP'
    ? `slide ${ms(w.slide)}, size ${ms(w.size)}`
    : w.kind === 'CUMULATE'
    ? `step ${ms(w.step)}, max size ${ms(w.maxSize)}`
    : `gap ${ms(w.gap)}`
  const offset = 'offset' in w && w.offset !== 0 ? `, offset ${ms(w.offset)}` : ''
  return `${w.kind}(${body}${offset}, ${c.domain} time)`
}

/** `l = r` between a column of each input: [left column, right column (own index)]. */
function columnEquality(c: Rex, lw: number): [number, number] | undefined {
  if (c.kind !== 'Call' || c.op !== '=' || c.args.length !== 2) return undefined
  const [a, b] = c.args.map(stripCast) as [Rex, Rex]
  if (a.kind !== 'Input' || b.kind !== 'Input') return undefined
  if (a.index < lw && b.index >= lw) return [a.index, b.index - lw]
  if (b.index < lw && a.index >= lw) return [b.index, a.index - lw]
  return undefined
}

// ------------------------------------------------------------------------------ interval joins

/** A time column of one input: a time attribute, or a window_end (never behind the watermark). */
function timeColumn(plan: LogicalPlan, col: number): TimeDomain | undefined {
  const attr = timeAttrOf(plan.fields[col]!.type)
  if (attr !== undefined) return attr === 'rowtime' ? 'event' : 'processing'
  const w = windowColumnsOf(plan)[col]
  return w?.role === 'end' ? w.domain : undefined
}

/** One bound `left time - right time (>= | <=) k` read from a conjunct. */
interface Bound {
  readonly left: number
  readonly right: number
  readonly lower?: number
  readonly upper?: number
}

function intervalJoin(j: JoinInputs): LogicalPlan | undefined {
  const lw = j.left.plan.fields.length
  const bounds: { bound: Bound; conjunct: number }[] = []
  j.conjuncts.forEach((c, i) => {
    const bound = timeBound(c, lw)
    if (bound === undefined) return
    if (timeColumn(j.left.plan, bound.left) === undefined || timeColumn(j.right.plan, bound.right) === undefined) return
    bounds.push({ bound, conjunct: i })
  })
  // Both bounds on one pair of time columns; the tightest of each wins.
  for (const { bound: first } of bounds) {
    const same = bounds.filter(b => b.bound.left === first.left && b.bound.right === first.right)
    const lowers = same.flatMap(b => (b.bound.lower === undefined ? [] : [b.bound.lower]))
    const uppers = same.flatMap(b => (b.bound.upper === undefined ? [] : [b.bound.upper]))
    if (lowers.length === 0 || uppers.length === 0) continue
    const domain = timeColumn(j.left.plan, first.left)!
    if (timeColumn(j.right.plan, first.right) !== domain) {
      throw WeirError.plan('an interval join bounds an event-time attribute by a processing-time one', {
        span: j.join.on?.span ?? j.span,
        help: 'bound event time by event time (columns with a WATERMARK), or processing time by processing time (PROCTIME())',
      })
    }
    refuseUpdating(j, 'interval join')
    const used = new Set(same.map(b => b.conjunct))
    const rest = j.conjuncts.filter((_, i) => !used.has(i))
    const time: JoinTime = {
      kind: 'interval',
      domain,
      leftTime: first.left,
      rightTime: first.right,
      lower: Math.max(...lowers),
      upper: Math.min(...uppers),
    }
    const plan = markTimed(regularJoin({ ...j, conjuncts: rest }), time)
    return keepLeftRowtime(plan, time)
  }
  return undefined
}

/**
 * `a op b` with one side a time column of one input plus or minus a constant interval and the
 * other a time column of the other input (plus or minus a constant), as a bound on left - right.
 * Integer milliseconds: `<` is `<=` one less, `>` is `>=` one more.
 */
function timeBound(c: Rex, lw: number): Bound | undefined {
  if (c.kind !== 'Call' || c.args.length !== 2) return undefined
  let op = c.op
  if (op !== '<' && op !== '<=' && op !== '>' && op !== '>=') return undefined
  let a = shifted(c.args[0]!), b = shifted(c.args[1]!)
  if (a === undefined || b === undefined) return undefined
  if (a.col >= lw && b.col < lw) {
    ;[a, b] = [b, a]
    op = FLIP[op]!
  }
  if (!(a.col < lw && b.col >= lw)) return undefined
  // (l + da) op (r + db)  ⇔  l - r op db - da
  const k = b.delta - a.delta
  const left = a.col, right = b.col - lw
  switch (op) {
    case '>=':
      return { left, right, lower: k }
    case '>':
      return { left, right, lower: k + 1 }
    case '<=':
      return { left, right, upper: k }
    default:
      return { left, right, upper: k - 1 }
  }
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' }

/** A column plus or minus constant intervals: `ts`, `ts - INTERVAL '5' SECOND`, `ts + INTERVAL '1' MINUTE - INTERVAL '5' SECOND`. */
function shifted(r: Rex): { col: number; delta: number } | undefined {
  r = stripCast(r)
  if (r.kind === 'Input') return { col: r.index, delta: 0 }
  if (r.kind !== 'Call' || (r.op !== '+' && r.op !== '-') || r.args.length !== 2) return undefined
  const inner = shifted(r.args[0]!)
  const k = intervalMs(r.args[1]!)
  if (inner !== undefined && k !== undefined) return { col: inner.col, delta: inner.delta + (r.op === '+' ? k : -k) }
  // INTERVAL + ts
  const right = r.op === '+' ? shifted(r.args[1]!) : undefined
  const k0 = intervalMs(r.args[0]!)
  if (right !== undefined && k0 !== undefined) return { col: right.col, delta: right.delta + k0 }
  return undefined
}

function intervalMs(r: Rex): number | undefined {
  r = stripCast(r)
  // A year-month interval is no fixed number of milliseconds: no interval-join bound (the condition stays a filter).
  return r.kind === 'Literal' && r.type.kind === 'INTERVAL' && r.type.yearMonth !== true && typeof r.value === 'number' ? r.value : undefined
}

/** Casts between timestamp types (precision, LTZ) keep the instant. */
function stripCast(r: Rex): Rex {
  while (r.kind === 'Call' && r.op === 'CAST' && r.args.length === 1 && isTime(r.type) && isTime(r.args[0]!.type)) r = r.args[0]!
  return r
}

function isTime(t: Rex['type']): boolean {
  return t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ'
}

// ------------------------------------------------------------------------------ shared

/** Both inputs must be append-only: rows leave state by time, so a retraction could not find its row. */
function refuseUpdating(j: JoinInputs, what: string): void {
  for (const [name, rel] of [['left', j.left], ['right', j.right]] as const) {
    const c = changelogOf(rel.plan)
    if (c.mode !== 'updating') continue
    const origin = c.origin ?? rel.plan
    throw WeirError.plan(`this ${what} needs append-only inputs, but its ${name} input produces updates from ${describe(origin)}`, {
      span: origin.span,
      help: `an ${what} keeps rows only while time allows a match, so it cannot take retractions: join the rows before they are aggregated, `
        + 'use a window aggregate (insert-only) instead of a GROUP BY, or write a regular join (an equality condition without the time bounds)',
    })
  }
}

/** The regular join plan (a Join, or a Project dropping computed key columns over one) with `time` set. */
function markTimed(plan: LogicalPlan, time: JoinTime): LogicalPlan {
  if (plan.kind === 'Join') return { ...plan, time }
  if (plan.kind === 'Project' && plan.input.kind === 'Join') {
    const join = markTimed(plan.input, time)
    return { ...plan, input: join }
  }
  throw new Error(`unexpected regular join plan ${plan.kind}`)
}

/** An event-time interval join keeps the left input's rowtime as the time attribute of its output (as Flink does). */
function keepLeftRowtime(plan: LogicalPlan, time: JoinTime & { kind: 'interval' }): LogicalPlan {
  if (time.domain !== 'event') return plan
  const join = plan.kind === 'Join' ? plan : (plan as LogicalPlan & { kind: 'Project' }).input as LogicalPlan & { kind: 'Join' }
  const type = join.left.fields[time.leftTime]!.type
  if (timeAttrOf(type) !== 'rowtime') return plan
  const withAttr = (fields: readonly Field[], i: number): Field[] => fields.map((f, c) => (c === i ? { ...f, type: withNullable(type, f.type.nullable) } : f))
  const fields = withAttr(join.fields, time.leftTime)
  const newJoin: LogicalPlan = { ...join, fields }
  if (plan.kind === 'Join') return newJoin
  const p = plan as LogicalPlan & { kind: 'Project' }
  return {
    ...p,
    input: newJoin,
    exprs: p.exprs.map((e, i) => (i === time.leftTime && e.kind === 'Input' ? inputRef(e.index, fields[e.index]!.type) : e)),
    fields: withAttr(p.fields, time.leftTime),
  }
}
