// EXPLAIN text of semi/anti joins, INTERSECT / EXCEPT and scalar-subquery joins: their line, and
// their state (shape, key, TTL, bounded), with a warning where it grows without bound.
import { formatDuration } from '../common/durations.js'
import type { Field } from '../common/types.js'
import type { PhysicalNode } from '../core/job-graph.js'
import type { MarkerJoinSpec, ScalarJoinSpec, SemiJoinSpec, SetOpSpec, WindowSemiJoinSpec } from '../core/subquery-specs.js'
import { formatWindowSpec } from './explain-time-join.js'

type Spec = SemiJoinSpec | WindowSemiJoinSpec | SetOpSpec | ScalarJoinSpec | MarkerJoinSpec

const cols = (fields: readonly Field[], keys: readonly number[]): string => (keys.length ? keys.map(k => fields[k]?.name ?? `$${k}`).join(', ') : '')

/** `left`: the schema of input 0. */
export function describeSubqueryNode(node: PhysicalNode, s: Spec, left: readonly Field[], mode: string): string {
  const select = node.schema.map(f => f.name).join(', ')
  switch (s.kind) {
    case 'SemiJoin': {
      const na = s.nullAware === undefined ? '' : `, nullAware=[${left[s.nullAware.left]!.name} NOT IN $${s.nullAware.right}]`
      return `Join(joinType=[${s.anti ? 'LeftAntiJoin' : 'LeftSemiJoin'}], leftKey=[${cols(left, s.leftKeys)}]${na}, select=[${select}], ${mode})`
    }
    case 'WindowSemiJoin': {
      const na = s.nullAware === undefined ? '' : `, nullAware=[${left[s.nullAware.left]!.name} NOT IN $${s.nullAware.right}]`
      return `WindowJoin(joinType=[${s.anti ? 'LeftAntiJoin' : 'LeftSemiJoin'}], leftKey=[${cols(left, s.leftKeys)}]${na}, window=[${
        formatWindowSpec(s.window)
      }], select=[${select}], ${mode})`
    }
    case 'SetOp':
      return `${s.op === 'INTERSECT' ? 'Intersect' : 'Minus'}(all=[${s.all}], select=[${select}], ${mode})`
    case 'ScalarJoin': {
      const key = s.keyed ? `, leftKey=[${cols(left, node.inputs[0]!.exchange.kind === 'hash' ? node.inputs[0]!.exchange.keys : [])}]` : ''
      return `Join(joinType=[LeftOuterJoin], scalarSubquery=[${s.label}]${key}, select=[${select}], ${mode})`
    }
    case 'MarkerJoin': {
      const values = s.leftValues.length ? `, nullAware=[${cols(left, s.leftValues)} IN $${s.rightValues.join(', $')}]` : ''
      return `Join(joinType=[LeftMarkJoin], leftKey=[${cols(left, s.leftKeys)}]${values}, select=[${select}], ${mode})`
    }
  }
}

export function subqueryStateLines(node: PhysicalNode, s: Spec, left: readonly Field[], warnings: string[]): string[] {
  if (s.kind === 'WindowSemiJoin') return windowSemiJoinStateLines(s, left)
  const ttl = s.ttlMs > 0 ? formatDuration(s.ttlMs) : 'none'
  const expire = s.ttlMs > 0 ? `yes: entries idle for ${formatDuration(s.ttlMs)} expire` : undefined
  const warn = (what: string) => {
    if (s.ttlMs === 0) {
      warnings.push(
        `${node.id} (${what}) keeps its state forever, so it grows without bound; set 'table.exec.state.ttl' (e.g. SET 'table.exec.state.ttl' = '1 h')`,
      )
    }
  }
  switch (s.kind) {
    case 'SemiJoin': {
      const key = s.leftKeys.length ? cols(left, s.leftKeys) : '(none: one global key)'
      const build = s.nullAware === undefined ? 'ValueState<right row count>' : 'MapState<right value, count> + ValueState<right rows, NULL values>'
      const probe = s.nullAware === undefined ? 'MapState<row, count>' : 'MapState<row, count> per left value + MapState<left value>'
      warn(s.anti ? 'anti join' : 'semi join')
      return [
        `state left: ${probe} per join key; key=[${key}]; ttl=[${ttl}]; bounded=[${expire ?? 'NO: every left row is kept until it is retracted'}]`,
        `state right: ${build} per join key; key=[${key}]; ttl=[${ttl}]; bounded=[${expire ?? 'NO: one entry per join key, kept forever'}]`,
      ]
    }
    case 'SetOp':
      warn(s.op === 'INTERSECT' ? 'Intersect' : 'Minus')
      return [
        `state: ValueState<left count, right count> per row; key=[the whole row]; ttl=[${ttl}]; bounded=[${
          expire ?? 'NO: one entry per distinct row, kept forever'
        }]`,
      ]
    case 'ScalarJoin': {
      warn('scalar subquery join')
      const keys = node.inputs[0]!.exchange.kind === 'hash' ? node.inputs[0]!.exchange.keys : []
      const key = keys.length ? cols(left, keys) : '(none: one global key)'
      return [
        `state left: MapState<row, count>${keys.length ? ' per correlation key' : ''}; key=[${key}]; ttl=[${ttl}]; bounded=[${
          expire ?? 'NO: every left row is kept until it is retracted'
        }]`,
        `state right: MapState<row, count> (at most one row${keys.length ? ' per key' : ''}); key=[${key}]; ttl=[${ttl}]; bounded=[${
          keys.length ? expire ?? 'NO: one row per correlation key, kept forever' : 'yes: one row'
        }]`,
      ]
    }
    case 'MarkerJoin': {
      warn('marker join')
      const key = s.leftKeys.length ? cols(left, s.leftKeys) : '(none: one global key)'
      const build = s.leftValues.length
        ? 'ValueState<right rows> + MapState<right values, count> (NULL-free and with NULLs apart)'
        : 'ValueState<right row count>'
      return [
        `state left: MapState<row, count> per key; key=[${key}]; ttl=[${ttl}]; bounded=[${expire ?? 'NO: every left row is kept until it is retracted'}]`,
        `state right: ${build} per key; key=[${key}]; ttl=[${ttl}]; bounded=[${expire ?? 'NO: entries per key, kept forever'}]`,
      ]
    }
  }
}

/** A window semi/anti join needs no TTL: a window's state goes when it closes. */
function windowSemiJoinStateLines(s: WindowSemiJoinSpec, left: readonly Field[]): string[] {
  const key = cols(left, s.leftKeys)
  const freed = "bounded=[yes: a window's rows go when the watermark passes its end]"
  const build = s.nullAware === undefined ? 'ValueState<has a row>' : 'ListState<right value>'
  return [
    `state left: ListState<row> per join key and window; key=[${key}]; ttl=[none: freed by time]; ${freed}`,
    `state right: ${build} per join key and window; key=[${key}]; ttl=[none: freed by time]; ${freed}`,
  ]
}
