// EXPLAIN text of a temporal join: its line, and its state (probe rows and versions, freed by time).
import type { Field } from '../common/types.js'
import type { PhysicalNode, TemporalJoinSpec } from '../core/job-graph.js'
import { formatRex } from './rex-format.js'

function sidesOf(node: PhysicalNode, s: TemporalJoinSpec): [readonly Field[], readonly Field[]] {
  return [node.schema.slice(0, s.leftWidth), node.schema.slice(s.leftWidth)]
}

export function describeTemporalJoin(node: PhysicalNode, s: TemporalJoinSpec, mode: string): string {
  const [left, right] = sidesOf(node, s)
  const type = s.joinType === 'INNER' ? 'InnerJoin' : 'LeftOuterJoin'
  const asOf = `${left[s.leftTime]!.name}${s.timeDomain === 'processing' ? ' (proctime)' : ''}`
  const version = s.timeDomain === 'event' ? `, versionTime=[${right[s.rightTime]!.name}]` : ''
  // A deduplicating view's rows come in as they are: the join keeps them by time, which is the view's deduplication.
  const view = s.versionedView === undefined ? '' : `, versions=[the rows of view ${s.versionedView}, deduplicated by time in this join]`
  const equi = s.leftKeys.map((k, i) => `${left[k]!.name} = ${right[s.rightKeys[i]!]!.name}`)
  const residual = s.residual === undefined ? '' : `, where=[${formatRex(s.residual, node.schema)}]`
  return `TemporalJoin(joinType=[${type}], asOf=[${asOf}]${version}${view}, equi=[${equi.join(', ')}]${residual}, select=[${
    node.schema.map(f => f.name).join(', ')
  }], ${mode})`
}

export function temporalJoinStateLines(node: PhysicalNode, s: TemporalJoinSpec): string[] {
  const [, right] = sidesOf(node, s)
  const key = `key=[${s.rightKeys.map(k => right[k]!.name).join(', ')}]`
  if (s.timeDomain === 'processing') {
    return [`state: ValueState<latest version> per key; ${key}; ttl=[none]; bounded=[yes: one row per key of the versioned table, a delete removes it]`]
  }
  return [
    `state probe: ListState<row> per (key, time) (rows waiting for the watermark); ${key}; ttl=[not needed]; bounded=[yes: freed by time, rows leave once the watermark passes their time]`,
    `state versions: MapState<time, version> per key; ${key}; ttl=[not needed]; bounded=[yes: freed by time, versions older than the one valid at the watermark are dropped; the latest version per key is kept (a deleted key keeps none)]`,
  ]
}
