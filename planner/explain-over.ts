// EXPLAIN of an OVER aggregate: its line (partition, time order, calls with their frames) and its
// state — rows waiting for the watermark, rows the bounded frames still need, accumulators per key.
import type { Field } from '../common/types.js'
import { formatDuration } from '../common/durations.js'
import type { AggCall } from '../core/aggregates.js'
import type { PhysicalNode } from '../core/job-graph.js'
import type { OverAggregateSpec, OverFrameSpec } from '../core/over-aggregate.js'
import { describeRowCall, isFrameCall } from '../core/over-aggregate.js'

type FormatAgg = (a: AggCall, input: readonly Field[], outName: string) => string

export function describeOverAggregate(s: OverAggregateSpec, node: PhysicalNode, input: readonly Field[], mode: string, formatAgg: FormatAgg): string {
  const width = node.schema.length - s.calls.length
  const calls = s.calls.map((c, i) => {
    const name = node.schema[width + i]!.name
    return isFrameCall(c)
      ? formatAgg(c.agg, input, name).replace(/ AS [^ ]+$/, ` OVER (${frameText(c.frame)}) AS ${name}`)
      : `${describeRowCall(c, i => input[i]!.name)} AS ${name}`
  })
  return `OverAggregate(partitionBy=[${s.partitionKeys.map(i => input[i]!.name).join(', ')}], orderBy=[${input[s.timeIndex]!.name}${
    s.timeDomain === 'processing' ? ' (proctime)' : ''
  }], select=[${[...input.map(f => f.name), ...calls].join(', ')}], ${mode})`
}

export function overStateLines(s: OverAggregateSpec, node: PhysicalNode, input: readonly Field[], warnings: string[]): string[] {
  const key = s.partitionKeys.length > 0 ? s.partitionKeys.map(i => input[i]!.name).join(', ') : '(none: one global partition)'
  const frames = s.calls.flatMap(c => (isFrameCall(c) ? [c.frame] : []))
  const lags = s.calls.flatMap(c => (c.fn === 'LAG' ? [c.offset] : []))
  const bounded = frames.filter(f => f.preceding !== null)
  const shapes: string[] = []
  if (s.timeDomain === 'event') shapes.push('ValueState<rows> per (key, timestamp) of the rows waiting for the watermark (freed as it passes them)')
  if (bounded.length > 0) {
    shapes.push(`MapState<row number, row> of the rows the frames still need (${[...new Set(bounded.map(retention))].join('; ')})`)
  }
  if (frames.length > 0) shapes.push('ValueState<accumulators> per key and frame')
  if (lags.length > 0) shapes.push(`ValueState<the last ${lags.join(', ')} values of LAG's argument${lags.length > 1 ? 's' : ''}> per key`)
  shapes.push('ValueState<row count and frame heads> per key')
  // Only frames that are all bounded RANGE frames let a key's state go entirely once its rows leave them.
  const freed = frames.length === s.calls.length && frames.every(f => f.unit === 'RANGE' && f.preceding !== null)
  const unbounded = frames.some(f => f.preceding === null)
  let verdict: string
  if (freed) verdict = `yes: rows leave the frame by ${s.timeDomain === 'event' ? 'event' : 'processing'} time, and a key's state goes with its last row`
  else if (s.partitionKeys.length === 0) verdict = 'yes: one global partition'
  else if (unbounded) verdict = 'NO: the UNBOUNDED PRECEDING accumulators are one entry per partition key, kept forever'
  else verdict = 'NO: the frames are bounded per key, but every partition key keeps its entries forever'
  if (!freed && s.partitionKeys.length > 0) {
    warnings.push(
      `${node.id} (OverAggregate on [${key}]) keeps state for every partition key forever (${
        unbounded ? 'an UNBOUNDED PRECEDING accumulator' : 'its last rows and row count'
      }), so its state grows with the number of distinct keys; a RANGE BETWEEN INTERVAL … PRECEDING frame frees each key's state by time`,
    )
  }
  return [`state: ${shapes.join('; ')}; key=[${key}]; ttl=[not needed]; bounded=[${verdict}]`]
}

function retention(f: OverFrameSpec): string {
  return f.unit === 'ROWS' ? `ROWS: the last ${f.preceding! + 1} rows per key` : `RANGE: the rows of the last ${formatDuration(f.preceding!)} per key`
}

/** `ROWS BETWEEN 10 PRECEDING AND CURRENT ROW`, `RANGE BETWEEN INTERVAL '10' SECOND … ` as a duration. */
export function frameText(f: OverFrameSpec): string {
  const lower = f.preceding === null
    ? 'UNBOUNDED PRECEDING'
    : f.preceding === 0
    ? 'CURRENT ROW'
    : f.unit === 'ROWS'
    ? `${f.preceding} PRECEDING`
    : `${formatDuration(f.preceding)} PRECEDING`
  return `${f.unit} BETWEEN ${lower} AND CURRENT ROW`
}
