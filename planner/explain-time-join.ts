// EXPLAIN text of interval and window joins: the regular join's line with its time bound, and the
// state of each side, which time frees (no TTL needed, bounded).
import { formatDuration } from '../common/durations.js'
import type { IntervalJoinSpec, JoinSideSpec, JoinSpec, PhysicalNode, WindowJoinSpec } from '../core/job-graph.js'
import { describeJoin } from './explain-join.js'

/** A signed duration: '-10 s', '0 ms'. */
function signed(ms: number): string {
  return ms < 0 ? `-${formatDuration(-ms)}` : formatDuration(ms)
}

export function describeTimeJoin(node: PhysicalNode, s: IntervalJoinSpec | WindowJoinSpec, mode: string): string {
  const regular = describeJoin(node, { ...s, kind: 'Join' } satisfies JoinSpec, mode)
  const left = node.schema.slice(0, s.left.width), right = node.schema.slice(s.left.width)
  const bound = s.kind === 'IntervalJoin'
    ? `interval=[${left[s.leftTime]!.name} - ${right[s.rightTime]!.name} BETWEEN ${signed(s.lower)} AND ${signed(s.upper)}], time=[${s.timeDomain}]`
    : `window=[${formatWindowSpec(s.window)}]`
  // Join(joinType=[…], equi=[…], … → IntervalJoin(joinType=[…], equi=[…], interval=[…], …
  const at = regular.indexOf('], ', regular.indexOf('equi=[')) + 3
  return `${s.kind}${regular.slice('Join'.length, at)}${bound}, ${regular.slice(at)}`
}

export function formatWindowSpec(w: WindowJoinSpec['window']): string {
  switch (w.kind) {
    case 'TUMBLE':
      return `TUMBLE(size=${formatDuration(w.size)})`
    case 'HOP':
      return `HOP(slide=${formatDuration(w.slide)}, size=${formatDuration(w.size)})`
    case 'CUMULATE':
      return `CUMULATE(step=${formatDuration(w.step)}, max=${formatDuration(w.maxSize)})`
    case 'SESSION':
      return `SESSION(gap=${formatDuration(w.gap)})`
  }
}

export function timeJoinStateLines(node: PhysicalNode, s: IntervalJoinSpec | WindowJoinSpec): string[] {
  const left = node.schema.slice(0, s.left.width), right = node.schema.slice(s.left.width)
  const line = (name: string, side: JoinSideSpec, fields: typeof left, freed: string) => {
    const shape = s.kind === 'IntervalJoin'
      ? `ListState<${side.outer ? 'row, time, matched' : 'row'}> per (join key, time bucket)`
      : 'ValueState<rows> per join key and window'
    return `state ${name}: ${shape}; key=[${side.keys.map(c => fields[c]!.name).join(', ')}]; ttl=[none: freed by time]; bounded=[yes: ${freed}]`
  }
  if (s.kind === 'WindowJoin') {
    const freed = "a window's rows go when the watermark passes its end"
    return [line('left', s.left, left, freed), line('right', s.right, right, freed)]
  }
  const clock = s.timeDomain === 'event' ? 'the watermark' : 'processing time'
  return [
    line('left', s.left, left, `a row goes when ${clock} passes its ${left[s.leftTime]!.name} ${plus(-s.lower)}`),
    line('right', s.right, right, `a row goes when ${clock} passes its ${right[s.rightTime]!.name} ${plus(s.upper)}`),
  ]
}

function plus(ms: number): string {
  return ms < 0 ? `- ${formatDuration(-ms)}` : `+ ${formatDuration(ms)}`
}
