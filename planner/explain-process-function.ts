// EXPLAIN of a process table function: its call, and the state its module declares (shape, TTL,
// whether it is bounded), with a warning for each state kept forever.
import { formatDuration } from '../common/durations.js'
import type { Field } from '../common/types.js'
import type { PhysicalNode, ProcessFunctionSpec, ProcessStateInfo } from '../core/job-graph.js'

export function describeProcessFunction(s: ProcessFunctionSpec, input: readonly Field[], mode: string): string {
  const args = Object.entries(s.args).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')
  return `ProcessFunction(function=[${s.function}], partitionBy=[${s.keys.map(k => input[k]!.name).join(', ')}]${args ? `, args=[${args}]` : ''}, `
    + `output=[${s.output.map(f => f.name).join(', ')}]${s.changelog === 'upsert' ? `, upsertKey=[${upsertKeyNames(s, input)}]` : ''}, ${mode})`
}

/** The PARTITION BY columns and the declared upsert key: what identifies a row of an upsert function's output. */
function upsertKeyNames(s: ProcessFunctionSpec, input: readonly Field[]): string {
  return [...s.keys.map(k => input[k]!.name), ...(s.upsertKey ?? [])].join(', ')
}

function shape(st: ProcessStateInfo): string {
  const codec = st.codec === undefined ? '' : ` (codec ${st.codec})`
  return (st.kind === 'value' ? `ValueState '${st.name}'` : st.kind === 'list' ? `ListState '${st.name}'` : `MapState '${st.name}'`) + codec
}

export function processFunctionStateLines(node: PhysicalNode, s: ProcessFunctionSpec, input: readonly Field[], warnings: string[]): string[] {
  const key = s.keys.map(k => input[k]!.name).join(', ')
  const lines = s.states.map(st => {
    const ttl = st.ttlMs > 0 ? `${formatDuration(st.ttlMs)}${st.updateTtlOnRead ? ', on read and write' : ''}` : 'none'
    const bounded = st.ttlMs > 0 ? `yes: keys idle for ${formatDuration(st.ttlMs)} expire` : 'NO: kept until the function clears it'
    return `state: ${shape(st)} per key (ctx.state.${st.field}); key=[${key}]; ttl=[${ttl}]; bounded=[${bounded}]`
  })
  for (const st of s.states) {
    if (st.ttlMs > 0) continue
    warnings.push(`${node.id} (ProcessFunction ${s.function} on [${key}]): its ${shape(st)} has no TTL, so it is kept for every key until the function `
      + `clears it; declare one (${st.kind}State('${st.name}', { ttl: '1 h' })) unless the function clears it itself`)
  }
  if (s.timers) lines.push(`timers: event time and processing time, per key (checkpointed with the state)`)
  return lines
}
