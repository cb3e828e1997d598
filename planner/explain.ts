// EXPLAIN text for a job graph: operators, keys, exchanges, changelog modes, and for every stateful
// operator its state (shape, key, TTL) and whether that state is bounded, with warnings.
import { slicesHop } from '../core/window-slicing.js'
import { assertNever } from '../common/assert.js'
import type { Field } from '../common/types.js'
import { formatDuration } from '../common/durations.js'
import type { JobGraph, PhysicalNode } from '../core/job-graph.js'
import type { AggCall } from '../core/aggregates.js'
import type { WindowSpec } from '../core/windows.js'
import { formatRex } from './rex-format.js'
import { estimatedCosts } from './explain-cost.js'
import { describeJoin, joinStateLines } from './explain-join.js'
import { dedupStateLine, describeDeduplicate, describeRank, describeSort, sortStateLine, rankStateLine } from './explain-rank.js'
import { describeTemporalJoin, temporalJoinStateLines } from './explain-temporal-join.js'
import { describeSubqueryNode, subqueryStateLines } from './explain-subquery.js'
import { describeOverAggregate, overStateLines } from './explain-over.js'
import { describeTimeJoin, timeJoinStateLines } from './explain-time-join.js'
import { describeUnnest } from './explain-unnest.js'
import { describeGlobalAggregate, describeLocalAggregate } from './explain-two-phase.js'
import { describeProcessFunction, processFunctionStateLines } from './explain-process-function.js'

export interface ExplainOptions {
  /** EXPLAIN CHANGELOG_MODE: print row kinds Flink-style (I, UB, UA, D) on every operator. */
  readonly changelogMode?: boolean
  /** EXPLAIN ESTIMATED_COST: each operator's rows, rate and cumulative rows as far as Weir can derive them (explain-cost.ts). */
  readonly estimatedCost?: boolean
  /** EXPLAIN PLAN_ADVICE: the warnings about unbounded state given as Flink's advice section. */
  readonly planAdvice?: boolean
}

export function explainJobGraph(graph: JobGraph, opts: ExplainOptions = {}): string {
  const byId = new Map(graph.nodes.map(n => [n.id, n]))
  const inputsOf: InputsOf = n => n.inputs.map(e => byId.get(e.node)!)
  const roots = graph.nodes.filter(n => n.spec.kind === 'Sink' || n.spec.kind === 'Collect')
  const costs = opts.estimatedCost === true ? estimatedCosts(graph) : undefined
  const lines: string[] = ['== Physical Plan ==']
  const warnings: string[] = []
  // A node several operators read (a source a statement set shares, a subquery sub-plan reuse computes
  // once: physical/reuse.ts) is printed once, with the id its other readers refer to, as Flink prints a reused node.
  const readers = new Map<string, number>()
  for (const n of graph.nodes) for (const e of n.inputs) readers.set(e.node, (readers.get(e.node) ?? 0) + 1)
  const reuseIds = new Map<string, number>()
  const visit = (node: PhysicalNode, prefix: string, childPrefix: string): void => {
    const reused = reuseIds.get(node.id)
    if (reused !== undefined) {
      lines.push(`${prefix}Reused(reference_id=[${reused}])`)
      return
    }
    let reuse = ''
    if ((readers.get(node.id) ?? 0) > 1) {
      reuseIds.set(node.id, reuseIds.size + 1)
      reuse = `(reuse_id=[${reuseIds.size}])`
    }
    const inputFields = node.inputs.length > 0 ? byId.get(node.inputs[0]!.node)!.schema : []
    const cost = costs === undefined ? '' : `: ${costs.get(node.id)}`
    lines.push(`${prefix}${describeNode(node, inputFields, opts, inputsOf)}${reuse}${cost}`)
    for (const s of stateLines(node, inputFields, warnings)) lines.push(`${childPrefix}${node.inputs.length ? '|  ' : '   '}${s}`)
    node.inputs.forEach((edge, i) => {
      const last = i === node.inputs.length - 1
      const child = byId.get(edge.node)!
      let p = `${childPrefix}+- `
      let cp = `${childPrefix}${last ? '   ' : '|  '}`
      if (edge.exchange.kind !== 'forward') {
        const ex = edge.exchange.kind === 'hash'
          ? `Exchange(distribution=[hash[${edge.exchange.keys.map(k => child.schema[k]?.name ?? `$${k}`).join(', ')}]])`
          : 'Exchange(distribution=[single])'
        lines.push(`${p}${ex}`)
        p = `${cp}+- `
        cp = `${cp}   `
      }
      visit(child, p, cp)
    })
  }
  for (const r of roots) visit(r, '', '')
  if (opts.planAdvice === true) {
    lines.push('', '== Plan Advice ==')
    if (warnings.length === 0) lines.push('No available advice: no operator keeps state that grows without bound.')
    warnings.forEach((w, i) => lines.push(`advice[${i + 1}]: [WARNING] ${w}`))
  } else if (warnings.length) {
    lines.push('', '== Warnings ==')
    for (const w of warnings) lines.push(`warning: ${w}`)
  }
  return lines.join('\n')
}

/**
 * One operator of `graph` as EXPLAIN prints it (its line, without the tree), for run-time errors.
 * @example explainOperator(graph, '1-source') // 'Source(table=[gen], connector=[datagen], fields=[id], changelog=[insert-only])'
 */
export function explainOperator(graph: JobGraph, id: string): string | undefined {
  const node = graph.nodes.find(n => n.id === id)
  if (node === undefined) return undefined
  const input = node.inputs.length > 0 ? graph.nodes.find(n => n.id === node.inputs[0]!.node)?.schema ?? [] : []
  return describeNode(node, input, {}, n => n.inputs.map(e => graph.nodes.find(m => m.id === e.node)!))
}

function mode(node: PhysicalNode, opts: ExplainOptions, inputsOf: InputsOf): string {
  // An update that is its +U alone (no consumer reads -U rows): Flink's ONLY_UPDATE_AFTER.
  const noBefore = (node.spec.kind === 'UpsertMaterialize' && node.spec.upsertInput !== true)
    || (node.spec.kind === 'ProcessFunction' && node.spec.changelog === 'upsert') ||
    (node.spec.kind === 'GroupAggregate' && node.spec.emitUpdateBefore === false)
  if (!opts.changelogMode) return `changelog=[${node.changelog}${noBefore ? ', no -U' : ''}]`
  if (node.changelog === 'insert-only') return 'changelogMode=[I]'
  return `changelogMode=[I,${noBefore ? '' : 'UB,'}UA${mayDelete(node, inputsOf) ? ',D' : ''}]`
}

/**
 * Whether an updating node's rows may include deletions, as Flink's changelog modes tell: not those of
 * a group aggregate or a keep-last deduplication over an insert-only input (a group, once there, only
 * changes), nor what a projection, a filter or a sink passes on of such a stream.
 */
function mayDelete(node: PhysicalNode, inputsOf: InputsOf): boolean {
  const inputs = inputsOf(node)
  switch (node.spec.kind) {
    case 'GroupAggregate':
    case 'Deduplicate':
      return inputs.some(i => i.changelog !== 'insert-only')
    case 'Calc':
    case 'Sink':
    case 'Collect':
      return inputs.some(i => i.changelog !== 'insert-only' && mayDelete(i, inputsOf))
    default:
      return true
  }
}

function names(fields: readonly Field[]): string {
  return fields.map(f => f.name).join(', ')
}

export function formatWindow(w: WindowSpec): string {
  const off = (o: number): string => (o ? `, offset=${formatDuration(o)}` : '')
  switch (w.kind) {
    case 'TUMBLE':
      return `TUMBLE(size=${formatDuration(w.size)}${off(w.offset)})`
    case 'HOP':
      return `HOP(slide=${formatDuration(w.slide)}, size=${formatDuration(w.size)}${off(w.offset)})`
    case 'CUMULATE':
      return `CUMULATE(step=${formatDuration(w.step)}, max=${formatDuration(w.maxSize)}${off(w.offset)})`
    case 'SESSION':
      return `SESSION(gap=${formatDuration(w.gap)})`
    default:
      return assertNever(w)
  }
}

function formatAgg(a: AggCall, input: readonly Field[], outName: string): string {
  const arg = a.arg === null ? '*' : input[a.arg]?.name ?? `$${a.arg}`
  const filter = a.filter === null ? '' : ` FILTER (WHERE ${input[a.filter]?.name ?? `$${a.filter}`})`
  const separator = a.separator !== undefined
    ? `, '${a.separator.replaceAll("'", "''")}'`
    : a.percentile !== undefined
    ? `, ${a.percentile.q}, ${a.percentile.accuracy}`
    : a.percentages !== undefined
    ? `, ${a.percentages.array ? `ARRAY[${a.percentages.values.join(', ')}]` : a.percentages.values[0]}${
      a.valueArg !== undefined ? `, ${input[a.valueArg]?.name ?? `$${a.valueArg}`}` : ''
    }`
    : ''
  if (a.valueArg !== undefined && a.fn === 'JSON_OBJECTAGG') {
    return `${a.fn}(KEY ${arg} VALUE ${input[a.valueArg]?.name ?? `$${a.valueArg}`})${filter} AS ${outName}`
  }
  return `${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${arg}${separator}${a.ignoreNulls === true ? ' IGNORE NULLS' : ''})${filter} AS ${outName}`
}

/** The nodes a node reads. */
type InputsOf = (node: PhysicalNode) => readonly PhysicalNode[]

function describeNode(node: PhysicalNode, input: readonly Field[], opts: ExplainOptions, inputsOf: InputsOf): string {
  const s = node.spec
  const m = mode(node, opts, inputsOf)
  switch (s.kind) {
    case 'Source': {
      const physical = s.physicalSchema
      const select = s.projection.map((r, i) => {
        const text = formatRex(r, physical)
        return text === node.schema[i]!.name ? text : `${text} AS ${node.schema[i]!.name}`
      })
      const parts = [`table=[${s.table}]`, `connector=[${s.connector}]`, `fields=[${select.join(', ')}]`]
      if (s.filter) parts.push(`filter=[${formatRex(s.filter, physical)}]`)
      if (s.watermark) parts.push(`watermark=[${s.watermark.text}]`)
      return `Source(${parts.join(', ')}, ${m})`
    }
    case 'Values':
      return `Values(rows=[${s.rows.length}], ${m})`
    case 'Expand':
      return `Expand(projects=[${s.projections.map(p => `{${p.map(r => formatRex(r, input)).join(', ')}}`).join(', ')}], ${m})`
    case 'Unnest':
      return describeUnnest(s, node, input, m)
    case 'Calc': {
      const select = s.projection.map((r, i) => {
        const text = formatRex(r, input)
        return text === node.schema[i]!.name ? text : `${text} AS ${node.schema[i]!.name}`
      })
      return `Calc(select=[${select.join(', ')}]${s.condition ? `, where=[${formatRex(s.condition, input)}]` : ''}, ${m})`
    }
    case 'WindowAssign':
      return `WindowTableFunction(window=[${formatWindow(s.window)}], time=[${input[s.timeIndex]?.name}${
        s.timeDomain === 'processing' ? ' (proctime)' : ''
      }], ${m})`
    case 'WindowAggregate': {
      const k = s.keys.length
      const aggs = s.aggs.map((a, i) => formatAgg(a, input, node.schema[k + i]!.name))
      const time = s.attached
        ? `attached=[window_start=${input[s.attached.start]?.name}, window_end=${input[s.attached.end]?.name}]`
        : `time=[${input[s.timeIndex]?.name}${s.timeDomain === 'processing' ? ' (proctime)' : ''}]`
      return `WindowAggregate(window=[${formatWindow(s.window)}], ${time}, groupBy=[${s.keys.map(i => input[i]!.name).join(', ')}], select=[${
        [...s.keys.map(i => input[i]!.name), ...aggs, 'window_start', 'window_end', 'window_time'].join(', ')
      }], ${m})`
    }
    case 'GroupAggregate': {
      const k = s.keys.length
      if (s.phase === 'global') return describeGlobalAggregate(s, node, input, m)
      const onePhase = s.onePhase === undefined ? '' : `, onePhase=[${s.onePhase}]`
      if (s.aggs.length === 0) return `Distinct(keys=[${s.keys.map(i => input[i]!.name).join(', ')}]${onePhase}, ${m})`
      const aggs = s.aggs.map((a, i) => formatAgg(a, input, node.schema[k + i]!.name))
      return `GroupAggregate(groupBy=[${s.keys.map(i => input[i]!.name).join(', ')}], select=[${[...s.keys.map(i => input[i]!.name), ...aggs].join(', ')}]${
        s.inputUpdating ? ', consumesRetractions=[true]' : ''
      }${onePhase}, ${m})`
    }
    case 'LocalGroupAggregate':
      return describeLocalAggregate(s, node, input, m, formatAgg)
    case 'OverAggregate':
      return describeOverAggregate(s, node, input, m, formatAgg)
    case 'Union':
      return `Union(all=[true], ${m})`
    case 'Join':
      return describeJoin(node, s, m)
    case 'TemporalJoin':
      return describeTemporalJoin(node, s, m)
    case 'SemiJoin':
    case 'WindowSemiJoin':
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return describeSubqueryNode(node, s, input, m)
    case 'IntervalJoin':
    case 'WindowJoin':
      return describeTimeJoin(node, s, m)
    case 'Sink':
      return `Sink(table=[${s.table}], connector=[${s.connector}], fields=[${names(s.schema)}], ${m})`
    case 'Collect':
      return `Collect(fields=[${names(s.schema)}], ${m})`
    case 'Deduplicate':
      return describeDeduplicate(s, input, m)
    case 'Rank':
      return describeRank(s, input, m)
    case 'Sort':
      return describeSort(s, input, m)
    case 'UpsertMaterialize':
      return `${s.upsertInput ? 'ChangelogNormalize' : 'UpsertMaterialize'}(key=[${s.keys.map(i => node.schema[i]!.name).join(', ')}], ${m})`
    case 'ProcessFunction':
      return describeProcessFunction(s, input, m)
    default:
      return assertNever(s)
  }
}

function stateLines(node: PhysicalNode, input: readonly Field[], warnings: string[]): string[] {
  const s = node.spec
  const keyNames = (keys: readonly number[]): string => (keys.length ? keys.map(i => input[i]!.name).join(', ') : '(none: one global group)')
  switch (s.kind) {
    case 'WindowAggregate': {
      const mapStates = s.aggs.filter(a => a.distinct && keyedState(a, input) === undefined).map(a =>
        `MapState<${a.arg === null ? '*' : input[a.arg]!.name}, count> per window for ${a.fn}(DISTINCT)`
      ).concat(s.aggs.flatMap(a => keyedState(a, input) ?? []).map(m => `${m} per window`))
      const shape = s.window.kind === 'SESSION'
        ? 'ValueState<sessions + accumulators> per key'
        : slicesHop(s)
        ? 'ValueState<accumulators of its slices> per key'
        : 'ValueState<accumulators> per (key, window)'
      const cleanup = s.timeDomain === 'event' ? 'cleared when the watermark passes the window end' : 'cleared when processing time passes the window end'
      return [`state: ${[shape, ...mapStates].join('; ')}; key=[${keyNames(s.keys)}]; ttl=[not needed]; bounded=[yes: ${cleanup}]`]
    }
    case 'GroupAggregate': {
      const retract = s.inputUpdating
      const maps = s.aggs
        .filter(a => keyedState(a, input) === undefined && (a.distinct || (retract && (a.fn === 'MIN' || a.fn === 'MAX'))))
        .map(a => `MapState<${a.arg === null ? '*' : input[a.arg]!.name}, count> for ${a.fn}(${a.distinct ? 'DISTINCT ' : ''}…)`)
        .concat(s.aggs.flatMap(a => keyedState(a, input) ?? []))
      // FIRST_VALUE, LAST_VALUE and LISTAGG over retractions keep their values in arrival order (operators/aggregates-sequence.ts).
      // Calls of one argument and FILTER share one pair.
      const sequences = new Map<string, string[]>()
      for (const a of retract ? s.aggs : []) {
        if (a.fn !== 'FIRST_VALUE' && a.fn !== 'LAST_VALUE' && a.fn !== 'LISTAGG' && a.fn !== 'ARRAY_AGG') continue
        const name = input[a.arg!]!.name
        const at = `${a.arg}/${a.filter}`
        if (!sequences.has(at)) sequences.set(at, [name])
        sequences.get(at)!.push(a.fn)
      }
      for (const [name, ...fns] of sequences.values()) maps.push(`MapState<position, ${name}> and MapState<${name}, positions> for ${fns.join(', ')}`)
      const shape = s.aggs.length === 0 ? 'ValueState<row count> per key' : 'ValueState<accumulators> per key'
      const ttl = s.ttlMs > 0 ? formatDuration(s.ttlMs) : 'none'
      const bounded = s.ttlMs > 0
        ? `yes: keys idle for ${formatDuration(s.ttlMs)} expire`
        : s.keys.length === 0
        ? 'yes: a single group'
        : 'NO: one entry per distinct key, kept forever'
      if (s.ttlMs === 0 && s.keys.length > 0) {
        warnings.push(
          `${node.id} (${s.phase === 'global' ? 'GlobalGroupAggregate' : s.aggs.length === 0 ? 'Distinct' : 'GroupAggregate'} on [${
            keyNames(s.keys)
          }]) keeps state for every key forever, so its state grows without bound; `
            + `set 'table.exec.state.ttl' (e.g. SET 'table.exec.state.ttl' = '1 h') or add a /*+ STATE_TTL('<alias>' = '1 h') */ hint`,
        )
      }
      return [`state: ${[shape, ...maps].join('; ')}; key=[${keyNames(s.keys)}]; ttl=[${ttl}]; bounded=[${bounded}]`]
    }
    case 'Join':
      return joinStateLines(node, s, warnings)
    case 'Deduplicate':
      return [dedupStateLine(node.id, s, input, warnings)]
    case 'Rank':
      return [rankStateLine(node.id, s, input, warnings)]
    case 'Sort':
      return [sortStateLine(s)]
    case 'TemporalJoin':
      return temporalJoinStateLines(node, s)
    case 'SemiJoin':
    case 'WindowSemiJoin':
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return subqueryStateLines(node, s, input, warnings)
    case 'OverAggregate':
      return overStateLines(s, node, input, warnings)
    case 'IntervalJoin':
    case 'WindowJoin':
      return timeJoinStateLines(node, s)
    case 'UpsertMaterialize': {
      const ttl = s.ttlMs > 0 ? formatDuration(s.ttlMs) : 'none'
      const bounded = s.ttlMs > 0 ? `yes: keys idle for ${formatDuration(s.ttlMs)} expire` : 'NO: the live rows of every sink key, kept until deleted'
      return [
        `state: ${
          s.upsertInput
            ? 'ValueState<last row> per upsert key (its consumers need retractions of the upsert stream)'
            : "ValueState<live rows> per sink key (the query's rows are not unique by the sink's PRIMARY KEY)"
        }; key=[${s.keys.map(i => node.schema[i]!.name).join(', ')}]; ttl=[${ttl}]; bounded=[${bounded}]`,
      ]
    }
    case 'ProcessFunction':
      return processFunctionStateLines(node, s, input, warnings)
    case 'Source':
    case 'Values':
    case 'LocalGroupAggregate':
    case 'Calc':
    case 'Expand':
    case 'Unnest':
    case 'WindowAssign':
    case 'Union':
    case 'Sink':
    case 'Collect':
      return []
    default:
      return assertNever(s)
  }
}

/** The MapState of an aggregate that keeps its values keyed by value (operators/aggregates-keyed.ts), or undefined. */
function keyedState(a: AggCall, input: readonly Field[]): string | undefined {
  const arg = a.arg === null ? '*' : input[a.arg]?.name ?? `$${a.arg}`
  switch (a.fn) {
    case 'JSON_OBJECTAGG':
      return `MapState<${arg}, JSON text> for JSON_OBJECTAGG`
    case 'COLLECT':
      return `MapState<${arg}, count> for COLLECT(${a.distinct ? 'DISTINCT ' : ''}…)`
    case 'APPROX_COUNT_DISTINCT':
      return `MapState<register, rank> (HyperLogLog, 2^14 registers) for APPROX_COUNT_DISTINCT(${arg})`
    case 'APPROX_PERCENTILE':
      return `MapState<bucket, count> (DDSketch, relative accuracy ${a.percentile?.accuracy}) for APPROX_PERCENTILE(${arg})`
    case 'PERCENTILE':
      return `MapState<value, count> for PERCENTILE(${arg})`
    case 'ARRAY_AGG':
      return a.distinct ? `MapState<${arg}, [count, order]> for ARRAY_AGG(DISTINCT …)` : undefined
    default:
      return undefined
  }
}
