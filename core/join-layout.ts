// How a regular join keeps one side's rows, decided by the side's spec alone: the operator
// (operators/join/) stores them so, EXPLAIN describes it, and a checkpoint's signature records it.
import type { JoinSideSpec } from './job-graph.js'

/**
 * An inner side whose input is insert-only and has no unique key: its rows are only ever added —
 * never retracted, never given a match count — so none is looked up again by value, and state keeps
 * them as a list per join key (one stored element per join key per input batch: the rows that batch
 * added under it, duplicates included).
 */
export function keepsAppendedRows(side: JoinSideSpec): boolean {
  return !side.outer && !side.updating && side.uniqueKey === undefined
}
