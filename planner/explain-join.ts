// EXPLAIN text of a regular join: its line, and its state per side (shape, key, TTL, bounded).
import { formatDuration } from '../common/durations.js'
import type { Field } from '../common/types.js'
import type { JoinSideSpec, JoinSpec, PhysicalNode } from '../core/job-graph.js'
import { keepsAppendedRows } from '../core/join-layout.js'
import { formatRex } from './rex-format.js'

const TYPES: Record<JoinSpec['joinType'], string> = { INNER: 'InnerJoin', LEFT: 'LeftOuterJoin', RIGHT: 'RightOuterJoin', FULL: 'FullOuterJoin' }

/** Its columns, as [left fields, right fields]. */
function sidesOf(node: PhysicalNode, s: JoinSpec): [readonly Field[], readonly Field[]] {
  return [node.schema.slice(0, s.left.width), node.schema.slice(s.left.width)]
}

export function describeJoin(node: PhysicalNode, s: JoinSpec, mode: string): string {
  const [left, right] = sidesOf(node, s)
  const equi = s.left.keys.map((k, i) => `${left[k]!.name} = ${right[s.right.keys[i]!]!.name}`)
  const residual = s.residual === undefined ? '' : `, where=[${formatRex(s.residual, node.schema)}]`
  return `Join(joinType=[${TYPES[s.joinType]}], equi=[${equi.join(', ')}]${residual}, select=[${node.schema.map(f => f.name).join(', ')}], ${mode})`
}

export function joinStateLines(node: PhysicalNode, s: JoinSpec, warnings: string[]): string[] {
  const [left, right] = sidesOf(node, s)
  return [sideLine('left', s.left, left, node, warnings), sideLine('right', s.right, right, node, warnings)]
}

function sideLine(name: string, side: JoinSideSpec, fields: readonly Field[], node: PhysicalNode, warnings: string[]): string {
  const names = (cols: readonly number[]) => cols.map(c => fields[c]!.name).join(', ')
  const value = side.outer ? 'row, match count' : 'row'
  const shape = keepsAppendedRows(side)
    ? 'ListState<rows> per join key (insert-only input: rows appended)'
    : side.uniqueKey === undefined
    ? `MapState<row, count${side.outer ? ', match count' : ''}> per join key`
    : `MapState<unique key [${side.uniqueKey.length > 0 ? names(side.uniqueKey) : 'one row'}], ${value}> per join key`
  const ttl = side.ttlMs > 0 ? formatDuration(side.ttlMs) : 'none'
  const bounded = side.ttlMs > 0 ? `yes: rows idle for ${formatDuration(side.ttlMs)} expire` : 'NO: every row is kept until it is retracted'
  if (side.ttlMs === 0 && !side.updating) {
    warnings.push(
      `${node.id} (Join) keeps every row of its ${name} input forever, so its state grows without bound; `
        + `set 'table.exec.state.ttl' (e.g. SET 'table.exec.state.ttl' = '1 d') or a /*+ STATE_TTL('<alias of the ${name} input>' = '1 d') */ hint`,
    )
  }
  return `state ${name}: ${shape}; key=[${names(side.keys)}]; ttl=[${ttl}]; bounded=[${bounded}]`
}
