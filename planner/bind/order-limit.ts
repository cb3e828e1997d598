// ORDER BY and LIMIT (FETCH FIRST n ROWS ONLY) on a query, as Flink allows them on streams and more:
//   - over a bounded input (files, generators with a row count, VALUES): sorted once the input ends,
//     cut to the limit, insert-only (a Sort);
//   - LIMIT without ORDER BY over an insert-only stream: its first n rows (a Limit);
//   - ORDER BY rowtime [ASC], … over a stream: each timestamp's rows when the watermark passes it;
//   - ORDER BY … LIMIT n over an unbounded stream: a global Top-N, its changelog updating as rows enter
//     and leave the top (a Rank over no partition key, as Flink plans it).
// Other ORDER BY without LIMIT over an unbounded stream is refused, naming the unbounded tables. The keys are
// the query's output columns, by name or position, expressions over them, or (order-source.ts) columns and
// expressions of the query's input, sorted as hidden select items and projected away after the sort.
import type * as ast from '../../grammar/ast.js'
import { WeirError } from '../../common/errors.js'
import { isIntegral, timeAttrOf } from '../../common/types.js'
import type { JobConfig } from '../../common/config/index.js'
import { inputRef, type Rex } from '../../core/rex.js'
import type { OrderKey } from '../../core/rank.js'
import { evalConstant } from '../../expr/index.js'
import { getConnector } from '../../connectors/registry.js'
import { connectorOptions } from '../catalog.js'
import { changelogOf } from '../changelog.js'
import { inputsOf, type LogicalPlan, type Scan } from '../logical/nodes.js'
import { bindExpr } from './expr-binder.js'
import { configuredTtl } from './hints.js'
import { Scope } from './scope.js'
import { orderSource } from './order-source.js'
import type { BoundRelation } from './join-binder.js'

export function bindOrderLimit(q: ast.OrderedQuery, bind: (query: ast.Query) => BoundRelation, config: JobConfig): BoundRelation {
  const { inner, output, hidden } = orderSource(q, bind)
  const base = inner.plan
  const visible = output.plan.fields
  const limit = q.limit === undefined ? null : limitOf(q.limit)
  // Keys that are expressions over output columns are computed into extra columns; these and the hidden
  // select items (order-source.ts) are dropped again after sorting.
  const extra: Rex[] = []
  const orderKeys: OrderKey[] = q.orderBy.map((item, i) => ({
    index: hidden[i] ?? keyColumn(item, base, visible.length, output.scope, extra),
    descending: item.descending,
    nullsFirst: item.nullsFirst ?? !item.descending,
  }))
  const input: LogicalPlan = extra.length === 0 ? base : {
    kind: 'Project',
    input: base,
    exprs: [...base.fields.map((f, i) => inputRef(i, f.type)), ...extra],
    fields: [...base.fields, ...extra.map((e, i) => ({ name: `$order_expr${i}`, type: e.type }))],
    span: q.span,
  }
  const ordered = orderedPlan(q, input, orderKeys, limit, config)
  if (ordered.fields.length === visible.length) return { plan: ordered, scope: output.scope }
  const plan: LogicalPlan = { kind: 'Project', input: ordered, exprs: base.fields.slice(0, visible.length).map((f, i) => inputRef(i, f.type)),
    fields: base.fields.slice(0, visible.length), span: q.span }
  return { plan, scope: output.scope }
}

function orderedPlan(q: ast.OrderedQuery, input: LogicalPlan, orderKeys: readonly OrderKey[], limit: number | null, config: JobConfig): LogicalPlan {
  const fields = input.fields
  const updating = changelogOf(input).mode === 'updating'
  const unbounded = unboundedScans(input)
  // The first rows of an insert-only input pass as they come, bounded or not.
  if (orderKeys.length === 0 && !updating) return { kind: 'Sort', input, orderKeys, limit, emit: 'first', fields, span: q.span }
  if (unbounded.length === 0) return { kind: 'Sort', input, orderKeys, limit, emit: 'end', fields, span: q.span }
  const tables = unbounded.map(s => `'${s.table.name}' (connector '${s.table.options['connector']}')`).join(', ')
  if (orderKeys.length === 0) {
    throw WeirError.unsupported('LIMIT without ORDER BY over an updating stream is not supported: which rows are first changes as rows are retracted', {
      span: q.limitSpan ?? q.span,
      help: `add ORDER BY to say which rows to keep (a Top-N), or bound the input: ${tables} never ends`,
    })
  }
  const first = orderKeys[0]!
  const time = timeAttrOf(fields[first.index]!.type)
  if (limit === null && time === 'rowtime' && !first.descending && !updating) {
    return { kind: 'Sort', input, orderKeys, limit, emit: 'time', fields, span: q.span }
  }
  if (limit === null && time !== undefined) {
    throw WeirError.unsupported(
      time === 'proctime'
        ? 'ORDER BY a processing-time attribute is not supported yet'
        : first.descending
        ? `ORDER BY ${fields[first.index]!.name} DESC over a stream is not supported: rows come in time order, not against it`
        : 'ORDER BY a time attribute over an updating stream is not supported',
      { span: q.orderBy[0]!.span, help: `sort a stream by its event time ascending (ORDER BY ${fields[first.index]!.name} ASC, …), or add LIMIT n` },
    )
  }
  if (limit === null) {
    throw WeirError.unsupported(`ORDER BY without LIMIT needs a bounded input, but ${tables} ${unbounded.length > 1 ? 'are' : 'is'} unbounded`, {
      span: q.orderBy[0]!.span,
      help: 'add LIMIT n to keep the first n rows as the stream goes (a Top-N, updated as rows enter and leave it), ' +
        'or rank per key: ROW_NUMBER() OVER (PARTITION BY k ORDER BY …) <= n',
    })
  }
  const ttl = configuredTtl(config)
  return {
    kind: 'Rank',
    input,
    fn: 'ROW_NUMBER',
    partitionKeys: [],
    orderKeys,
    start: 1,
    end: limit,
    outputRank: false,
    ttlMs: ttl.ms,
    ttlSource: ttl.source,
    fields,
    span: q.span,
  }
}

/** `LIMIT n`: a non-negative integer constant. */
function limitOf(e: ast.Expr): number {
  const rex = bindExpr(e, { scope: Scope.of([]), clause: 'LIMIT' })
  const value = isIntegral(rex.type) ? evalConstant(rex) : undefined
  const n = typeof value === 'bigint' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw WeirError.plan('LIMIT takes a whole number of rows, 0 or more', { span: e.span, help: 'e.g. LIMIT 10' })
  }
  return n
}

/** The column an ORDER BY item sorts by: an output column by name or position, or a computed one appended to `extra`. */
function keyColumn(item: ast.OrderItem, base: LogicalPlan, width: number, scope: Scope, extra: Rex[]): number {
  const e = item.expr
  if (e.kind === 'Literal' && e.type === 'number' && /^\d+$/.test(e.text)) {
    const n = Number(e.text)
    if (n < 1 || n > width) {
      throw WeirError.plan(`ORDER BY ${e.text}: the query has ${width} column${width === 1 ? '' : 's'}`, { span: e.span,
        help: `order by a position from 1 to ${width}, or by a column name` })
    }
    return n - 1
  }
  let rex: Rex
  try {
    rex = bindExpr(e, { scope, clause: 'ORDER BY' })
  } catch (err) {
    if (!(err instanceof WeirError) || err.kind !== 'plan') throw err
    throw WeirError.plan(err.message, {
      span: err.span ?? e.span,
      help: `ORDER BY sorts the query's output: ${base.fields.map(f => f.name).join(', ')}; add what it needs to the SELECT list`,
    })
  }
  if (rex.kind === 'Input') return rex.index
  extra.push(rex)
  return base.fields.length + extra.length - 1
}

/** The tables `plan` reads whose connector does not end by itself. */
export function unboundedScans(plan: LogicalPlan): Scan[] {
  const out: Scan[] = []
  const visit = (p: LogicalPlan): void => {
    if (p.kind === 'Scan') {
      const source = getConnector(p.table.options['connector']!).source
      if (source !== undefined && !source.bounded(connectorOptions(p.table.options)) && !out.some(s => s.table === p.table)) out.push(p)
    }
    inputsOf(p).forEach(visit)
  }
  visit(plan)
  return out
}
