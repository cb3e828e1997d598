// Queries → logical plans: FROM (tables, views, subqueries, window TVFs), WHERE, GROUP BY with
// aggregates, window aggregates, HAVING, SELECT, DISTINCT, UNION, WITH and VALUES.
import { bindOrderLimit } from './order-limit.js'
import type * as ast from '../../grammar/ast.js'
import type { Span } from '../../common/span.js'
import { type DataType, type Field, T, timeAttrOf, withoutTimeAttr, sameType, formatType, withNullable } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { assertNever } from '../../common/assert.js'
import { formatDuration } from '../../common/durations.js'
import { type Rex, inputRef, literal, inputsUsed, remapInputs } from '../../core/rex.js'
import { castTo, commonType, evalConstant } from '../../expr/index.js'
import { aggregateResultType } from '../../expr/aggregate-types.js'
import type { AggCall } from '../../core/aggregates.js'
import type { TimeDomain, WindowSpec } from '../../core/windows.js'
import type { Catalog, CatalogTable } from '../catalog.js'
import type { LogicalPlan, Scan, WindowTvf } from '../logical/nodes.js'
import { Scope } from './scope.js'
import { bindExpr, containsAggregate, isAggregateCall, visitExpr, rexKey, type AggregateMapping } from './expr-binder.js'
import { PreProjection } from './pre-projection.js'
import { bindGroupingSets, groupingCallsOf } from './grouping-sets.js'
import { bindWindowGroupingSets, refuseOrderedInSession } from './window-grouping-sets.js'
import { bindAttachedWindowAggregate } from './attached-window.js'
import { windowAggregateFields } from '../window-columns.js'
import { withSessionFunctions } from '../functions.js'
import { bindAggArguments } from './aggregate-args.js'
import type { WarningSink } from '../../common/warnings.js'
import { checkHints, configuredTtl, stateTtlOption } from './hints.js'
import { bindOver, windowCallsOf } from './over-binder.js'
import { checkReadable, tableFields } from './table-fields.js'
import { bindJoinedFrom, type BoundRelation, type JoinContext } from './join-binder.js'
import { misplacedAsOf } from './temporal-join.js'
import { standaloneUnnest, unnestBelowWindowTvf } from './unnest.js'
import { bindProcessTable } from './process-table.js'
import { lostTimeAttribute, regularKeys } from './window-time.js'
import { joinWhereSubqueries, selectScalars, setOperation, splitWhere, subqueryHost, withScalars } from './subquery-binder.js'
import type { JobConfig } from '../../common/config/index.js'

export type { BoundRelation } from './join-binder.js'

interface Cte {
  readonly query: ast.Query
  readonly columns?: readonly ast.Ident[]
  /** The CTE frames visible inside this CTE's body: outer ones and the earlier CTEs of its WITH. */
  readonly visible: Map<string, Cte>[]
}

export class QueryBinder {
  private readonly ctes: Map<string, Cte>[] = []
  /** Warnings already given (a WITH query used twice is bound twice). */
  private readonly warned = new Set<string>()
  /** While a view's query is bound: its warnings were given when it was created. */
  private inView = 0

  /** `warn` receives what the query asks for that Weir ignores (unknown hints…). */
  constructor(
    private readonly catalog: Catalog,
    private readonly config: JobConfig,
    private readonly warnings: WarningSink = () => undefined,
  ) {}

  private readonly warn: WarningSink = w => {
    const key = `${w.span?.start.offset}:${w.message}`
    if (this.inView > 0 || this.warned.has(key)) return
    this.warned.add(key)
    this.warnings(w)
  }

  /** The session's own functions (CREATE FUNCTION) are visible to the expressions bound inside (withSessionFunctions). */
  bindQuery(q: ast.Query): BoundRelation {
    switch (q.kind) {
      case 'Select':
        return withSessionFunctions(this.catalog.functions, this.config.udfOnError === 'skip', this.catalog.currentDatabase, () => this.bindSelect(q))
      case 'SetOperation':
        return this.bindSetOperation(q)
      case 'WithQuery': {
        const frame = new Map<string, Cte>()
        const outer = [...this.ctes]
        this.ctes.push(frame)
        try {
          for (const cte of q.ctes) {
            const key = cte.name.value.toLowerCase()
            if (frame.has(key)) throw WeirError.plan(`WITH defines '${cte.name.value}' twice`, { span: cte.name.span })
            // A CTE sees the CTEs before it, never itself or later ones (no recursion).
            frame.set(key, { query: cte.query, columns: cte.columns, visible: [...outer, new Map(frame)] })
          }
          return this.bindQuery(q.body)
        } finally {
          this.ctes.pop()
        }
      }
      case 'OrderedQuery':
        return withSessionFunctions(this.catalog.functions, this.config.udfOnError === 'skip', this.catalog.currentDatabase,
          () => bindOrderLimit(q, query => this.bindQuery(query), this.config))
      case 'ValuesQuery':
        return withSessionFunctions(this.catalog.functions, this.config.udfOnError === 'skip', this.catalog.currentDatabase, () => this.bindValues(q))
      default:
        return assertNever(q)
    }
  }

  // ------------------------------------------------------------------ FROM

  private bindFrom(from: ast.FromItem): BoundRelation {
    switch (from.kind) {
      case 'TableRef':
        if (from.asOf !== undefined) throw misplacedAsOf(from.asOf.span)
        return this.bindTableRef(from)
      case 'SubqueryRef': {
        const inner = this.bindQuery(from.query)
        return { plan: inner.plan, scope: Scope.of(renameFields(inner.plan.fields, from.columns, from.span), from.alias?.value) }
      }
      case 'WindowTvf':
        return this.bindWindowTvf(from)
      case 'Join':
        return bindJoinedFrom(from, undefined, this.joinContext([]))
      case 'Unnest':
        return standaloneUnnest(from)
      case 'TableFunctionCall':
        return bindProcessTable(from, this.catalog.functions, item => this.bindFrom(item))
      default:
        return assertNever(from)
    }
  }

  private joinContext(hints: readonly ast.Hint[]): JoinContext {
    return { bindLeaf: item => this.bindFrom(item), hints, config: this.config }
  }

  private lookupCte(name: string): Cte | undefined {
    for (let i = this.ctes.length - 1; i >= 0; i--) {
      const found = this.ctes[i]!.get(name.toLowerCase())
      if (found) return found
    }
    return undefined
  }

  private bindTableRef(ref: ast.TableRef): BoundRelation {
    const nameParts = ref.name.parts
    const name = nameParts[nameParts.length - 1]!.value
    const alias = ref.alias?.value ?? name
    const cte = nameParts.length === 1 ? this.lookupCte(name) : undefined
    const resolved = cte ? undefined : this.catalog.resolve(ref.name, ref.name.span)
    checkHints(ref.hints, resolved?.kind === 'table' ? 'table' : 'view', this.warn)
    if (cte) {
      // A CTE is bound where it is used, with the CTEs that were visible where it was defined.
      const saved = this.ctes.splice(0, this.ctes.length, ...cte.visible)
      let inner: BoundRelation
      try {
        inner = this.bindQuery(cte.query)
      } finally {
        this.ctes.splice(0, this.ctes.length, ...saved)
      }
      return { plan: inner.plan, scope: Scope.of(renameFields(inner.plan.fields, cte.columns, ref.span), alias) }
    }
    const obj = resolved!
    if (obj.kind === 'view') {
      // A view sees no CTEs of the query that uses it.
      const saved = this.ctes.splice(0)
      let inner: BoundRelation
      this.inView++
      try {
        // The names in its query are those of the database it was created in.
        inner = this.catalog.within(obj, () => this.bindQuery(obj.query))
      } catch (e) {
        throw e instanceof WeirError ? new WeirError(e.kind, `in view '${obj.name}': ${e.message}`, { span: ref.span, help: e.help }) : e
      } finally {
        this.inView--
        this.ctes.splice(0, this.ctes.length, ...saved)
      }
      const columns = obj.columns?.map(c => ({ value: c, quoted: false, span: ref.span }))
      return { plan: inner.plan, scope: Scope.of(renameFields(inner.plan.fields, columns, ref.span), alias) }
    }
    let table = obj
    const optionsHint = ref.hints.find(h => h.name.value.toUpperCase() === 'OPTIONS')
    if (optionsHint) table = { ...obj, options: { ...obj.options, ...Object.fromEntries(optionsHint.options) } }
    checkReadable(table, ref.span, optionsHint?.span)
    const { fields } = tableFields(obj)
    const scan: Scan = {
      kind: 'Scan',
      table,
      alias,
      columns: fields.map((_, i) => i),
      fields,
      span: ref.span,
    }
    return { plan: scan, scope: Scope.of(fields, alias) }
  }

  private bindWindowTvf(tvf: ast.WindowTvf): BoundRelation {
    const input = this.bindFrom(tvf.input)
    const timeIndex = input.scope.resolve({ parts: [tvf.timeCol], span: tvf.timeCol.span })
    const timeField = input.plan.fields[timeIndex]!
    const attr = timeAttrOf(input.scope.fields[timeIndex]!.type)
    if (!attr) {
      throw lostTimeAttribute(input.plan, timeIndex, tvf.timeCol, tvf.fn) ??
        WeirError.plan(`the DESCRIPTOR column '${tvf.timeCol.value}' of ${tvf.fn} must be a time attribute, but it is ${formatType(timeField.type)}`, {
          span: tvf.timeCol.span,
          help:
            `declare 'WATERMARK FOR ${tvf.timeCol.value} AS ${tvf.timeCol.value} - INTERVAL '5' SECOND' in the table, or use a column defined AS PROCTIME()`,
        })
    }
    const window = this.windowSpec(tvf)
    const partitionKeys = tvf.partitionBy.map(p => {
      const rex = bindExpr(p, { scope: input.scope, clause: 'PARTITION BY' })
      if (rex.kind !== 'Input') throw WeirError.unsupported('PARTITION BY takes column names', { span: p.span })
      return rex.index
    })
    if (tvf.fn !== 'SESSION' && partitionKeys.length > 0) {
      throw WeirError.plan(`PARTITION BY is only allowed in SESSION windows, not ${tvf.fn}`, { span: tvf.partitionBy[0]!.span })
    }
    const timeDomain: TimeDomain = attr === 'rowtime' ? 'event' : 'processing'
    const wtType: DataType = timeField.type.kind === 'TIMESTAMP_LTZ'
      ? T.timestampLtz(3, false, attr)
      : T.timestamp(3, false, attr)
    const fields: Field[] = [
      ...input.plan.fields.map((f, i) => (i === timeIndex ? { name: f.name, type: withoutTimeAttr(f.type) } : f)),
      { name: 'window_start', type: T.timestamp(3, false) },
      { name: 'window_end', type: T.timestamp(3, false) },
      { name: 'window_time', type: wtType },
    ]
    const node: WindowTvf = {
      kind: 'WindowTvf',
      input: input.plan,
      window,
      timeIndex,
      timeDomain,
      timeColumn: timeField.name,
      partitionKeys,
      fields,
      span: tvf.span,
    }
    const qualifier = tvf.alias?.value ??
      (tvf.input.kind === 'TableRef' ? tvf.input.alias?.value ?? tvf.input.name.parts.at(-1)!.value : tvf.input.alias?.value)
    return { plan: node, scope: Scope.of(fields, qualifier) }
  }

  private windowSpec(tvf: ast.WindowTvf): WindowSpec {
    const names: Record<ast.WindowTvf['fn'], string[]> = {
      TUMBLE: ['SIZE', 'OFFSET'],
      HOP: ['SLIDE', 'SIZE', 'OFFSET'],
      CUMULATE: ['STEP', 'SIZE', 'OFFSET'],
      SESSION: ['GAP'],
    }
    const expected = names[tvf.fn]
    const values = new Map<string, { ms: number; span: Span }>()
    tvf.args.forEach((arg, i) => {
      const key = arg.name ? arg.name.value.toUpperCase() : expected[i]
      if (key === undefined || !expected.includes(key)) {
        throw WeirError.plan(arg.name ? `${tvf.fn} has no parameter '${arg.name.value}'` : `too many arguments to ${tvf.fn}`, {
          span: arg.span,
          help: `${tvf.fn}(TABLE t, DESCRIPTOR(time_col), ${expected.join(', ')}${tvf.fn === 'SESSION' ? '' : ' (OFFSET is optional)'})`,
        })
      }
      if (values.has(key)) throw WeirError.plan(`${key} is given twice`, { span: arg.span })
      const rex = bindExpr(arg.value, { scope: new Scope([]), clause: `${tvf.fn} arguments` })
      if (rex.type.kind !== 'INTERVAL' || rex.type.yearMonth === true) {
        throw WeirError.plan(`${tvf.fn} ${key} must be a day-time interval, got ${formatType(rex.type)}`, { span: arg.value.span,
          help: `write e.g. INTERVAL '10' SECOND (a window's length is a fixed time: INTERVAL '30' DAY, not months)` })
      }
      const ms = evalConstant(rex)
      if (typeof ms !== 'number') throw WeirError.plan(`${tvf.fn} ${key} must be a constant interval`, { span: arg.value.span })
      values.set(key, { ms, span: arg.value.span })
    })
    for (const key of expected) {
      if (key !== 'OFFSET' && !values.has(key)) {
        throw WeirError.plan(`${tvf.fn} needs ${key}`, { span: tvf.span, help: `${tvf.fn}(TABLE t, DESCRIPTOR(time_col), ${
          expected.filter(k => k !== 'OFFSET').join(', ')
        })` })
      }
    }
    const positive = (key: string): number => {
      const v = values.get(key)!
      if (v.ms <= 0) throw WeirError.plan(`${tvf.fn} ${key} must be positive`, { span: v.span })
      return v.ms
    }
    const offset = values.get('OFFSET')?.ms ?? 0
    switch (tvf.fn) {
      case 'TUMBLE':
        return { kind: 'TUMBLE', size: positive('SIZE'), offset }
      case 'HOP': {
        const slide = positive('SLIDE'), size = positive('SIZE')
        if (size % slide !== 0) {
          throw WeirError.plan(`HOP size (${formatDuration(size)}) must be a whole multiple of the slide (${formatDuration(slide)})`, {
            span: values.get('SIZE')!.span,
          })
        }
        return { kind: 'HOP', slide, size, offset }
      }
      case 'CUMULATE': {
        const step = positive('STEP'), maxSize = positive('SIZE')
        if (maxSize % step !== 0) {
          throw WeirError.plan(`CUMULATE max size (${formatDuration(maxSize)}) must be a whole multiple of the step (${formatDuration(step)})`, {
            span: values.get('SIZE')!.span,
          })
        }
        return { kind: 'CUMULATE', step, maxSize, offset }
      }
      case 'SESSION':
        return { kind: 'SESSION', gap: positive('GAP') }
      default:
        return assertNever(tvf.fn)
    }
  }

  // ------------------------------------------------------------------ SELECT

  private bindSelect(sel: ast.Select): BoundRelation {
    checkHints(sel.hints, 'select', this.warn)
    // A join takes the WHERE apart: its conditions between the inputs join them (comma joins); its subqueries join after the rest.
    const joined = sel.from?.kind === 'Join', where = splitWhere(sel.where)
    let rel: BoundRelation = joined
      ? bindJoinedFrom(sel.from as ast.Join, where.rest, this.joinContext(sel.hints))
      : sel.from
      ? this.bindFrom(sel.from)
      : { plan: { kind: 'Values', rows: [[]], fields: [], span: sel.span }, scope: new Scope([]) }

    const subqueries = subqueryHost(this.config, q => this.bindQuery(q), item => this.bindFrom(item))
    rel = joinWhereSubqueries(rel, where, !joined, subqueries, (e, scope) => this.bindCondition(e, scope, 'WHERE'))

    const aggCalls: ast.FunctionCall[] = []
    const collect = (e: ast.Expr): void =>
      visitExpr(e, n => {
        if (isAggregateCall(n)) aggCalls.push(n)
      }, false)
    for (const item of sel.items) if (item.kind === 'ExprItem') collect(item.expr)
    if (sel.having) collect(sel.having)
    const isAggregate = sel.groupBy !== undefined || aggCalls.length > 0 || sel.having !== undefined

    let out: BoundRelation
    const windowCalls = isAggregate ? [] : windowCallsOf(sel.items)
    if (isAggregate) {
      out = this.bindAggregateSelect(sel, rel, aggCalls)
    } else if (windowCalls.length > 0) {
      const over = bindOver(sel, rel.plan, rel.scope, windowCalls, this.ttlFor(sel, rel))
      out = this.bindProjection(sel.items, rel.scope, over.plan, undefined, sel.span, over.mapping)
    } else {
      rel = withScalars(rel, selectScalars(sel.items), subqueries)
      out = this.bindProjection(sel.items, rel.scope, rel.plan, undefined, sel.span)
    }
    if (sel.distinct) {
      const fields = out.plan.fields.map(f => ({ name: f.name, type: withoutTimeAttr(f.type) }))
      const ttl = this.ttlFor(sel, rel)
      out = {
        plan: {
          kind: 'Aggregate',
          input: out.plan,
          keys: fields.map((_, i) => i),
          aggs: [],
          distinct: true,
          ttlMs: ttl.ms,
          ttlSource: ttl.source,
          fields,
          span: sel.span,
        },
        scope: Scope.of(fields),
      }
    }
    return out
  }

  private bindCondition(e: ast.Expr, scope: Scope, clause: string, agg?: AggregateMapping): Rex {
    const rex = bindExpr(e, { scope, clause, agg })
    if (rex.type.kind !== 'BOOLEAN' && rex.type.kind !== 'NULL') {
      throw WeirError.plan(`${clause} condition must be BOOLEAN, but it is ${formatType(rex.type)}`, { span: e.span })
    }
    return rex
  }

  /** SELECT items over `scope` → a Project over `input`. */
  private bindProjection(items: readonly ast.SelectItem[], scope: Scope, input: LogicalPlan, agg: AggregateMapping | undefined, span: Span,
    over?: ReadonlyMap<ast.FunctionCall, Rex>): BoundRelation
  {
    const exprs: Rex[] = []
    const fields: Field[] = []
    items.forEach((item, position) => {
      if (item.kind === 'StarItem') {
        if (agg) throw WeirError.plan('SELECT * is not allowed in an aggregate query', { span: item.span, help: 'list the GROUP BY columns and aggregates' })
        const q = item.qualifier?.value.toLowerCase()
        let any = false
        scope.fields.forEach((f, i) => {
          if ((q !== undefined && f.qualifier !== q) || f.hidden) return
          any = true
          exprs.push(inputRef(i, f.type))
          // Both inputs of a join may name a column alike: the second becomes name0 (as in Flink).
          fields.push({ name: uniqueName(f.name, fields), type: f.type })
        })
        if (!any) throw WeirError.plan(`table '${item.qualifier!.value}' not found in FROM`, { span: item.span })
        return
      }
      const rex = bindExpr(item.expr, { scope, clause: 'SELECT', agg, over })
      exprs.push(rex)
      const name = item.alias?.value ?? (item.expr.kind === 'ColumnRef' ? item.expr.name.parts.at(-1)!.value : `EXPR$${position}`)
      // A column keeps its time attribute; so does PROCTIME() itself (`SELECT *, PROCTIME() AS pt FROM t`, as in Flink).
      const keeps = rex.kind === 'Input' || (rex.kind === 'Call' && rex.op === 'PROCTIME')
      fields.push({ name, type: keeps ? rex.type : withoutTimeAttr(rex.type) })
    })
    const plan: LogicalPlan = { kind: 'Project', input, exprs, fields, span }
    return { plan, scope: Scope.of(fields) }
  }

  private bindAggregateSelect(sel: ast.Select, rel: BoundRelation, aggCalls: ast.FunctionCall[]): BoundRelation {
    const scope = rel.scope
    const groupRex = (sel.groupBy ?? []).map(g => {
      if (isAggregateCall(g) || containsAggregate(g)) throw WeirError.plan('aggregate functions are not allowed in GROUP BY', { span: g.span })
      return bindExpr(g, { scope, clause: 'GROUP BY' })
    })

    // A window aggregate: GROUP BY window_start, window_end over a window TVF (possibly under WHERE filters).
    let tvf: WindowTvf | undefined
    const filtersAbove: Rex[] = []
    for (let p: LogicalPlan = rel.plan;; p = p.input) {
      if (p.kind === 'WindowTvf') {
        tvf = p
        break
      }
      if (p.kind !== 'Filter') break
      filtersAbove.push(p.condition)
    }
    // Over `TABLE(TUMBLE(…)) CROSS JOIN UNNEST(…)`, grouped by both window columns: the UNNEST goes below the TVF.
    const moved = tvf === undefined ? unnestBelowWindowTvf(rel) : undefined
    if (moved !== undefined && sel.groupingSets === undefined && groupingCallsOf(sel).length === 0) {
      const regrouped = groupRex.map(r => remapInputs(r, moved.remap))
      const n = moved.tvf.input.fields.length
      const grouped = (i: number): boolean => regrouped.some(r => r.kind === 'Input' && r.index === i)
      if (grouped(n) && grouped(n + 1)) return this.bindWindowAggregate(sel, moved.rel, moved.tvf, moved.filters, regrouped, aggCalls)
    }
    let windowKeys: { start: number; end: number } | undefined
    if (tvf) {
      const n = tvf.input.fields.length
      const isCol = (r: Rex, i: number): boolean => r.kind === 'Input' && r.index === i
      const hasStart = groupRex.some(r => isCol(r, n)), hasEnd = groupRex.some(r => isCol(r, n + 1))
      if (hasStart !== hasEnd) {
        throw WeirError.plan('a window aggregate must GROUP BY both window_start and window_end', {
          span: sel.groupBy![0]!.span,
          help: `add ${hasStart ? 'window_end' : 'window_start'} to GROUP BY`,
        })
      }
      if (hasStart) windowKeys = { start: n, end: n + 1 }
    }

    const groupingCalls = groupingCallsOf(sel)
    if (sel.groupingSets !== undefined || groupingCalls.length > 0) {
      const bindAggCall = (call: ast.FunctionCall, pre: PreProjection, position: number): AggCall => this.bindAggCall(call, scope, pre, position, sel)
      const { aggregate, mapping } = tvf && windowKeys
        ? bindWindowGroupingSets({ sel, tvf, filtersAbove, scope, groupRex, aggCalls, groupingCalls, bindAggCall })
        : bindGroupingSets({ sel, input: rel.plan, scope, groupRex, aggCalls, groupingCalls, bindAggCall, ttl: this.ttlFor(sel, rel) })
      return this.finishAggregate(sel, aggregate, mapping)
    }
    if (tvf && windowKeys) return this.bindWindowAggregate(sel, rel, tvf, filtersAbove, groupRex, aggCalls)
    const att = tvf ? undefined : bindAttachedWindowAggregate({ sel, rel, groupRex, aggCalls, bindAggCall: this.bindAggCall.bind(this) })
    if (att) return this.finishAggregate(sel, att.aggregate, att.mapping)

    // Pre-projection: [group keys…, aggregate arguments…, FILTER conditions…] over the input.
    const pre = new PreProjection()
    const keys = groupRex.map(r => pre.add(r))
    const aggs = aggCalls.map((call, i) => this.bindAggCall(call, scope, pre, i + keys.length, sel))
    const preFields = pre.fields(rel.plan.fields)
    const project: LogicalPlan = { kind: 'Project', input: rel.plan, exprs: pre.exprs, fields: preFields, span: sel.span }
    const outFields: Field[] = [
      ...keys.map((k, i) => ({ name: preFields[k]!.name, type: withoutTimeAttr(groupRex[i]!.type) })),
      ...aggs.map(a => ({ name: a.name, type: a.type })),
    ]
    const ttl = this.ttlFor(sel, rel)
    const aggregate: LogicalPlan = {
      kind: 'Aggregate',
      input: project,
      keys,
      aggs,
      distinct: false,
      ttlMs: ttl.ms,
      ttlSource: ttl.source,
      fields: outFields,
      span: sel.span,
    }
    const mapping: AggregateMapping = {
      inputScope: scope,
      groupOutput: new Map(groupRex.map((r, i) => [rexKey(r), i])),
      aggOutput: new Map(aggCalls.map((c, i) => [c, keys.length + i])),
      outputTypes: outFields.map(f => f.type),
    }
    return this.finishAggregate(sel, aggregate, mapping)
  }

  private bindWindowAggregate(sel: ast.Select, rel: BoundRelation, tvf: WindowTvf, filtersAbove: Rex[], groupRex: Rex[],
    aggCalls: ast.FunctionCall[]): BoundRelation
  {
    const n = tvf.input.fields.length
    const refsWindow = (r: Rex): boolean => [...inputsUsed(r)].some(i => i >= n)
    for (const f of filtersAbove) {
      if (refsWindow(f)) {
        throw WeirError.unsupported('a WHERE condition on window_start, window_end or window_time before a window aggregate is not supported', {
          span: sel.where?.span ?? sel.span,
          help: 'filter on the window columns in HAVING or in an outer query',
        })
      }
    }
    const scope = rel.scope
    const pre = new PreProjection()
    const timeCol = pre.add(inputRef(tvf.timeIndex, tvf.input.fields[tvf.timeIndex]!.type))
    const keyRex = regularKeys(groupRex, n, sel.groupBy, sel.span)
    // Session windows are per PARTITION BY key: those columns must be grouping keys.
    for (const p of tvf.partitionKeys) {
      if (!keyRex.some(r => r.kind === 'Input' && r.index === p)) {
        throw WeirError.plan(`SESSION is partitioned by '${tvf.input.fields[p]!.name}', so the window aggregate must GROUP BY it`, {
          span: sel.groupBy?.[0]?.span ?? sel.span,
          help: `add ${tvf.input.fields[p]!.name} to GROUP BY`,
        })
      }
    }
    const keys = keyRex.map(r => pre.add(r))
    const aggs = aggCalls.map((call, i) => this.bindAggCall(call, scope, pre, keys.length + i, sel))
    if (tvf.window.kind === 'SESSION') refuseOrderedInSession(aggs, aggCalls)
    for (const e of pre.exprs) {
      if (refsWindow(e)) throw WeirError.unsupported('aggregates over window_start, window_end or window_time are not supported', { span: sel.span })
    }
    let input: LogicalPlan = tvf.input
    for (const f of filtersAbove.reverse()) input = { kind: 'Filter', input, condition: f, fields: input.fields, span: sel.span }
    const preFields = pre.fields(tvf.input.fields)
    const project: LogicalPlan = { kind: 'Project', input, exprs: pre.exprs,
      fields: preFields.map((f, i) => i === timeCol ? { name: f.name, type: tvf.input.fields[tvf.timeIndex]!.type } : f), span: sel.span }
    const wt = tvf.fields[n + 2]!
    const outFields = windowAggregateFields(keys.map((k, i) => ({ name: preFields[k]!.name, type: withoutTimeAttr(keyRex[i]!.type) })), aggs, wt.type)
    const k = keys.length, a = aggs.length
    const aggregate: LogicalPlan = {
      kind: 'WindowAggregate',
      input: project,
      window: tvf.window,
      timeIndex: timeCol,
      timeDomain: tvf.timeDomain,
      keys,
      aggs,
      fields: outFields,
      span: sel.span,
    }
    const groupOutput = new Map<string, number>(keyRex.map((r, i) => [rexKey(r), i]))
    groupOutput.set(rexKey(inputRef(n, tvf.fields[n]!.type)), k + a)
    groupOutput.set(rexKey(inputRef(n + 1, tvf.fields[n + 1]!.type)), k + a + 1)
    // window_time is window_end - 1 ms: it may be selected (as the next window's time attribute) grouped by or not.
    groupOutput.set(rexKey(inputRef(n + 2, tvf.fields[n + 2]!.type)), k + a + 2)
    const mapping: AggregateMapping = {
      inputScope: scope,
      groupOutput,
      aggOutput: new Map(aggCalls.map((c, i) => [c, k + i])),
      outputTypes: outFields.map(f => f.type),
    }
    return this.finishAggregate(sel, aggregate, mapping)
  }

  private finishAggregate(sel: ast.Select, aggregate: LogicalPlan, mapping: AggregateMapping): BoundRelation {
    let plan = aggregate
    const aggScope = Scope.of(aggregate.fields)
    if (sel.having) {
      const condition = this.bindCondition(sel.having, aggScope, 'HAVING', mapping)
      plan = { kind: 'Filter', input: plan, condition, fields: plan.fields, span: sel.having.span }
    }
    return this.bindProjection(sel.items, aggScope, plan, mapping, sel.span)
  }

  /** An aggregate call: its argument and FILTER condition become pre-projection columns. */
  private bindAggCall(call: ast.FunctionCall, scope: Scope, pre: PreProjection, position: number, sel?: ast.Select): AggCall {
    for (const a of call.args) if (containsAggregate(a)) throw WeirError.plan('aggregate functions cannot be nested', { span: a.span })
    const { fn, arg, argType, separator, percentile, percentages, ignoreNulls, valueArg, user, args, userType } = bindAggArguments(call, scope, r => pre.add(r))
    let filter: number | null = null
    if (call.filter) {
      const cond = bindExpr(call.filter, { scope, clause: 'FILTER' })
      if (cond.type.kind !== 'BOOLEAN') throw WeirError.plan(`FILTER condition must be BOOLEAN, but it is ${formatType(cond.type)}`, { span: call.filter.span })
      filter = pre.add(cond)
    }
    const type = userType ?? aggregateResultType(fn, argType, call.span, ignoreNulls || (fn === 'ARRAY_AGG' && call.distinct))
    // An aggregate selected directly under an alias is named by it (for EXPLAIN and the output schema).
    const item = sel?.items.find(i => i.kind === 'ExprItem' && i.expr === call)
    const name = item?.kind === 'ExprItem' && item.alias ? item.alias.value : `EXPR$${position}`
    return { fn, arg, argType, distinct: call.distinct, filter, type, name, ...(separator !== undefined ? { separator } : {}),
      ...(ignoreNulls ? { ignoreNulls } : {}), ...(valueArg !== undefined ? { valueArg } : {}), ...(user !== undefined ? { user, args } : {}),
      ...(percentile !== undefined ? { percentile } : {}), ...(percentages !== undefined ? { percentages } : {}) }
  }

  /**
   * State TTL for a stateful operator of this SELECT: a STATE_TTL hint naming the input's alias
   * wins over 'table.exec.state.ttl' (Flink's precedence).
   */
  private ttlFor(sel: ast.Select, rel: BoundRelation): { ms: number; source: string } {
    const hint = sel.hints.find(h => h.name.value.toUpperCase() === 'STATE_TTL')
    if (hint) {
      const aliases = new Set(rel.scope.fields.map(f => f.qualifier).filter((q): q is string => q !== undefined))
      const first = hint.options[0]
      if (first !== undefined) {
        const { ms, source } = stateTtlOption(hint, first, aliases)
        return { ms, source }
      }
    }
    return configuredTtl(this.config)
  }

  // ------------------------------------------------------------------ set operations, VALUES

  private bindSetOperation(q: ast.SetOperation): BoundRelation {
    const left = this.bindQuery(q.left)
    const right = this.bindQuery(q.right)
    const lf = left.plan.fields, rf = right.plan.fields
    if (lf.length !== rf.length) {
      throw WeirError.plan(`${q.op} inputs have different column counts: ${lf.length} and ${rf.length}`, { span: q.span })
    }
    const types = lf.map((f, i) => {
      const t = commonType([withoutTimeAttr(f.type), withoutTimeAttr(rf[i]!.type)])
      if (!t) {
        throw WeirError.plan(`${q.op} column ${i + 1} ('${f.name}'): incompatible types ${formatType(f.type)}, ${formatType(rf[i]!.type)}`, { span: q.span,
          help: 'CAST one side' })
      }
      return t
    })
    const conform = (plan: LogicalPlan): LogicalPlan => {
      if (plan.fields.every((f, i) => sameType(f.type, types[i]!) && f.type.nullable === types[i]!.nullable)) return plan
      const exprs = plan.fields.map((f, i) => (sameType(f.type, types[i]!) ? inputRef(i, f.type) : castTo(inputRef(i, f.type), types[i]!, q.span)))
      return { kind: 'Project', input: plan, exprs, fields: plan.fields.map((f, i) => ({ name: f.name, type: exprs[i]!.type })), span: q.span }
    }
    const fields = lf.map((f, i) => ({ name: f.name, type: types[i]! }))
    if (q.op !== 'UNION') return setOperation(q, conform(left.plan), conform(right.plan), fields, this.config)
    if (q.all) {
      // A column that is the same time attribute in both inputs stays one (as in Flink): a window or an
      // interval join over the union uses it, with the lower of the inputs' watermarks.
      const timed = fields.map((f, i) => {
        const attr = timeAttrOf(lf[i]!.type)
        return attr !== undefined && attr === timeAttrOf(rf[i]!.type) ? { ...f, type: { ...f.type, timeAttr: attr } as DataType } : f
      })
      const plan: LogicalPlan = { kind: 'Union', inputs: [conform(left.plan), conform(right.plan)], fields: timed, span: q.span }
      return { plan, scope: Scope.of(timed) }
    }
    // UNION: the distinct rows of both, a DISTINCT aggregate over their union.
    const union: LogicalPlan = { kind: 'Union', inputs: [conform(left.plan), conform(right.plan)], fields, span: q.span }
    const ttl = this.config.stateTtlMs
    const plan: LogicalPlan = { kind: 'Aggregate', input: union, keys: fields.map((_, i) => i), aggs: [], distinct: true, ttlMs: ttl,
      ttlSource: ttl > 0 ? 'table.exec.state.ttl' : 'none', fields, span: q.span }
    return { plan, scope: Scope.of(fields) }
  }

  private bindValues(q: ast.ValuesQuery): BoundRelation {
    const empty = new Scope([])
    const rows = q.rows.map(r => r.map(e => bindExpr(e, { scope: empty, clause: 'VALUES' })))
    const width = rows[0]?.length ?? 0
    rows.forEach((r, i) => {
      if (r.length !== width) {
        throw WeirError.plan(`VALUES row ${i + 1} has ${r.length} values, the first has ${width}`, { span: q.rows[i]![0]?.span ?? q.span })
      }
    })
    const types = Array.from({ length: width }, (_, c) => {
      const t = commonType(rows.map(r => r[c]!.type))
      if (!t) throw WeirError.plan(`VALUES column ${c + 1} mixes incompatible types`, { span: q.span, help: 'CAST the values to one type' })
      return t
    })
    const conformed = rows.map(r =>
      r.map((x, c) => (sameType(x.type, types[c]!)
        ? x
        : x.kind === 'Literal' && x.value === null
        ? literal(null, withNullable(types[c]!, true))
        : castTo(x, types[c]!, q.span))
      )
    )
    const fields = types.map((t, c) => ({ name: `EXPR$${c}`, type: t }))
    return { plan: { kind: 'Values', rows: conformed, fields, span: q.span }, scope: Scope.of(fields) }
  }
}

function uniqueName(name: string, taken: readonly Field[]): string {
  if (!taken.some(f => f.name === name)) return name
  for (let i = 0;; i++) if (!taken.some(f => f.name === `${name}${i}`)) return `${name}${i}`
}

function renameFields(fields: readonly Field[], columns: readonly ast.Ident[] | undefined, span: Span): Field[] {
  if (!columns) return [...fields]
  if (columns.length !== fields.length) {
    throw WeirError.plan(`${columns.length} column names given for a query with ${fields.length} columns`, { span: columns[0]?.span ?? span })
  }
  return fields.map((f, i) => ({ name: columns[i]!.value, type: f.type }))
}
