// FROM clauses with joins → logical plans. The FROM tree is bound leaf by leaf (tables, views,
// subqueries, window TVFs), then every condition — each ON and the WHERE — is split into conjuncts,
// and each conjunct goes as deep as SQL's semantics allow: onto one input as a filter, into an
// inner or comma join as part of its condition, or it stays where it was written. Then each join
// becomes a plan node; `planJoin` is the one place that decides which kind.
import type * as ast from '../../grammar/ast.js'
import type { Span } from '../../common/span.js'
import { WeirError } from '../../common/errors.js'
import { formatDuration } from '../../common/durations.js'
import type { Rex } from '../../core/rex.js'
import { conjunctsOf, inputsUsed, isNonDeterministic, remapInputs } from '../../core/rex.js'
import { resolveCall } from '../../expr/index.js'
import type { JobConfig } from '../../common/config/index.js'
import type { LogicalPlan, SideTtl } from '../logical/nodes.js'
import { Scope } from './scope.js'
import { bindExpr } from './expr-binder.js'
import { joinFields, regularJoin } from './regular-join.js'
import { isTemporal, temporalJoin } from './temporal-join.js'
import { timeJoin } from './time-join.js'
import { stateTtlOption } from './hints.js'
import { bindCorrelatedUnnest, unnestPlan, type BoundUnnest } from './unnest.js'

/** A bound relation: its plan and the names its columns are visible by. */
export interface BoundRelation {
  readonly plan: LogicalPlan
  readonly scope: Scope
}

export interface JoinContext {
  /** Binds a FROM item that is not a join: a table, view, subquery or window TVF. */
  readonly bindLeaf: (item: ast.FromItem) => BoundRelation
  /** The SELECT's hints (STATE_TTL per join input). */
  readonly hints: readonly ast.Hint[]
  readonly config: JobConfig
}

/** The kind of a join as written (CROSS for a comma, or CROSS JOIN). */
export type WrittenJoinType = ast.Join['joinType']

/** A node of the FROM tree. Column ranges are global: [offset, offset + width) of the whole FROM's row. */
type Tree = Leaf | JoinNode | UnnestNode

interface Leaf {
  readonly kind: 'leaf'
  readonly rel: BoundRelation
  readonly offset: number
  readonly width: number
  /** Conjuncts (global columns) that filter this input. */
  readonly filters: Rex[]
}

interface JoinNode {
  readonly kind: 'join'
  readonly join: ast.Join
  readonly left: Tree
  readonly right: Tree
  readonly offset: number
  readonly width: number
  /** The join's own condition, conjunct by conjunct (global columns). */
  readonly conjuncts: Rex[]
  /** Conjuncts that filter the join's output (they may not move into an outer join's condition). */
  readonly filters: Rex[]
  /** The columns visible after this join (outer joins make the NULL-supplying side's columns nullable). */
  scope?: Scope
}

/** `input CROSS JOIN UNNEST(…)`: the input's columns, then the UNNEST's (bind/unnest.ts). */
interface UnnestNode {
  readonly kind: 'unnest'
  readonly input: Tree
  readonly unnest: BoundUnnest
  readonly offset: number
  readonly width: number
  /** Conjuncts (global columns) over the UNNEST's columns: they filter its output. */
  readonly filters: Rex[]
  readonly scope: Scope
}

/**
 * A join's inputs with its condition, as `planJoin` decides its kind: `conjuncts` are over
 * [...left columns, ...right columns], the join's own row.
 */
export interface JoinInputs {
  readonly join: ast.Join
  readonly left: BoundRelation
  readonly right: BoundRelation
  readonly conjuncts: readonly Rex[]
  readonly leftTtl: SideTtl
  readonly rightTtl: SideTtl
  readonly span: Span
}

/**
 * Binds a FROM that joins, with the WHERE (if given) spread over it. Returns the relation and the
 * WHERE conjuncts left to apply above it, already applied.
 */
export function bindJoinedFrom(from: ast.Join, where: ast.Expr | undefined, ctx: JoinContext): BoundRelation {
  let next = 0
  const build = (item: ast.FromItem): Tree => {
    if (item.kind !== 'Join') {
      const rel = ctx.bindLeaf(item)
      const leaf: Leaf = { kind: 'leaf', rel, offset: next, width: rel.plan.fields.length, filters: [] }
      next += leaf.width
      return leaf
    }
    const left = build(item.left)
    if (item.right.kind === 'Unnest') {
      const unnest = bindCorrelatedUnnest({ ...item, right: item.right }, scopeOf(left))
      const scope = scopeOf(left).concat(unnest.scope)
      const node: UnnestNode = { kind: 'unnest', input: left, unnest, offset: left.offset, width: scope.fields.length, filters: [], scope }
      next += unnest.scope.fields.length
      // An INNER JOIN's ON is a filter (LEFT takes only ON TRUE: nothing to place).
      if (item.on !== undefined && item.joinType === 'INNER') {
        for (const c of conjunctsOf(bindBoolean(item.on, scope, 'ON'))) placeFilter(remapInputs(c, i => i + node.offset), node)
      }
      return node
    }
    // The versioned table of a temporal join is bound as a plain table; planJoin reads its AS OF.
    const right = build(item.right.kind === 'TableRef' ? { ...item.right, asOf: undefined } : item.right)
    const node: JoinNode = { kind: 'join', join: item, left, right, offset: left.offset, width: left.width + right.width, conjuncts: [], filters: [] }
    node.scope = joinedScope(scopeOf(left), scopeOf(right), item.joinType, isTemporal(item))
    if (item.on !== undefined) {
      if (item.joinType === 'CROSS') throw WeirError.plan('CROSS JOIN takes no ON condition', { span: item.on.span, help: 'write INNER JOIN … ON …' })
      const on = bindBoolean(item.on, node.scope, 'ON')
      for (const c of conjunctsOf(on)) placeOn(remapInputs(c, i => i + node.offset), node)
    } else if (item.joinType !== 'CROSS') {
      throw WeirError.plan(`${item.joinType} JOIN needs an ON condition`, { span: item.span, help: 'add ON left.column = right.column' })
    }
    return node
  }
  const root = build(from)
  const remaining: Rex[] = []
  if (where !== undefined) {
    for (const c of conjunctsOf(bindBoolean(where, scopeOf(root), 'WHERE'))) {
      if (isNonDeterministic(c) || inputsUsed(c).size === 0) remaining.push(c)
      else placeFilter(c, root)
    }
  }
  const ttls = new StateTtls(ctx, root)
  let plan = planTree(root, ttls)
  const scope = scopeOf(root)
  if (remaining.length > 0) plan = filter(plan, remaining, 0, where!.span)
  return { plan, scope }
}

function scopeOf(tree: Tree): Scope {
  return tree.kind === 'leaf' ? tree.rel.scope : tree.scope!
}

/**
 * The columns after a join: both sides', the NULL-supplying side's nullable, time attributes gone (a
 * regular join does not keep time order; a temporal join keeps its probe side's).
 */
function joinedScope(left: Scope, right: Scope, type: WrittenJoinType, temporal: boolean): Scope {
  const fields = joinFields(left.fields, right.fields, type)
  return new Scope([...left.fields, ...right.fields].map((f, i) => ({ ...f, type: temporal && i < left.fields.length ? f.type : fields[i]!.type })))
}

function bindBoolean(e: ast.Expr, scope: Scope, clause: string): Rex {
  const rex = bindExpr(e, { scope, clause })
  if (rex.type.kind !== 'BOOLEAN' && rex.type.kind !== 'NULL') {
    throw WeirError.plan(`${clause} condition must be BOOLEAN`, { span: e.span })
  }
  return rex
}

function within(cols: ReadonlySet<number>, t: Tree): boolean {
  for (const c of cols) if (c < t.offset || c >= t.offset + t.width) return false
  return true
}

/** Inputs a filter may move into: an inner join's both, an outer join's preserved side only. */
const FILTER_INTO_LEFT = new Set<WrittenJoinType>(['INNER', 'CROSS', 'LEFT'])
const FILTER_INTO_RIGHT = new Set<WrittenJoinType>(['INNER', 'CROSS', 'RIGHT'])

/** A conjunct of an ON condition: onto the NULL-supplying or inner input it alone reads, else the join's own. */
function placeOn(c: Rex, node: JoinNode): void {
  const cols = inputsUsed(c)
  const type = node.join.joinType
  if (cols.size > 0 && !isNonDeterministic(c)) {
    // An ON conjunct over one input only filters that input, unless the input is preserved (its rows stay, padded).
    if (within(cols, node.left) && type !== 'LEFT' && type !== 'FULL') return placeFilter(c, node.left)
    // (Filtering a versioned table would change which version is valid when: such a conjunct stays.)
    if (within(cols, node.right) && type !== 'RIGHT' && type !== 'FULL' && !isTemporal(node.join)) return placeFilter(c, node.right)
  }
  node.conjuncts.push(c)
}

/** A filter over `tree`'s rows: as deep as it may go. */
function placeFilter(c: Rex, tree: Tree): void {
  if (tree.kind === 'leaf') {
    tree.filters.push(c)
    return
  }
  const cols = inputsUsed(c)
  if (tree.kind === 'unnest') {
    // The input's rows are kept or expanded whole (a LEFT UNNEST's too): a filter of the input alone goes below.
    if (within(cols, tree.input)) placeFilter(c, tree.input)
    else tree.filters.push(c)
    return
  }
  const type = tree.join.joinType
  if (within(cols, tree.left) && FILTER_INTO_LEFT.has(type)) return placeFilter(c, tree.left)
  if (within(cols, tree.right) && FILTER_INTO_RIGHT.has(type) && !isTemporal(tree.join)) return placeFilter(c, tree.right)
  if (type === 'INNER' || type === 'CROSS') tree.conjuncts.push(c)
  else tree.filters.push(c)
}

function and(conjuncts: readonly Rex[]): Rex {
  return conjuncts.reduce((a, b) => resolveCall('AND', [a, b]))
}

/** `plan` (whose first column is global column `offset`) filtered by conjuncts over global columns. */
function filter(plan: LogicalPlan, conjuncts: readonly Rex[], offset: number, span: Span): LogicalPlan {
  const condition = remapInputs(and(conjuncts), i => i - offset)
  return { kind: 'Filter', input: plan, condition, fields: plan.fields, span }
}

function planTree(tree: Tree, ttls: StateTtls): LogicalPlan {
  if (tree.kind === 'leaf') {
    const plan = tree.rel.plan
    return tree.filters.length > 0 ? filter(plan, tree.filters, tree.offset, plan.span) : plan
  }
  if (tree.kind === 'unnest') {
    const plan = unnestPlan(planTree(tree.input, ttls), tree.unnest)
    return tree.filters.length > 0 ? filter(plan, tree.filters, tree.offset, tree.unnest.span) : plan
  }
  const left = planTree(tree.left, ttls)
  const right = planTree(tree.right, ttls)
  const inputs: JoinInputs = {
    join: tree.join,
    left: { plan: left, scope: scopeOf(tree.left) },
    right: { plan: right, scope: scopeOf(tree.right) },
    conjuncts: tree.conjuncts.map(c => remapInputs(c, i => i - tree.offset)),
    leftTtl: ttls.of(tree.left),
    rightTtl: ttls.of(tree.right),
    span: tree.join.span,
  }
  const plan = planJoin(inputs)
  // A join that keeps a time attribute (an interval join) shows it by name too.
  tree.scope = new Scope(tree.scope!.fields.map((f, i) => ({ ...f, type: plan.fields[i]!.type })))
  return tree.filters.length > 0 ? filter(plan, tree.filters, tree.offset, tree.join.span) : plan
}

/**
 * Decides which operator a join becomes. Joins whose condition bounds them in time (interval
 * joins), equates their windows (window joins) or reads a version (temporal joins) are decided here,
 * before the regular join, which is what any other equi-join is.
 */
export function planJoin(inputs: JoinInputs): LogicalPlan {
  if (isTemporal(inputs.join)) return temporalJoin(inputs)
  return timeJoin(inputs) ?? regularJoin(inputs)
}

/**
 * State TTL per join input: a STATE_TTL hint naming the input's table or alias (an input that is
 * itself a join is named by none), else 'table.exec.state.ttl'.
 */
class StateTtls {
  private readonly hinted = new Map<string, SideTtl>()
  private readonly fallback: SideTtl

  constructor(ctx: JoinContext, root: Tree) {
    const ms = ctx.config.stateTtlMs
    this.fallback = { ms, source: ms > 0 ? `table.exec.state.ttl = '${formatDuration(ms)}'` : 'none' }
    const aliases = new Set<string>()
    const collect = (t: Tree): void => {
      if (t.kind === 'join') {
        collect(t.left)
        collect(t.right)
      } else if (t.kind === 'unnest') {
        collect(t.input)
      } else {
        const q = aliasOf(t)
        if (q !== undefined) aliases.add(q)
      }
    }
    collect(root)
    for (const hint of ctx.hints) {
      if (hint.name.value.toUpperCase() !== 'STATE_TTL') continue
      for (const option of hint.options) {
        const { alias, ms, source } = stateTtlOption(hint, option, aliases)
        this.hinted.set(alias, { ms, source })
      }
    }
  }

  of(side: Tree): SideTtl {
    const alias = side.kind === 'leaf' ? aliasOf(side) : undefined
    return (alias === undefined ? undefined : this.hinted.get(alias)) ?? this.fallback
  }
}

/** The table name or alias a FROM input's columns are qualified by. */
function aliasOf(leaf: Leaf): string | undefined {
  return leaf.rel.scope.fields[0]?.qualifier
}
