// Logical plan → job graph: operators with stable ids, hash exchanges in front of keyed operators,
// Filter+Project fused into one Calc, and scans turned into sources with their watermark.
import { watermarkAlignment } from '../../connectors/alignment.js'
import { WeirError } from '../../common/errors.js'
import { type DataType, type Field, withoutTimeAttr } from '../../common/types.js'
import { assertNever } from '../../common/assert.js'
import type { Rex } from '../../core/rex.js'
import type { AggCall } from '../../core/aggregates.js'
import type { Span } from '../../common/span.js'
import { inputRef, substituteInputs, isNonDeterministic } from '../../core/rex.js'
import type { ChangelogMode, Exchange, JobGraph, OperatorSpec, PhysicalNode } from '../../core/job-graph.js'
import type { LogicalPlan, Scan } from '../logical/nodes.js'
import { changelogOf } from '../changelog.js'
import type { JobConfig } from '../../common/config/index.js'
import { tableFields, writtenColumns } from '../bind/table-fields.js'
import { bindExpr } from '../bind/expr-binder.js'
import { Scope } from '../bind/scope.js'
import { joinSpec } from './join-spec.js'
import { rankSpec } from './lower-over.js'
import { temporalJoinSpec } from './temporal-join-spec.js'
import { subquerySpec } from './subquery-spec.js'
import { overAggregateSpec } from './over-aggregate.js'
import { timeJoinSpec } from './time-join-spec.js'
import { materializerKeys, updateBeforeReaders } from '../update-before.js'
import { connectorOptions } from '../catalog.js'
import { upsertTakenAsIs } from '../upsert-output.js'
import { processUpsertKey } from '../unique-keys.js'
import { splitAggregate } from './two-phase.js'
import { reuseSubPlans } from './reuse.js'

/** Lowers one or more sink plans (one per INSERT of a statement set) into a job graph. */
export function lowerToJobGraph(plans: readonly LogicalPlan[], name: string, config: JobConfig): JobGraph {
  checkParallelism(config)
  const nodes: PhysicalNode[] = []
  const readsUpdateBefore = updateBeforeReaders(plans)
  const upsertAsIs = upsertTakenAsIs(plans)
  const memo = new Map<LogicalPlan, string>()
  // Ids number the plan's operators; a local aggregate shares its global aggregate's number, so the
  // ids of stateful operators (which checkpoints are keyed by) are the same with and without it.
  let numbered = 0
  const add = (kind: string, spec: OperatorSpec, inputs: PhysicalNode['inputs'], plan: LogicalPlan, changelog: ChangelogMode): string => {
    const id = `${++numbered}-${kind}`
    nodes.push({ id, spec, inputs, schema: plan.fields, changelog })
    return id
  }
  const forward: Exchange = { kind: 'forward' }
  const keyed = (keys: readonly number[]): Exchange => (keys.length > 0 ? { kind: 'hash', keys } : { kind: 'single' })

  const lower = (plan: LogicalPlan): string => {
    const hit = memo.get(plan)
    if (hit) return hit
    const mode = changelogOf(plan).mode
    let id: string
    switch (plan.kind) {
      case 'Scan':
        id = add('source', sourceSpec(plan), [], plan, mode)
        break
      case 'Values':
        id = add('values', { kind: 'Values', rows: plan.rows }, [], plan, mode)
        break
      case 'Project': {
        if (plan.input.kind === 'Scan' && plan.input.shared !== true && !plan.exprs.some(isNonDeterministic)) {
          // A projection straight over a scan runs inside the source's compiled projection.
          id = add('source', sourceSpec(plan.input, plan.exprs), [], plan, mode)
        } else if (plan.input.kind === 'Filter') {
          const input = lower(plan.input.input)
          id = add('calc', { kind: 'Calc', projection: plan.exprs, condition: plan.input.condition }, [{ node: input, exchange: forward }], plan, mode)
        } else {
          id = add('calc', { kind: 'Calc', projection: plan.exprs }, [{ node: lower(plan.input), exchange: forward }], plan, mode)
        }
        break
      }
      case 'Expand':
        id = add('expand', { kind: 'Expand', projections: plan.projections }, [{ node: lower(plan.input), exchange: forward }], plan, mode)
        break
      case 'Unnest': {
        const { collection, shape, width, ordinality, outer } = plan
        id = add('unnest', { kind: 'Unnest', collection, shape, width, ordinality, outer }, [{ node: lower(plan.input), exchange: forward }], plan, mode)
        break
      }
      case 'Filter': {
        const projection = plan.fields.map((f, i) => inputRef(i, f.type))
        id = add('calc', { kind: 'Calc', projection, condition: plan.condition }, [{ node: lower(plan.input), exchange: forward }], plan, mode)
        break
      }
      case 'Aggregate': {
        const input = lower(plan.input)
        const inputUpdating = changelogOf(plan.input).mode === 'updating'
        if (inputUpdating) refuseUnretractable(plan.aggs, plan.span)
        const emitUpdateBefore = readsUpdateBefore(plan)
        const kind = plan.distinct ? 'distinct' : 'group-aggregate'
        const split = splitAggregate({ kind: 'GroupAggregate', keys: plan.keys, aggs: plan.aggs, inputUpdating, ttlMs: plan.ttlMs,
          ...(emitUpdateBefore ? {} : { emitUpdateBefore }) }, plan.input.fields, config)
        if ('local' in split) {
          const local = `${numbered + 1}-local-${kind}`
          nodes.push({ id: local, spec: split.local, inputs: [{ node: input, exchange: forward }], schema: split.localSchema, changelog: 'insert-only' })
          id = add(kind, split.global, [{ node: local, exchange: keyed(split.global.keys) }], plan, mode)
        } else {
          id = add(kind, split, [{ node: input, exchange: keyed(plan.keys) }], plan, mode)
        }
        break
      }
      case 'WindowAggregate': {
        const input = lower(plan.input)
        id = add('window-aggregate', { kind: 'WindowAggregate', window: plan.window, timeIndex: plan.timeIndex, timeDomain: plan.timeDomain, keys: plan.keys,
          aggs: plan.aggs, ...(plan.attached ? { attached: plan.attached } : {}) }, [{ node: input, exchange: keyed(plan.keys) }], plan, mode)
        break
      }
      case 'WindowTvf': {
        if (plan.window.kind === 'SESSION') {
          throw WeirError.unsupported('a SESSION window table function must be followed by GROUP BY window_start, window_end', {
            span: plan.span,
            help: 'aggregate the session windows: SELECT …, window_start, window_end, COUNT(*) FROM TABLE(SESSION(…)) GROUP BY …, window_start, window_end',
          })
        }
        const input = lower(plan.input)
        id = add('window-assign', { kind: 'WindowAssign', window: plan.window, timeIndex: plan.timeIndex, timeDomain: plan.timeDomain }, [{ node: input,
          exchange: forward }], plan, mode)
        break
      }
      case 'ProcessTable': {
        const { fn } = plan
        const changelog = fn.changelog === 'retract' ?
          { changelog: 'retract' as const }
          : fn.changelog === 'upsert' ?
          { changelog: 'upsert' as const, upsertKey: fn.upsertKey }
          : {}
        id = add('process-function', { kind: 'ProcessFunction', function: fn.name, module: fn.module, keys: plan.keys,
          input: plan.input.fields.map(f => ({ name: f.name, type: declaredFloat(fn.input, f.name) ?? withoutTimeAttr(f.type) })), output: fn.output,
          args: plan.args, states: fn.states, timers: fn.timers, ...changelog }, [{ node: lower(plan.input), exchange: keyed(plan.keys) }], plan, mode)
        if (fn.changelog === 'upsert' && !upsertAsIs(plan)) {
          // Its consumers need retractions: the last row per upsert key turns each upsert into -U/+U and a delete by key into the row's -D.
          const keys = processUpsertKey(plan.keys.length, fn.output, fn.upsertKey)
          id = add('changelog-normalize', { kind: 'UpsertMaterialize', keys, ttlMs: config.stateTtlMs, upsertInput: true }, [{ node: id,
            exchange: keyed(keys) }], plan, mode)
        }
        break
      }
      case 'Over': {
        const spec = overAggregateSpec(plan)
        id = add('over-aggregate', spec, [{ node: lower(plan.input), exchange: keyed(plan.partitionKeys) }], plan, mode)
        break
      }
      case 'Deduplicate':
      case 'Rank': {
        const spec = rankSpec(plan, changelogOf(plan.input).mode === 'updating')
        const keys = plan.kind === 'Rank' ? plan.partitionKeys : plan.keys
        id = add(plan.kind === 'Rank' ? 'rank' : 'deduplicate', spec, [{ node: lower(plan.input), exchange: keyed(keys) }], plan, mode)
        break
      }
      case 'Sort': {
        const inputUpdating = changelogOf(plan.input).mode === 'updating'
        id = add(plan.emit === 'first' ? 'limit' : 'sort', { kind: 'Sort', orderKeys: plan.orderKeys, limit: plan.limit, emit: plan.emit,
          width: plan.input.fields.length, inputUpdating }, [{ node: lower(plan.input), exchange: keyed([]) }], plan, mode)
        break
      }
      case 'Union': {
        const inputs = plan.inputs.map(i => ({ node: lower(i), exchange: forward }))
        id = add('union', { kind: 'Union' }, inputs, plan, mode)
        break
      }
      case 'Join': {
        const spec = plan.time === undefined ? joinSpec(plan) : timeJoinSpec(plan)
        id = add('join', spec, [{ node: lower(plan.left), exchange: keyed(spec.left.keys) }, { node: lower(plan.right), exchange: keyed(spec.right.keys) }],
          plan, mode)
        break
      }
      case 'TemporalJoin': {
        const spec = temporalJoinSpec(plan)
        id = add('temporal-join', spec, [{ node: lower(plan.left), exchange: keyed(spec.leftKeys) }, { node: lower(plan.right),
          exchange: keyed(spec.rightKeys) }], plan, mode)
        break
      }
      case 'SemiJoin':
      case 'SetOp':
      case 'ScalarJoin':
      case 'MarkerJoin': {
        const s = subquerySpec(plan)
        id = add(s.name, s.spec, [{ node: lower(plan.left), exchange: keyed(s.leftKeys) }, { node: lower(plan.right), exchange: keyed(s.rightKeys) }], plan,
          mode)
        break
      }
      case 'Sink': {
        let input = lower(plan.input)
        const upsertKeys = materializerKeys(plan)
        if (upsertKeys !== undefined) {
          input = add('upsert-materialize', { kind: 'UpsertMaterialize', keys: upsertKeys, ttlMs: config.stateTtlMs }, [{ node: input,
            exchange: keyed(upsertKeys) }], plan, 'updating')
        }
        const inputChangelog = changelogOf(plan.input).mode
        if (plan.table) {
          const t = plan.table
          const written = writtenColumns(t)
          const primaryKey = t.primaryKey.map(k => written.findIndex(c => c.name === k)).filter(i => i >= 0)
          const options = connectorOptions(t.options)
          const notNull = written.flatMap((c, i) => (!c.type.nullable && plan.fields[i]!.type.nullable ? [i] : []))
          const metadata = written.some(c => c.kind === 'metadata') ? { metadata: written.map(c => c.metadataKey ?? null) } : {}
          id = add('sink', { kind: 'Sink', table: t.name, connector: t.options['connector']!, options, schema: plan.fields, ...metadata, inputChangelog,
            primaryKey, ...(notNull.length > 0 ? { notNull } : {}), ...(plan.overwrite ? { overwrite: true } : {}),
            ...((t.partitionKeys ?? []).length > 0 ? { partitionKeys: t.partitionKeys } : {}),
            ...(plan.staticPartition ? { staticPartition: plan.staticPartition } : {}) }, [{ node: input, exchange: forward }], plan, mode)
        } else {
          id = add('collect', { kind: 'Collect', schema: plan.fields, inputChangelog }, [{ node: input, exchange: forward }], plan, mode)
        }
        break
      }
      default:
        return assertNever(plan)
    }
    memo.set(plan, id)
    return id
  }
  for (const p of plans) lower(p)
  // Identical subtrees, planned apart, become one operator read by each (reuse.ts).
  const merged = reuseSubPlans(nodes, config)
  return Object.keys(merged.reused).length === 0 ? { name, nodes, config } : { name, nodes: merged.nodes, config, reused: merged.reused }
}

function sourceSpec(scan: Scan, over?: readonly Rex[]): OperatorSpec {
  const table = scan.table
  const { fields, computed } = tableFields(table)
  // Physical row index of each table column (computed columns have none).
  const physicalIndex: number[] = []
  let p = 0
  for (const c of table.columns) physicalIndex.push(c.kind === 'computed' ? -1 : p++)
  const read = table.columns.filter(c => c.kind !== 'computed')
  const physicalSchema = read.map(c => ({ name: c.name, type: c.type }))
  const metadata = read.some(c => c.kind === 'metadata') ? { metadata: read.map(c => c.metadataKey ?? null) } : {}
  const fullRow: Rex[] = table.columns.map((c, i) => (c.kind === 'computed' ? computed[i]! : inputRef(physicalIndex[i]!, fields[i]!.type)))
  const scanned = scan.columns.map(i => fullRow[i]!)
  const projection = over ? over.map(e => substituteInputs(e, scanned)) : scanned
  const filter = scan.filter ? substituteInputs(scan.filter, scanned) : undefined
  let watermark: { expr: Rex; column: string; text: string } | undefined
  if (table.watermark) {
    const wm = bindExpr(table.watermark.expr, { scope: Scope.of(fields), clause: 'WATERMARK' })
    watermark = { expr: substituteInputs(wm, fullRow), column: table.watermark.column, text: sqlText(table.watermark.expr) }
  }
  const options = connectorOptions(table.options)
  const alignment = watermarkAlignment(table.options, table.watermark !== undefined)
  return {
    kind: 'Source',
    table: table.name,
    connector: table.options['connector']!,
    options,
    physicalSchema,
    projection,
    filter,
    watermark,
    ...metadata,
    ...((table.partitionKeys ?? []).length > 0 ? { partitionKeys: table.partitionKeys } : {}),
    ...(alignment !== undefined ? { alignment } : {}),
  }
}

/** A compact rendering of a watermark expression for EXPLAIN (from its AST). */
function sqlText(e: import('../../grammar/ast.js').Expr): string {
  switch (e.kind) {
    case 'ColumnRef':
      return e.name.parts.map(p => p.value).join('.')
    case 'IntervalLiteral':
      return `INTERVAL '${e.negative ? '-' : ''}${e.text}' ${e.unit}`
    case 'BinaryOp':
      return `${sqlText(e.left)} ${e.op} ${sqlText(e.right)}`
    case 'Literal':
      return e.type === 'string' ? `'${e.text}'` : e.text
    case 'FunctionCall':
      return `${e.name.value}(${e.args.map(sqlText).join(', ')})`
    default:
      return e.kind
  }
}

/**
 * Each subtask owns at least one key group, so a job cannot have more subtasks than key groups.
 * Checked when the job is planned, so a file with such a job starts none of its jobs.
 */
function checkParallelism({ parallelism, maxParallelism }: JobConfig): void {
  if (parallelism > maxParallelism) {
    throw WeirError.plan(`'parallelism.default' = ${parallelism} exceeds 'pipeline.max-parallelism' = ${maxParallelism}`, {
      help: 'each subtask owns at least one key group; lower the parallelism or raise the max-parallelism',
    })
  }
}

/** A sketch cannot forget a value: as Flink refuses an aggregate without retract() over an updating input. */
function refuseUnretractable(aggs: readonly AggCall[], span: Span | undefined): void {
  const user = aggs.find(a => a.user !== undefined && !a.user.retract)
  if (user !== undefined) {
    throw WeirError.unsupported(`the user aggregate '${user.user!.name}' cannot consume an updating input: it defines no retract (${user.name})`, {
      span,
      help: `add retract(acc, …args) to its definition in ${user.user!.module}, or apply it to an insert-only input (a table or a window aggregate)`,
    })
  }
  const call = aggs.find(a => a.fn === 'APPROX_COUNT_DISTINCT')
  if (call === undefined) return
  throw WeirError.unsupported(`APPROX_COUNT_DISTINCT cannot consume an updating input: its HyperLogLog sketch cannot retract a value (${call.name})`, {
    span,
    help: 'apply it to an insert-only input (a table or a window aggregate), or use COUNT(DISTINCT …), which retracts',
  })
}

/** A column the process function declares FLOAT reaches it as one (rounded to 32 bits), whatever number its input holds. */
function declaredFloat(declared: readonly Field[], name: string): DataType | undefined {
  const d = declared.find(x => x.name.toLowerCase() === name.toLowerCase())
  return d !== undefined && d.type.kind === 'DOUBLE' && d.type.float === true ? d.type : undefined
}
