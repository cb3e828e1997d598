// The splits of the nexmark source. Event n is a function of n alone, so the event sequence can be
// shared out without coordination: it is cut into blocks of SPLIT_BLOCK events, and a split is a
// residue class of blocks — split (stride m, residue r) holds the events of blocks b with b mod m = r.
// At parallelism P a fresh run has P splits (P, k), one per subtask; every split's events rise in
// number and in time, and the splits move through event time together (a block is 10 ms of event
// time at 100K events/s), so the minimum of their watermarks lags little. A split's position is the
// next event number it would consider.
//
// Restoring at another parallelism re-maps the splits: every split of the checkpoint (m, r, e) is cut
// into the finer classes (M, r + i·m, e) for M = lcm(every m, P), which cover exactly the events it
// had still to give, and subtask k takes the classes whose residue is k mod P. So no event is lost or
// given twice, whatever the parallelism was and is.
import { WeirError } from '../../common/errors.js'
import type { SplitPosition } from '../api.js'

/** Events per block of the interleaving (a multiple of the 50-event cycle of the default proportions). */
export const SPLIT_BLOCK = 1000

/** The largest stride a re-mapping may reach (lcm of the parallelisms a job ran at); beyond it a restore is refused. */
export const MAX_STRIDE = 5040

/**
 * A split and where it is: the events n ≥ event whose block floor(n / block) is ≡ residue (mod stride).
 * Stored as { event } for the one split of a run at parallelism 1 (as before splits existed).
 *
 * @example { event: 46000, stride: 2, residue: 1, block: 1000 }
 */
export interface NexmarkSplit {
  readonly event: number
  readonly stride: number
  readonly residue: number
  readonly block: number
}

/** The position a checkpoint stores for a split. */
export function splitPosition(s: NexmarkSplit): SplitPosition {
  return s.stride === 1 ? { event: s.event } : { event: s.event, stride: s.stride, residue: s.residue, block: s.block }
}

/** The splits of subtask `index` of `parallelism` on a fresh start. */
export function freshSplits(index: number, parallelism: number): NexmarkSplit[] {
  return [{ event: 0, stride: parallelism, residue: index, block: SPLIT_BLOCK }]
}

/**
 * The splits subtask `index` of `parallelism` resumes from the positions of every split of a
 * checkpoint (of all its subtasks, at whatever parallelism it ran), in residue order.
 */
export function restoredSplits(restored: readonly (SplitPosition | null)[], table: string, index: number, parallelism: number): NexmarkSplit[] {
  const old = restored.map((p, i) => parseSplit(p, i, restored.length, table))
  let stride = parallelism
  for (const s of old) stride = lcm(stride, s.stride)
  if (stride > MAX_STRIDE) {
    throw WeirError.checkpoint(
      `cannot re-map the ${old.length} nexmark splits of table '${table}' (strides ${[...new Set(old.map(s => s.stride))].join(', ')}) ` +
        `onto parallelism ${parallelism}: their events would need ${stride} splits (at most ${MAX_STRIDE})`,
      { help: `restore at the parallelism the checkpoint was taken at (or one dividing it), or start over with --fresh` },
    )
  }
  const covered = new Map<number, number>()
  const mine: NexmarkSplit[] = []
  for (const s of old) {
    for (let r = s.residue; r < stride; r += s.stride) {
      if (covered.has(r)) {
        throw WeirError.checkpoint(`the checkpoint's nexmark splits of table '${table}' overlap: block residue ${r} (mod ${stride}) is in two of them`, {
          help: 'the checkpoint was not written by this version of Weir, or was edited; start over with --fresh',
        })
      }
      covered.set(r, s.event)
      if (r % parallelism === index) mine.push({ event: s.event, stride, residue: r, block: SPLIT_BLOCK })
    }
  }
  if (covered.size !== stride) {
    const missing = Array.from({ length: stride }, (_, r) => r).filter(r => !covered.has(r))
    throw WeirError.checkpoint(
      `the checkpoint's nexmark splits of table '${table}' leave out part of the event sequence (block residues ${missing.slice(0, 5).join(', ')}${
        missing.length > 5 ? ', …' : ''
      } mod ${stride})`,
      { help: 'the checkpoint was not written by this version of Weir, or was edited; start over with --fresh' },
    )
  }
  return mine.sort((a, b) => a.residue - b.residue)
}

function parseSplit(p: SplitPosition | null, i: number, count: number, table: string): NexmarkSplit {
  // A run at parallelism 1 before its first chunk recorded nothing: its one split from the start.
  if (p === null && count === 1) return { event: 0, stride: 1, residue: 0, block: SPLIT_BLOCK }
  const o = (typeof p === 'object' && p !== null ? p : {}) as Partial<NexmarkSplit>
  const event = o.event
  const stride = o.stride ?? 1
  const residue = o.residue ?? 0
  const block = o.block ?? SPLIT_BLOCK
  const ok = typeof event === 'number' && Number.isSafeInteger(event) && event >= 0 && Number.isSafeInteger(stride) && stride >= 1 &&
    Number.isSafeInteger(residue) && residue >= 0 && residue < stride
  if (!ok) {
    const which = count === 1 ? '' : `split ${i + 1} of ${count} of `
    throw WeirError.checkpoint(`the checkpoint holds an invalid position for ${which}table '${table}': ${JSON.stringify(p)}`, {
      help: `a nexmark source's position is { event } or { event, stride, residue, block }; was the checkpoint taken with another connector for '${table}'?`,
    })
  }
  if (stride > 1 && block !== SPLIT_BLOCK) {
    throw WeirError.checkpoint(
      `cannot re-map split ${i + 1} of ${count} of table '${table}': it interleaves blocks of ${block} events, this version ${SPLIT_BLOCK}`,
      { help: 'restore with the version of Weir that took the checkpoint, or start over with --fresh' },
    )
  }
  return { event, stride, residue, block }
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b
}
