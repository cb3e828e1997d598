// EXPLAIN lines of deduplication and Top-N: the operator, and its state (shape, key, TTL, bounded).
import type { SortSpec } from '../core/sort.js'
import type { Field } from '../common/types.js'
import { formatDuration } from '../common/durations.js'
import type { DeduplicateSpec, OrderKey, RankSpec } from '../core/rank.js'

const names = (keys: readonly number[], input: readonly Field[]): string =>
  keys.length ? keys.map(i => input[i]!.name).join(', ') : '(none: one global partition)'

function orderText(keys: readonly OrderKey[], input: readonly Field[]): string {
  return keys.map(k => `${input[k.index]!.name} ${k.descending ? 'DESC' : 'ASC'}`).join(', ')
}

export function describeDeduplicate(s: DeduplicateSpec, input: readonly Field[], mode: string): string {
  return `Deduplicate(keep=[${s.keepLast ? 'LastRow' : 'FirstRow'}], key=[${names(s.keys, input)}], order=[${input[s.timeIndex]!.name}${
    s.timeDomain === 'processing' ? ' (proctime)' : ''
  }], ${mode})`
}

export function describeRank(s: RankSpec, input: readonly Field[], mode: string): string {
  const range = s.start === s.end ? `rank=${s.start}` : `rankRange=[${s.start}..${s.end}]`
  return `${s.window ? 'WindowRank' : 'Rank'}(rankType=[${s.fn}], ${range}, partitionBy=[${names(s.partitionKeys, input)}], orderBy=[${
    orderText(s.orderKeys, input)
  }], outputRank=[${s.outputRank}]${s.inputUpdating ? ', consumesRetractions=[true]' : ''}, ${mode})`
}

const UNBOUNDED_HELP = "set 'table.exec.state.ttl' (e.g. SET 'table.exec.state.ttl' = '1 h') or add a /*+ STATE_TTL('<alias>' = '1 h') */ hint"

export function dedupStateLine(id: string, s: DeduplicateSpec, input: readonly Field[], warnings: string[]): string {
  const shape = !s.keepLast && s.timeDomain === 'processing' ? 'ValueState<seen marker> per key' : 'ValueState<kept row> per key'
  const ttl = s.ttlMs > 0 ? formatDuration(s.ttlMs) : 'none'
  const bounded = s.ttlMs > 0 ? `yes: keys idle for ${ttl} expire` : s.keys.length === 0 ? 'yes: a single key' : 'NO: one entry per distinct key, kept forever'
  if (s.ttlMs === 0 && s.keys.length > 0) {
    warnings.push(`${id} (Deduplicate on [${names(s.keys, input)}]) keeps a row for every key forever, so its state grows without bound; ${UNBOUNDED_HELP}`)
  }
  return `state: ${shape}; key=[${names(s.keys, input)}]; ttl=[${ttl}]; bounded=[${bounded}]`
}

export function rankStateLine(id: string, s: RankSpec, input: readonly Field[], warnings: string[]): string {
  const key = `key=[${names(s.partitionKeys, input)}]`
  if (s.window) {
    const clock = s.window.timeDomain === 'event' ? 'the watermark' : 'processing time'
    return `state: MapState<slot, (row, count)> per (partition, window), at most ${s.end} rows (plus ties); ${key}; ttl=[not needed]; bounded=[yes: cleared when ${clock} passes the window end]`
  }
  const ttl = s.ttlMs > 0 ? formatDuration(s.ttlMs) : 'none'
  const shape = s.inputUpdating
    ? 'MapState<slot, (row, count)> per partition, every row of the partition (a retraction can promote the next one)'
    : `MapState<slot, (row, count)> per partition, at most ${s.end} rows (plus ties)`
  const bounded = s.ttlMs > 0 ? `yes: partitions idle for ${ttl} expire` : s.partitionKeys.length === 0 && !s.inputUpdating
    ? 'yes: one partition'
    : s.inputUpdating
    ? 'NO: every row of every partition, kept forever'
    : 'NO: one entry set per distinct partition key, kept forever'
  if (s.ttlMs === 0 && (s.partitionKeys.length > 0 || s.inputUpdating)) {
    warnings.push(
      `${id} (Rank on [${names(s.partitionKeys, input)}]) keeps state for every partition forever, so its state grows without bound; ${UNBOUNDED_HELP}`,
    )
  }
  return `state: ${shape}; ${key}; ttl=[${ttl}]; bounded=[${bounded}]`
}

/** `Sort(orderBy=[…], fetch=[n], …)` as Flink prints a bounded sort, or `Limit(fetch=[n])` for the first rows. */
export function describeSort(s: SortSpec, input: readonly Field[], mode: string): string {
  const fetch = s.limit === null ? '' : `fetch=[${s.limit}], `
  if (s.emit === 'first') return `Limit(${fetch}${mode})`
  const emit = s.emit === 'end' ? 'when the input ends' : `as the watermark passes ${input[s.orderKeys[0]!.index]!.name}`
  return `${s.emit === 'time' ? 'TemporalSort' : 'Sort'}(orderBy=[${orderText(s.orderKeys, input)}], ${fetch}emit=[${emit}], ${mode})`
}

export function sortStateLine(s: SortSpec): string {
  if (s.emit === 'first') return 'state: ValueState<rows passed>; key=[(none: one global group)]; ttl=[not needed]; bounded=[yes: one count]'
  if (s.emit === 'time') {
    return "state: ValueState<rows> per timestamp; key=[(none: one global group)]; ttl=[not needed]; bounded=[yes: a timestamp's rows go when the watermark passes it]"
  }
  const shape = s.inputUpdating ? 'MapState<row, count>' : 'ListState<rows>'
  return `state: ${shape}; key=[(none: one global group)]; ttl=[not needed]; bounded=[yes: the input is bounded; emptied when it ends]`
}
