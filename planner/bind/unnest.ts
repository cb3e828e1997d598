// UNNEST in FROM, as Flink plans it (a Correlate of the UNNEST function): `t CROSS JOIN UNNEST(t.arr)
// AS u(x)`, the comma form, `JOIN UNNEST(…) ON cond`, and `LEFT JOIN UNNEST(…) ON TRUE` (a row without
// elements stays once, NULL-padded). The collection is read from the row of the FROM items before the
// UNNEST; alone in FROM it may read no column (a constant array), over one empty row. Column names
// without an alias list are Calcite's: EXPR$0 for an array's element, a ROW element's field names,
// KEY and VALUE for a map, ORDINALITY for the position.
import type * as ast from '../../grammar/ast.js'
import type { Span } from '../../common/span.js'
import { T, formatType, withNullable, withoutTimeAttr, type DataType, type Field } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { inputsUsed, remapInputs, type Rex } from '../../core/rex.js'
import type { UnnestShape } from '../../core/unnest.js'
import type { LogicalPlan, Unnest, WindowTvf } from '../logical/nodes.js'
import { Scope, type ScopeField } from './scope.js'
import { bindExpr } from './expr-binder.js'
import type { BoundRelation } from './join-binder.js'

/** An UNNEST bound against the columns before it: what it reads and the columns it adds. */
export interface BoundUnnest {
  readonly collection: Rex
  readonly shape: UnnestShape
  readonly width: number
  readonly ordinality: boolean
  readonly outer: boolean
  /** The added columns, qualified by the UNNEST's alias. */
  readonly scope: Scope
  readonly span: Span
}

const EXAMPLE = 'write FROM t CROSS JOIN UNNEST(t.arr) AS u(x)'

/**
 * Binds `join.right` (an UNNEST) against `before`, the columns of the FROM items to its left. The
 * caller binds an INNER JOIN's ON condition over the joined columns; here only the join kinds that
 * Flink's Correlate runs are let through.
 */
export function bindCorrelatedUnnest(join: ast.Join & { readonly right: ast.Unnest }, before: Scope): BoundUnnest {
  const item = join.right
  switch (join.joinType) {
    case 'RIGHT':
    case 'FULL':
      throw WeirError.unsupported(`${join.joinType} JOIN UNNEST is not supported`, {
        span: item.span,
        help: 'UNNEST expands the row before it: use CROSS JOIN UNNEST, or LEFT JOIN UNNEST(…) ON TRUE to keep rows without elements',
      })
    case 'LEFT':
      if (join.on === undefined || !isTrue(join.on)) {
        throw WeirError.unsupported('LEFT JOIN UNNEST takes only ON TRUE', {
          span: join.on?.span ?? item.span,
          help: 'write LEFT JOIN UNNEST(t.arr) AS u(x) ON TRUE, and filter the elements in WHERE',
        })
      }
      break
    case 'INNER':
      if (join.on === undefined) throw WeirError.plan('JOIN UNNEST needs an ON condition', { span: item.span, help: 'write ON TRUE, or use CROSS JOIN UNNEST' })
      break
    case 'CROSS':
      if (join.on !== undefined) {
        throw WeirError.plan('CROSS JOIN takes no ON condition', { span: join.on.span, help: 'write CROSS JOIN UNNEST(…) AS u(x) without ON' })
      }
      break
  }
  return bindUnnest(item, before, join.joinType === 'LEFT')
}

/** UNNEST alone in FROM (or first): its collection may read no column; it expands one empty row. */
export function standaloneUnnest(item: ast.Unnest): BoundRelation {
  let u: BoundUnnest
  try {
    u = bindUnnest(item, new Scope([]), false)
  } catch (e) {
    if (e instanceof WeirError && e.kind === 'plan' && /^(column|table) '/.test(e.message)) {
      throw new WeirError('plan', `${e.message}: UNNEST reads the columns of the FROM items before it`, { span: e.span, help: EXAMPLE })
    }
    throw e
  }
  const values: LogicalPlan = { kind: 'Values', rows: [[]], fields: [], span: item.span }
  return { plan: unnestPlan(values, u), scope: u.scope }
}

/** The Unnest node over `input` (whose columns `u` was bound against). */
export function unnestPlan(input: LogicalPlan, u: BoundUnnest): Unnest {
  const { collection, shape, width, ordinality, outer } = u
  const fields: Field[] = [...input.fields, ...u.scope.fields.map(f => ({ name: f.name, type: f.type }))]
  return { kind: 'Unnest', input, collection, shape, width, ordinality, outer, fields, span: u.span }
}

function bindUnnest(item: ast.Unnest, before: Scope, outer: boolean): BoundUnnest {
  if (item.args.length !== 1) {
    throw WeirError.unsupported(`UNNEST takes one ARRAY or MAP, got ${item.args.length}`, {
      span: item.args[1]!.span,
      help: 'unnest each collection in its own UNNEST: … CROSS JOIN UNNEST(t.a) AS u(x) CROSS JOIN UNNEST(t.b) AS v(y) (each one multiplies the rows)',
    })
  }
  const arg = item.args[0]!
  const collection = bindExpr(arg, { scope: before, clause: 'UNNEST' })
  const element = elementOf(collection.type, arg.span)
  const columns: { name: string; type: DataType }[] = element.columns.map(c => ({ name: c.name, type: outer ? withNullable(c.type, true) : c.type }))
  if (item.ordinality) columns.push({ name: 'ORDINALITY', type: T.int(outer) })
  if (item.columns !== undefined && item.columns.length !== columns.length) {
    throw WeirError.plan(
      `UNNEST gives ${columns.length} column${columns.length === 1 ? '' : 's'} (${columns.map(c => c.name).join(', ')}), but ${item.columns.length} name${
        item.columns.length === 1 ? ' is' : 's are'
      } given`,
      { span: item.columns[0]!.span, help: `name each column: AS ${item.alias?.value ?? 'u'}(${aliasExample(element.shape, item.ordinality)})` },
    )
  }
  const named = columns.map((c, i) => ({ name: item.columns?.[i]!.value ?? c.name, type: c.type }))
  return {
    collection,
    shape: element.shape,
    width: element.columns.length,
    ordinality: item.ordinality,
    outer,
    scope: Scope.of(named, item.alias?.value),
    span: item.span,
  }
}

function elementOf(type: DataType, span: Span): { shape: UnnestShape; columns: readonly { name: string; type: DataType }[] } {
  if (type.kind === 'ARRAY') {
    const e = withoutTimeAttr(type.element)
    if (e.kind === 'ROW') {
      // A NULL element gives NULL fields.
      return { shape: 'row', columns: e.fields.map(f => ({ name: f.name, type: e.nullable ? withNullable(f.type, true) : f.type })) }
    }
    return { shape: 'scalar', columns: [{ name: 'EXPR$0', type: e }] }
  }
  if (type.kind === 'MAP') return { shape: 'map', columns: [{ name: 'KEY', type: type.key }, { name: 'VALUE', type: type.value }] }
  throw WeirError.plan(`UNNEST takes an ARRAY or a MAP, not ${formatType(type)}`, { span, help: EXAMPLE })
}

function aliasExample(shape: UnnestShape, ordinality: boolean): string {
  const names = shape === 'map' ? ['k', 'v'] : shape === 'row' ? ['f1', 'f2', '…'] : ['x']
  return [...names, ...(ordinality ? ['pos'] : [])].join(', ')
}

function isTrue(e: ast.Expr): boolean {
  return e.kind === 'Literal' && e.type === 'boolean' && /^true$/i.test(e.text)
}

/**
 * GROUP BY window_start, window_end over `TABLE(TUMBLE(…)) CROSS JOIN UNNEST(…)` (filters above either)
 * is a window aggregate, as in Flink (its window properties pass through a Correlate): the same rows
 * with the UNNEST below the window TVF, when the collection reads no window column. `rel`'s columns
 * [input…, window_start, window_end, window_time, element…] become [input…, element…, window…];
 * `remap` takes a column of `rel` to its new index (the filters are remapped already).
 */
export function unnestBelowWindowTvf(rel: BoundRelation): { rel: BoundRelation; tvf: WindowTvf; filters: Rex[]; remap: (i: number) => number } | undefined {
  if (rel.scope.subqueries !== undefined && rel.scope.subqueries.size > 0) return undefined
  const filters: Rex[] = []
  let p = rel.plan
  for (; p.kind === 'Filter'; p = p.input) filters.push(p.condition)
  if (p.kind !== 'Unnest') return undefined
  const unnest = p
  for (p = p.input; p.kind === 'Filter'; p = p.input) filters.push(p.condition)
  if (p.kind !== 'WindowTvf') return undefined
  const tvf = p
  const n = tvf.input.fields.length
  if ([...inputsUsed(unnest.collection)].some(i => i >= n)) return undefined
  const w = unnest.fields.length - tvf.fields.length
  const remap = (i: number): number => (i < n ? i : i < n + 3 ? i + w : i - 3)
  const below: Unnest = { ...unnest, input: tvf.input, fields: [...tvf.input.fields, ...unnest.fields.slice(n + 3)] }
  const moved: WindowTvf = { ...tvf, input: below, fields: [...tvf.fields.slice(0, n), ...unnest.fields.slice(n + 3), ...tvf.fields.slice(n)] }
  const fields: ScopeField[] = []
  rel.scope.fields.forEach((f, i) => (fields[remap(i)] = f))
  return { rel: { plan: moved, scope: new Scope(fields) }, tvf: moved, filters: filters.map(c => remapInputs(c, remap)), remap }
}
