// Watermark alignment, as Flink's table options name it: sources of one alignment group are read so
// that none runs ahead of the group's slowest by more than the group's maximum drift. A source that
// is ahead is paused (its next chunk waits) until the others catch up, end, or go idle. Without it, a
// job reads whichever source has a chunk ready, so a source whose chunks span more event time (a
// table of rare events beside one of frequent events) runs ahead, and a join keeps that side's rows
// (and on RocksDB re-reads them) until the other side reaches their time.
import { WeirError } from '../common/errors.js'
import { parseDuration } from '../common/durations.js'
import { aboutKey, aboutValue } from './options.js'

export const ALIGNMENT_GROUP = 'scan.watermark.alignment.group'
export const ALIGNMENT_MAX_DRIFT = 'scan.watermark.alignment.max-drift'
/** Flink's period for announcing watermarks to the group; Weir compares them at every chunk, so it only checks it. */
export const ALIGNMENT_UPDATE_INTERVAL = 'scan.watermark.alignment.update-interval'

const KEYS: readonly string[] = [ALIGNMENT_GROUP, ALIGNMENT_MAX_DRIFT, ALIGNMENT_UPDATE_INTERVAL]

/** An option the runtime reads for any source, not its connector. */
export function isAlignmentOption(key: string): boolean {
  return KEYS.includes(key)
}

export interface WatermarkAlignment {
  readonly group: string
  /** Milliseconds of event time a source may run ahead of the group's slowest source. */
  readonly maxDriftMs: number
}

/**
 * A table's alignment, from its options, or undefined when it names no group. Throws, naming the
 * option, for a group without a drift or a watermark, a drift without a group, or a value that is not
 * a duration.
 */
export function watermarkAlignment(options: Readonly<Record<string, string>>, hasWatermark: boolean): WatermarkAlignment | undefined {
  const group = options[ALIGNMENT_GROUP]
  const drift = options[ALIGNMENT_MAX_DRIFT]
  const interval = options[ALIGNMENT_UPDATE_INTERVAL]
  for (const [key, text] of [[ALIGNMENT_MAX_DRIFT, drift], [ALIGNMENT_UPDATE_INTERVAL, interval]] as const) {
    if (text !== undefined && parseDuration(text) === null) {
      throw aboutValue(WeirError.connector(`invalid value '${text}' for option '${key}': expected a duration such as '1 s', '5 min' or '500 ms'`), key)
    }
  }
  if (group === undefined) {
    const stray = drift !== undefined ? ALIGNMENT_MAX_DRIFT : interval !== undefined ? ALIGNMENT_UPDATE_INTERVAL : undefined
    if (stray === undefined) return undefined
    throw aboutKey(
      WeirError.connector(`option '${stray}' needs '${ALIGNMENT_GROUP}'`, {
        help: `name the alignment group the table's source belongs to: '${ALIGNMENT_GROUP}' = 'g1'`,
      }),
      stray,
    )
  }
  if (group.trim() === '') throw aboutValue(WeirError.connector(`option '${ALIGNMENT_GROUP}' must name a group`), ALIGNMENT_GROUP)
  if (drift === undefined) {
    throw aboutKey(
      WeirError.connector(`an alignment group needs '${ALIGNMENT_MAX_DRIFT}'`, {
        help: `add '${ALIGNMENT_MAX_DRIFT}' = '1 min' (how far ahead of the group's slowest source this one may read)`,
      }),
      ALIGNMENT_GROUP,
    )
  }
  if (!hasWatermark) {
    throw aboutKey(
      WeirError.connector(`watermark alignment needs a watermark: the table has no WATERMARK FOR clause`, {
        help: `add WATERMARK FOR <time column> AS <time column> - INTERVAL '5' SECOND, or remove '${ALIGNMENT_GROUP}'`,
      }),
      ALIGNMENT_GROUP,
    )
  }
  return { group, maxDriftMs: parseDuration(drift)! }
}
