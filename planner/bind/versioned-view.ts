// A deduplicating view as the versioned side of an event-time temporal join, as in Flink:
//   CREATE VIEW v AS SELECT k, x, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1
// over an append-only `t` whose `ts` is its rowtime. Its PARTITION BY columns are its primary key and
// each row of `t` is a version of its key from its `ts` on. The join reads `t`'s rows as they are,
// without the deduplication: the temporal join keeps each key's versions by time itself and finds the
// one valid at a probe's time, which is what the view holds at that time. A keep-last Deduplicate
// would only drop rows (an older row arriving after a newer one of its key is never emitted, so the
// probes between the two would miss it), keep a row per key forever, and double the changes (-U/+U).
import type { Span } from '../../common/span.js'
import { WeirError } from '../../common/errors.js'
import { changelogOf, describe } from '../changelog.js'
import type { Deduplicate, Filter, LogicalPlan, Project, Rank } from '../logical/nodes.js'

/** The rows of a deduplicating view read as versions: `plan` has the view's columns, without its deduplication. */
export interface ViewVersions {
  readonly plan: LogicalPlan
  /** The PARTITION BY columns, in the view's output. */
  readonly keys: readonly number[]
  /** The ORDER BY rowtime column, in the view's output. */
  readonly time: number
}

const FORM = 'SELECT … FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY <key> ORDER BY <rowtime> DESC) AS rn FROM <append-only table>) WHERE rn = 1'

/**
 * The versions of `view` (its optimized plan) when it is a deduplication under projections;
 * undefined when it is no ranking at all (a table, or another view: the caller checks it as a table).
 * A ranking that is not a versioned view (keep-first, processing-time order, no watermark, a Top-N,
 * an updating input, a condition above it, its key or time not selected) is refused at `at`.
 */
export function viewVersions(view: LogicalPlan, name: string, at: Span): ViewVersions | undefined {
  const above: (Project | Filter)[] = []
  let node = view
  while (node.kind === 'Project' || node.kind === 'Filter') {
    above.push(node)
    node = node.input
  }
  if (node.kind !== 'Deduplicate' && node.kind !== 'Rank') return undefined
  const refuse = (what: string, help: string) => WeirError.plan(`'${name}' is not a versioned view: it ${what}`, { span: at, help })
  const dedup = asVersionedDedup(node, refuse)
  const filter = above.find(n => n.kind === 'Filter')
  if (filter !== undefined) {
    // The view holds a key's latest row only if it passes: the same as testing the version found, in ON.
    throw refuse(
      'filters its deduplicated rows (a condition beside the one on the row number)',
      `move that condition out of the view into the join's ON clause: there it is tested against the version found, which is what the view meant`,
    )
  }
  const inputFields = dedup.input.fields
  const keys = dedup.keys.map(k => outputOf(k, above))
  const missing = dedup.keys.filter((_, i) => keys[i]! < 0).map(k => inputFields[k]!.name)
  if (dedup.keys.length === 0) {
    throw refuse('has no PARTITION BY (it keeps one row in all)', `partition the view's ROW_NUMBER() by the key the join looks up: ${FORM}`)
  }
  if (missing.length > 0) {
    throw refuse(
      `does not select its PARTITION BY column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, the primary key of a versioned view`,
      `add ${missing.join(', ')} to the view's SELECT list`,
    )
  }
  const time = outputOf(dedup.timeIndex, above)
  if (time < 0) {
    const t = inputFields[dedup.timeIndex]!.name
    throw refuse(`does not select its time attribute ${t}, each version's time`, `add ${t} to the view's SELECT list`)
  }
  // The view's projections over the deduplication's input (which has the same columns).
  let plan: LogicalPlan = dedup.input
  for (let i = above.length - 1; i >= 0; i--) plan = { ...(above[i] as Project), input: plan }
  return { plan, keys, time }
}

/** The node as a keep-last event-time Deduplicate over an append-only input, or the reason it is not one. */
function asVersionedDedup(node: Deduplicate | Rank, refuse: (what: string, help: string) => WeirError): Deduplicate {
  const input = node.input
  if (node.kind === 'Rank') {
    const top1 = node.fn === 'ROW_NUMBER' && node.start === 1 && node.end === 1 && node.window === undefined
    if (!top1) {
      const range = node.start === node.end ? `= ${node.start}` : node.start === 1 ? `<= ${node.end}` : `BETWEEN ${node.start} AND ${node.end}`
      throw refuse(`is a ${node.window ? 'window ' : ''}Top-N (${node.fn}() ${range}), not a deduplication`, `a versioned view keeps one row per key: ${FORM}`)
    }
    if (changelogOf(input).mode === 'updating') {
      throw refuse(
        `deduplicates an updating input (${describe(changelogOf(input).origin ?? input)})`,
        'a versioned view deduplicates an append-only table; a changelog table with a PRIMARY KEY and a watermark is versioned itself: join it FOR SYSTEM_TIME AS OF',
      )
    }
    const order = node.orderKeys.map(k => input.fields[k.index]!.name).join(', ')
    throw refuse(
      `orders its ROW_NUMBER() by ${order}, which is not a rowtime (a column with a watermark)`,
      node.orderKeys.length > 1 ?
        'order by the rowtime column alone, DESC' :
        `declare WATERMARK FOR ${order} AS … on the table the view reads, so that ${order} is its rowtime`,
    )
  }
  if (node.timeDomain === 'processing') {
    const t = node.input.fields[node.timeIndex]!.name
    throw refuse(
      `deduplicates by processing time (ORDER BY ${t}), so its rows have no event time to be looked up AS OF`,
      `order the view's ROW_NUMBER() by the rowtime column of its table (declared with WATERMARK FOR), DESC; or join AS OF a PROCTIME() column of the probe side`,
    )
  }
  if (!node.keepLast) {
    const t = node.input.fields[node.timeIndex]!.name
    throw refuse(
      `keeps the first row per key (ORDER BY ${t} ASC), where a versioned view keeps the last`,
      `order the view's ROW_NUMBER() by ${t} DESC`,
    )
  }
  return node
}

/** The output column of `above` (top first) that is input column `col` of the lowest node, or -1. */
function outputOf(col: number, above: readonly (Project | Filter)[]): number {
  let c = col
  for (let i = above.length - 1; i >= 0 && c >= 0; i--) {
    const n = above[i]!
    if (n.kind === 'Project') c = n.exprs.findIndex(e => e.kind === 'Input' && e.index === c)
  }
  return c
}
