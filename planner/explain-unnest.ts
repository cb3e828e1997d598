// The EXPLAIN line of UNNEST (Flink shows a Correlate of its UNNEST function): what it expands, the
// columns each element becomes, and whether a row without elements stays (LEFT).
import type { Field } from '../common/types.js'
import type { PhysicalNode } from '../core/job-graph.js'
import type { UnnestSpec } from '../core/unnest.js'
import { formatRex } from './rex-format.js'

export function describeUnnest(s: UnnestSpec, node: PhysicalNode, input: readonly Field[], mode: string): string {
  const added = node.schema.slice(input.length).map(f => f.name)
  const element = added.slice(0, s.width).join(', ')
  const ordinality = s.ordinality ? `, ordinality=[${added[s.width]}]` : ''
  return `Unnest(collection=[${formatRex(s.collection, input)}], ${s.shape === 'map' ? 'entry' : 'element'}=[${element}]${ordinality}, joinType=[${
    s.outer ? 'LEFT' : 'INNER'
  }], ${mode})`
}
