// The planner's front door: all the engine asks of the planner goes through this file — the catalog
// and DDL, INSERT and SELECT planned into a job graph, EXPLAIN, DESCRIBE, and the options SET and
// RESET take. What is behind it (binder, logical plan, rewrite rules, lowering) is the planner's own.
import type * as ast from '../grammar/ast.js'
import type { Field } from '../common/types.js'
import type { WarningSink } from '../common/warnings.js'
import type { JobGraph } from '../core/job-graph.js'
import type { JobConfig } from '../common/config/index.js'
import type { Catalog } from './catalog.js'
import { describeObject, likeFilter, type Listing } from './describe.js'
export { describeObject, likeFilter, showFunctions } from './describe.js'
import { explainJobGraph, explainOperator } from './explain.js'
import { jsonExecutionPlan } from './explain-json.js'
import { nodeParallelisms } from '../runtime/subtasks.js'
import { lowerToJobGraph } from './physical/lower.js'
import { planInsert, planSelect } from './planner.js'
import { planStatementSet } from './statement-set.js'

export { Catalog, type CatalogObject, type CatalogTable, type CatalogView } from './catalog.js'
export { tableFromAst, viewFromAst } from './ddl.js'
export { showCreate } from './show-create.js'
export { alterObject } from './alter-table.js'
export { createTableAs } from './create-as.js'
export { applyNamespaceStatement, showNamespaces } from './namespaces.js'
export { explainJobGraph, explainOperator, type ExplainOptions } from './explain.js'
export type { Listing } from './describe.js'

/** What a statement is planned against: the session's catalog, the options in force, where warnings go. */
export interface PlanContext {
  readonly catalog: Catalog
  /** The options in force, read: the job graph carries them. */
  readonly config: JobConfig
  readonly warn?: WarningSink
}

/** An INSERT, a statement set or a SELECT, planned and optimized. */
export interface PlannedQuery {
  /** The columns it produces: a SELECT's result, an INSERT's sink columns (none for a statement set: each INSERT has its own). */
  readonly fields: readonly Field[]
  /** The options it was planned with. */
  readonly config: JobConfig
  /** Its job graph, named `name`, with the options in force when it was planned (a later SET does not change it). */
  jobGraph(name: string): JobGraph
}

/**
 * Plans an INSERT, a statement set (its INSERTs as one job) or a SELECT; throws a plan error pointing
 * into the statement. The job graph is made on request, so a job is named only once its statement
 * has planned.
 *
 * @example planQuery(parseSql('INSERT INTO out SELECT * FROM clicks')[0], { catalog, config }).jobGraph('clicks-1')
 */
export function planQuery(stmt: ast.Insert | ast.StatementSet | ast.QueryStatement, ctx: PlanContext): PlannedQuery {
  const { config } = ctx
  if (stmt.kind === 'StatementSet') {
    const plans = planStatementSet(stmt, ctx.catalog, config, ctx.warn)
    return { fields: [], config, jobGraph: name => lowerToJobGraph(plans, name, config) }
  }
  const plan = stmt.kind === 'Insert' ? planInsert(stmt, ctx.catalog, config, ctx.warn) : planSelect(stmt, ctx.catalog, config, ctx.warn)
  return { fields: plan.fields, config, jobGraph: name => lowerToJobGraph([plan], name, config) }
}

/** EXPLAIN [CHANGELOG_MODE] of an INSERT, a statement set or a SELECT: the text of its job graph (named 'explain'; no job is started). */
export function explain(stmt: ast.Explain, ctx: PlanContext): string {
  const graph = planQuery(stmt.statement, ctx).jobGraph('explain')
  const text = explainJobGraph(graph, { changelogMode: stmt.changelogMode, estimatedCost: stmt.estimatedCost, planAdvice: stmt.planAdvice })
  if (!stmt.jsonExecutionPlan) return text
  const json = jsonExecutionPlan(graph, nodeParallelisms(graph), node => explainOperator(graph, node.id)!)
  return `${text}\n\n== Physical Execution Plan ==\n${json}`
}

/** SHOW COLUMNS FROM t [[NOT] LIKE 'p']: DESCRIBE's rows of the columns whose names match. */
export function showColumns(stmt: ast.ShowColumns, ctx: PlanContext): Listing {
  const listing = describeObject(ctx.catalog.resolve(stmt.table, stmt.table.span), ctx.catalog, ctx.config)
  const keep = likeFilter(stmt.like)
  return { columns: listing.columns, rows: listing.rows.filter(r => keep(r[0]!)) }
}

/** DESCRIBE of a table or view; an unknown name is a plan error at the name with a did-you-mean. */
export function describe(stmt: ast.Describe, ctx: PlanContext): Listing {
  const obj = ctx.catalog.resolve(stmt.name, stmt.name.span)
  return describeObject(obj, ctx.catalog, ctx.config)
}
