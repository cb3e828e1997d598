// Statement planning entry points: INSERT and SELECT → an optimized logical plan with a sink.
import type * as ast from '../grammar/ast.js'
import { WeirError } from '../common/errors.js'
import { spanOf } from '../common/span.js'
import type { WarningSink } from '../common/warnings.js'
import type { DataType, Field } from '../common/types.js'
import { formatType, sameType, isNumeric, withoutTimeAttr, withNullable } from '../common/types.js'
import { inputRef, literal } from '../core/rex.js'
import type { Rex } from '../core/rex.js'
import { castTo, evalConstant } from '../expr/index.js'
import { getConnector } from '../connectors/registry.js'
import type { Catalog, CatalogTable } from './catalog.js'
import type { LogicalPlan } from './logical/nodes.js'
import { QueryBinder } from './bind/query-binder.js'
import { optimize } from './rules/index.js'
import { checkChangelog } from './changelog.js'
import { writtenColumns } from './bind/table-fields.js'
import { checkWritable } from './sink-columns.js'
import { unboundedScans } from './bind/order-limit.js'
import type { JobConfig } from '../common/config/index.js'

/** Plans `INSERT INTO t query`. */
export function planInsert(stmt: ast.Insert, catalog: Catalog, config: JobConfig, warn?: WarningSink): LogicalPlan {
  const name = stmt.table.parts.at(-1)!.value
  const target = catalog.resolve(stmt.table, stmt.table.span)
  if (target.kind !== 'table') throw WeirError.plan(`cannot INSERT INTO view '${target.name}'`, { span: stmt.table.span, help: 'insert into a table' })
  const factory = getConnector(target.options['connector']!)
  if (!factory.sink) {
    throw WeirError.plan(`table '${target.name}' uses connector '${factory.name}', which cannot be written to`, { span: stmt.table.span,
      help: 'insert into a filesystem, print or blackhole table' })
  }
  if (stmt.overwrite && factory.sink.overwrite !== true) {
    throw WeirError.unsupported(`INSERT OVERWRITE cannot overwrite table '${target.name}': connector '${factory.name}' only appends`, {
      span: stmt.table.span,
      help: `overwrite a 'filesystem' table, or use INSERT INTO`,
    })
  }
  checkWritable(target)
  const query = new QueryBinder(catalog, config, warn).bindQuery(stmt.query)
  if (stmt.overwrite) checkBoundedOverwrite(query.plan, stmt)
  const statics = staticPartition(stmt, target)
  const input = conformToSink(query.plan, target, stmt, statics)
  const written = writtenColumns(target)
  const fields = input.fields.map((f, i) => ({ name: written[i]!.name, type: f.type }))
  const keys = target.partitionKeys ?? []
  const whole = keys.length > 0 && keys.every(k => statics.has(k)) ? { staticPartition: keys.map(k => statics.get(k)!.value) } : {}
  const sink: LogicalPlan = { kind: 'Sink', input, table: target, fields, span: stmt.span, ...(stmt.overwrite ? { overwrite: true as const } : {}), ...whole }
  const optimized = optimize(sink)
  checkChangelog(optimized)
  return optimized
}

/**
 * INSERT OVERWRITE replaces the table's contents once the query has written all of it, so the query
 * must end: as in Flink, where it is a batch statement.
 */
function checkBoundedOverwrite(plan: LogicalPlan, stmt: ast.Insert): void {
  const unbounded = unboundedScans(plan)
  if (unbounded.length === 0) return
  const tables = unbounded.map(s => `'${s.table.name}' (connector '${s.table.options['connector']}')`).join(', ')
  throw WeirError.unsupported(`INSERT OVERWRITE needs a bounded query, but ${tables} ${unbounded.length > 1 ? 'are' : 'is'} unbounded`, {
    span: stmt.query.span,
    help: 'overwrite from bounded tables (files, or sources with an end such as a datagen number-of-rows), or use INSERT INTO to append a stream',
  })
}

/** Plans a SELECT whose rows are collected (printed by the CLI, shown by the REPL). */
export function planSelect(stmt: ast.QueryStatement, catalog: Catalog, config: JobConfig, warn?: WarningSink): LogicalPlan {
  const query = new QueryBinder(catalog, config, warn).bindQuery(stmt.query)
  const sink: LogicalPlan = { kind: 'Sink', input: query.plan, fields: query.plan.fields, span: stmt.span }
  const optimized = optimize(sink)
  checkChangelog(optimized)
  return optimized
}

/** A static partition column's value: the literal cast to the column's type. */
interface StaticValue {
  readonly value: unknown
  readonly type: DataType
}

/**
 * `INSERT … PARTITION (k = 'v', …)`: each named column must be a partition column of the table; its
 * value is cast to the column's type now, so a value that cannot be one is refused at the literal.
 */
function staticPartition(stmt: ast.Insert, table: CatalogTable): Map<string, StaticValue> {
  const out = new Map<string, StaticValue>()
  if (stmt.partition === undefined) return out
  const keys = table.partitionKeys ?? []
  if (keys.length === 0) {
    throw WeirError.plan(`table '${table.name}' is not partitioned: INSERT cannot name a PARTITION`, { span: stmt.partition[0]!.span,
      help: 'remove the PARTITION clause, or insert into a table created with PARTITIONED BY' })
  }
  for (const p of stmt.partition) {
    const key = keys.find(k => k.toLowerCase() === p.column.value.toLowerCase())
    if (key === undefined) {
      throw WeirError.plan(`'${p.column.value}' is not a partition column of '${table.name}'`, { span: p.column.span,
        help: `its partition columns are ${keys.join(', ')}` })
    }
    if (out.has(key)) throw WeirError.plan(`partition column '${key}' is given twice`, { span: p.span })
    const type = withNullable(table.columns.find(c => c.name === key)!.type, true)
    let value: unknown
    try {
      value = evalConstant(castTo(literal(p.value, { kind: 'STRING', nullable: false }), type, p.span))
    } catch (e) {
      if (!(e instanceof WeirError)) throw e
      throw WeirError.plan(`partition value '${p.value}' is not a ${formatType(type)} (column '${key}')`, { span: p.span,
        help: `give a value of the column's type` })
    }
    if (value === null || value === undefined) {
      throw WeirError.plan(`partition value '${p.value}' is not a ${formatType(type)} (column '${key}')`, { span: p.span })
    }
    out.set(key, { value, type })
  }
  return out
}

/**
 * Maps query columns onto the sink's written columns (physical and non-VIRTUAL metadata) by position
 * (or by the INSERT column list), with implicit casts; static partition columns take their values.
 */
function conformToSink(plan: LogicalPlan, table: CatalogTable, stmt: ast.Insert, statics: ReadonlyMap<string, StaticValue>): LogicalPlan {
  const sinkCols = writtenColumns(table)
  const qf = plan.fields
  // The query fills the columns a PARTITION clause does not give.
  const open = sinkCols.flatMap((c, i) => (statics.has(c.name) ? [] : [i]))
  let sources: (number | null)[]
  if (stmt.columns) {
    if (stmt.columns.length !== qf.length) {
      throw WeirError.plan(`INSERT lists ${stmt.columns.length} columns but the query produces ${qf.length}`, { span: stmt.columns[0]!.span })
    }
    sources = sinkCols.map(() => null)
    stmt.columns.forEach((c, i) => {
      const at = sinkCols.findIndex(s => s.name.toLowerCase() === c.value.toLowerCase())
      if (at < 0) throw WeirError.plan(`'${table.name}' has no column '${c.value}'`, { span: c.span })
      if (statics.has(sinkCols[at]!.name)) {
        throw WeirError.plan(`column '${sinkCols[at]!.name}' has its value in the PARTITION clause`, { span: c.span, help: 'leave it out of the column list' })
      }
      sources[at] = i
    })
  } else {
    if (qf.length !== open.length) {
      const what = statics.size > 0 ? `${open.length} columns besides its static partition` : `${sinkCols.length}`
      throw WeirError.plan(`the query produces ${qf.length} columns but '${table.name}' has ${what} (${open.map(i => sinkCols[i]!.name).join(', ')})`, {
        span: stmt.query.span,
        help: 'select one value per sink column, in order, or list the target columns after the table name',
      })
    }
    sources = sinkCols.map(() => null)
    open.forEach((at, i) => (sources[at] = i))
  }
  let identity = true
  const exprs: Rex[] = sinkCols.map((col, i) => {
    const fixed = statics.get(col.name)
    if (fixed !== undefined) {
      identity = false
      return literal(fixed.value, fixed.type)
    }
    const from = sources[i]!
    if (from === null) {
      if (!col.type.nullable) {
        // As in Flink: a column left out of the list gets NULL, which a NOT NULL column cannot hold.
        throw WeirError.plan(`column '${col.name}' of '${table.name}' is NOT NULL, but the INSERT's column list leaves it out`, {
          span: spanOf(stmt.columns![0]!.span, stmt.columns!.at(-1)!.span),
          help: `list '${col.name}' and select a value for it`,
        })
      }
      identity = false
      return literal(null, withNullable(col.type, true))
    }
    const t = qf[from]!.type
    if (from !== i) identity = false
    if (sameType(t, col.type)) return inputRef(from, t)
    if (!assignable(t, col.type)) {
      throw WeirError.plan(
        `column ${from + 1} of the query ('${qf[from]!.name}') is ${formatType(withoutTimeAttr(t))}, but sink column '${col.name}' is ${formatType(col.type)}`,
        {
          span: stmt.query.span,
          help: `CAST it: CAST(${qf[from]!.name} AS ${formatType(withNullable(col.type, true))})`,
        },
      )
    }
    identity = false
    return castTo(inputRef(from, t), withNullable(col.type, true), stmt.span)
  })
  if (identity && sinkCols.length === qf.length) return plan
  const fields: Field[] = sinkCols.map((c, i) => ({ name: c.name, type: exprs[i]!.type }))
  return { kind: 'Project', input: plan, exprs, fields, span: stmt.span }
}

/** Implicit conversions INSERT allows: NULL to anything, numeric widening, between timestamp kinds of equal meaning. */
function assignable(from: DataType, to: DataType): boolean {
  if (from.kind === 'NULL') return true
  if (sameType(from, to)) return true
  if (isNumeric(from) && isNumeric(to)) {
    const rank = { INT: 0, BIGINT: 1, DECIMAL: 2, DOUBLE: 3 } as Record<string, number>
    return rank[from.kind]! <= rank[to.kind]! || (from.kind === 'DECIMAL' && to.kind === 'DECIMAL')
  }
  if (from.kind === 'TIMESTAMP' && to.kind === 'TIMESTAMP') return true
  if (from.kind === 'TIMESTAMP_LTZ' && to.kind === 'TIMESTAMP_LTZ') return true
  return false
}
