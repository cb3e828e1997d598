// Rank rules: a filter on the result of ROW_NUMBER/RANK/DENSE_RANK (`rn = 1`, `rn <= N`, `rn < N`,
// `rn BETWEEN a AND b`) turns the Over node under it into a Deduplicate (ROW_NUMBER by a time
// attribute, rank 1, insert-only input) or a Rank (Top-N; per window when partitioned by a window's
// start and end). A Project that does not read the rank drops it from the Rank's output.
import { WeirError } from '../../common/errors.js'
import { T } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { conjunctsOf, inputRef, inputsUsed, literal } from '../../core/rex.js'
import { evalConstant, resolveCall } from '../../expr/index.js'
import { changelogOf } from '../changelog.js'
import type { LogicalPlan, Over, Rank } from '../logical/nodes.js'
import { isRankFn } from '../logical/over.js'
import { windowColumnsOf } from './window-columns.js'

export function rankFromFilter(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Filter' || plan.input.kind !== 'Over') return undefined
  const over = plan.input
  const call = over.calls[0]!
  if (over.calls.length !== 1 || !isRankFn(call.fn)) return undefined
  const rankCol = over.fields.length - 1
  let start = 1, end = Infinity, bounded = false
  const rest: Rex[] = []
  for (const c of conjunctsOf(plan.condition)) {
    const b = rankBound(c, rankCol)
    if (b === undefined) {
      rest.push(c)
      continue
    }
    bounded = true
    start = Math.max(start, b.low)
    end = Math.min(end, b.high)
  }
  if (!bounded) return undefined
  if (end === Infinity) {
    throw WeirError.unsupported(`a Top-N needs an upper bound on ${call.fn}()`, {
      span: plan.span,
      help: `bound the rank from above, e.g. WHERE ${over.fields[rankCol]!.name} <= 10: without a bound every row of a partition is kept and re-emitted`,
    })
  }
  const node = rankNode(over, start, end)
  const above: LogicalPlan = rest.length === 0 ?
    node :
    { kind: 'Filter', input: node, condition: rest.reduce((a, b) => resolveCall('AND', [a, b])), fields: node.fields, span: plan.span }
  return above
}

function rankNode(over: Over, start: number, end: number): LogicalPlan {
  const call = over.calls[0]!
  const input = over.input
  const window = windowColumnsOf(input)
  const windowed = window !== undefined && over.partitionKeys.includes(window.start) && over.partitionKeys.includes(window.end)
  const first = over.orderKeys[0]!
  const timeOrdered = over.orderKeys.length === 1 && over.orderTime !== undefined
  if (!windowed && call.fn === 'ROW_NUMBER' && start === 1 && end === 1 && timeOrdered && changelogOf(input).mode === 'insert-only') {
    const dedup: LogicalPlan = {
      kind: 'Deduplicate',
      input,
      keys: over.partitionKeys,
      timeIndex: first.index,
      timeDomain: over.orderTime!,
      keepLast: first.descending,
      ttlMs: over.ttlMs,
      ttlSource: over.ttlSource,
      fields: input.fields,
      span: over.span,
    }
    // The row number of a kept row is 1; a projection that does not read it drops it again.
    const exprs = [...input.fields.map((f, i) => inputRef(i, f.type)), literal(1, T.bigint(false))]
    return { kind: 'Project', input: dedup, exprs, fields: over.fields, span: over.span }
  }
  const rank: Rank = {
    kind: 'Rank',
    input,
    fn: call.fn as Rank['fn'],
    partitionKeys: over.partitionKeys,
    orderKeys: over.orderKeys,
    start,
    end,
    outputRank: true,
    ...(windowed ? { window: { endIndex: window.end, timeDomain: window.timeDomain } } : {}),
    ttlMs: over.ttlMs,
    ttlSource: over.ttlSource,
    fields: over.fields,
    span: over.span,
  }
  return rank
}

/** Project(Rank) or Project(Filter(Rank)) where nothing reads the rank: the Rank stops computing it. */
export function pruneRankColumn(plan: LogicalPlan): LogicalPlan | undefined {
  if (plan.kind !== 'Project') return undefined
  const filter = plan.input.kind === 'Filter' ? plan.input : undefined
  const rank = filter?.input ?? plan.input
  if (rank.kind !== 'Rank' || !rank.outputRank) return undefined
  const col = rank.fields.length - 1
  const used = new Set<number>()
  for (const e of plan.exprs) inputsUsed(e, used)
  if (filter) inputsUsed(filter.condition, used)
  if (used.has(col)) return undefined
  const narrowed: Rank = { ...rank, outputRank: false, fields: rank.fields.slice(0, col) }
  return { ...plan, input: filter ? { ...filter, input: narrowed, fields: narrowed.fields } : narrowed }
}

const FLIP: Readonly<Record<string, string>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' }

/** The rank range a comparison of the rank column with a constant allows, or undefined when it is not one. */
function rankBound(c: Rex, rankCol: number): { low: number; high: number } | undefined {
  if (c.kind !== 'Call' || c.args.length !== 2 || FLIP[c.op] === undefined) return undefined
  let [l, r] = c.args as [Rex, Rex]
  let op = c.op
  if (!isRankRef(l, rankCol)) {
    ;[l, r] = [r, l]
    op = FLIP[op]!
  }
  if (!isRankRef(l, rankCol) || inputsUsed(r).size > 0) return undefined
  const v = Number(evalConstant(r))
  if (!Number.isFinite(v)) return undefined
  switch (op) {
    case '=':
      return { low: v, high: v }
    case '<':
      return { low: 1, high: Math.ceil(v) - 1 }
    case '<=':
      return { low: 1, high: Math.floor(v) }
    case '>':
      return { low: Math.floor(v) + 1, high: Infinity }
    default:
      return { low: Math.ceil(v), high: Infinity }
  }
}

function isRankRef(r: Rex, rankCol: number): boolean {
  if (r.kind === 'Input') return r.index === rankCol
  // An implicit CAST of the rank column for the comparison.
  return r.kind === 'Call' && r.op === 'CAST' && r.args.length === 1 && isRankRef(r.args[0]!, rankCol)
}
