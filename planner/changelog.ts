// Changelog-mode inference: which streams are insert-only and which carry updates, and who made them.
import { WeirError } from '../common/errors.js'
import { assertNever } from '../common/assert.js'
import type { ChangelogMode } from '../core/job-graph.js'
import { getConnector } from '../connectors/registry.js'
import type { LogicalPlan } from './logical/nodes.js'
import { describeSubqueryNode, subqueryChangelog } from './subquery/traits.js'
import { connectorOptions } from './catalog.js'

const cache = new WeakMap<LogicalPlan, { mode: ChangelogMode; origin?: LogicalPlan }>()

/** The node's output changelog mode and, for an updating stream, the operator that first produced updates. */
export function changelogOf(plan: LogicalPlan): { mode: ChangelogMode; origin?: LogicalPlan } {
  const hit = cache.get(plan)
  if (hit) return hit
  const result = infer(plan)
  cache.set(plan, result)
  return result
}

function infer(plan: LogicalPlan): { mode: ChangelogMode; origin?: LogicalPlan } {
  switch (plan.kind) {
    case 'Scan':
      // A table whose format is a changelog (debezium-json) is updating from its scan on.
      return sourceChangelog(plan.table.options) === 'updating' ? { mode: 'updating', origin: plan } : { mode: 'insert-only' }
    case 'Values':
      return { mode: 'insert-only' }
    case 'Project':
    case 'Expand':
    case 'Unnest':
    case 'Filter':
    case 'Sink':
      return changelogOf(plan.input)
    case 'Aggregate':
      return { mode: 'updating', origin: plan }
    case 'WindowAggregate':
    case 'WindowTvf': {
      const input = changelogOf(plan.input)
      if (input.mode === 'updating') {
        throw WeirError.unsupported(
          `a window ${plan.kind === 'WindowTvf' ? 'table function' : 'aggregate'} cannot consume the updates produced by ${describe(input.origin!)}`,
          {
            span: plan.span,
            help: input.origin!.kind === 'Scan'
              ? `window an insert-only stream: group the changelog of '${
                input.origin!.table.name
              }' with a GROUP BY instead, or read its events as rows ('format' = 'json')`
              : 'window an insert-only stream: move the window before the GROUP BY, or aggregate the window output instead',
          },
        )
      }
      return { mode: 'insert-only' }
    }
    case 'Deduplicate':
      // Only keep-first on processing time is final at once; an event-time first row can be replaced by an earlier one.
      return !plan.keepLast && plan.timeDomain === 'processing' ? { mode: 'insert-only' } : { mode: 'updating', origin: plan }
    case 'Rank':
      return plan.window !== undefined ? { mode: 'insert-only' } : { mode: 'updating', origin: plan }
    case 'Sort':
      // Sorted once when the input ends or as time passes, or the first rows of an insert-only input.
      return { mode: 'insert-only' }
    case 'ProcessTable': {
      // Its handler sees rows, not changes: an update of its input would reach it as a plain row.
      const input = changelogOf(plan.input)
      if (input.mode === 'updating') {
        throw WeirError.unsupported(
          `process table function '${plan.fn.name}' takes insert-only input, but its input has the updates produced by ${describe(input.origin!)}`,
          {
            span: plan.span,
            help: 'call it on an append-only table or query (before the GROUP BY, join or Top-N that produces updates)',
          },
        )
      }
      // A function declared changelog: 'retract' or 'upsert' emits changes of its rows.
      return plan.fn.changelog !== 'insert-only' ? { mode: 'updating', origin: plan } : { mode: 'insert-only' }
    }
    case 'Over':
      // OVER aggregates append one row per input row; an updating input is refused when lowered.
      return changelogOf(plan.input)
    case 'Union': {
      const updating = plan.inputs.map(changelogOf).find(c => c.mode === 'updating')
      return updating ?? { mode: 'insert-only' }
    }
    case 'Join': {
      // Interval and window joins emit each result once, when it is final (their inputs are append-only).
      if (plan.time !== undefined) return { mode: 'insert-only' }
      // An outer join retracts its NULL-padded rows; an inner join of insert-only inputs only inserts.
      if (plan.joinType !== 'INNER') return { mode: 'updating', origin: plan }
      const updating = [plan.left, plan.right].map(changelogOf).find(c => c.mode === 'updating')
      return updating ?? { mode: 'insert-only' }
    }
    case 'TemporalJoin':
      // Each probe row is joined once, with its own kind: the versions' updates produce none.
      return changelogOf(plan.left)
    case 'SemiJoin':
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return subqueryChangelog(plan, changelogOf)
    default:
      return assertNever(plan)
  }
}

/** The changelog a table's rows form as its connector reads them (SourceFactory.changelogMode). */
function sourceChangelog(tableOptions: Readonly<Record<string, string>>): ChangelogMode {
  const source = getConnector(tableOptions['connector']!).source
  if (source?.changelogMode === undefined) return 'insert-only'
  return source.changelogMode(connectorOptions(tableOptions))
}

/** Human description of a node for messages: "the GROUP BY at line 3". */
export function describe(plan: LogicalPlan): string {
  const where = plan.span.start.line > 0 ? ` at line ${plan.span.start.line}, column ${plan.span.start.column}` : ''
  switch (plan.kind) {
    case 'Scan': {
      const format = plan.table.options['value.format'] ?? plan.table.options['format']
      return `table '${plan.table.name}'${format === undefined ? '' : ` (format '${format}', a changelog)`}${where}`
    }
    case 'Aggregate':
      return `${plan.distinct ? 'the DISTINCT' : 'the GROUP BY aggregate'}${where}`
    case 'Join':
      return `the ${plan.joinType === 'FULL' ? 'FULL OUTER' : plan.joinType} JOIN${where}`
    case 'Deduplicate':
      return `the deduplication (ROW_NUMBER … = 1, keep ${plan.keepLast ? 'last' : 'first'})${where}`
    case 'Rank':
      return `the Top-N (${plan.fn} … <= ${plan.end})${where}`
    case 'ProcessTable':
      return `process table function '${plan.fn.name}'${where}`
    case 'TemporalJoin':
      return `the temporal ${plan.joinType} JOIN${where}`
    case 'SemiJoin':
    case 'SetOp':
    case 'ScalarJoin':
    case 'MarkerJoin':
      return `${describeSubqueryNode(plan)}${where}`
    default:
      return `the ${plan.kind}${where}`
  }
}

/** Rejects a plan whose sink cannot take the updates its query produces. */
export function checkChangelog(plan: LogicalPlan): void {
  if (plan.kind !== 'Sink') return
  const input = changelogOf(plan.input)
  if (input.mode !== 'updating' || !plan.table) return
  const factory = getConnector(plan.table.options['connector']!)
  const options = connectorOptions(plan.table.options)
  if (!factory.sink!.acceptsUpdates(options)) {
    const origin = input.origin!
    // A changelog read from a table cannot be made insert-only by the query (a window refuses it too).
    const orInsertOnly = origin.kind === 'Scan' ? '' : ', or make the query insert-only (e.g. a window aggregate)'
    throw WeirError.plan(
      `table '${plan.table.name}' (connector '${factory.name}'${
        options['format'] ? `, format '${options['format']}'` : ''
      }) can only take inserts, but the query produces updates from ${describe(origin)}`,
      {
        span: origin.span,
        help: factory.name === 'filesystem'
          ? `set 'format' = 'debezium-json' on '${plan.table.name}' to write a changelog${orInsertOnly}`
          : factory.name === 'kafka'
          ? `write to an 'upsert-kafka' table with a PRIMARY KEY (its messages are keyed upserts and tombstones), or set 'value.format' = 'debezium-json' on '${plan.table.name}' to write change events${orInsertOnly}`
          : `write to a sink that accepts updates (print, blackhole, or filesystem with debezium-json)${
            orInsertOnly === '' ? '' : ', or make the query insert-only'
          }`,
      },
    )
  }
}
