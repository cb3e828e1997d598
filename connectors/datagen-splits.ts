// The splits of the datagen source. Row i (0-based, of 'number-of-rows' or a sequence's length) is
// a sequence field's start + i, so the rows can be shared out without coordination: split
// (stride m, residue r) makes the rows i ≡ r (mod m). At parallelism P a fresh run has the P splits
// (P, k), one per subtask, each paced at 'rows-per-second' / P, so the subtasks together make the
// table's rows and sequences exactly once, as Flink's datagen does at parallelism P. Random fields
// are those of one generator seeded by 'seed' drawing row after row, as at parallelism 1: a split's
// generator passes over the other splits' rows (it counts their draws without making their values,
// `RowSkipper`), so a seeded table has the same rows at any parallelism.
//
// A split's position is the index of its next row, the generator's state there and the clock its
// timestamps count from. Restored at another parallelism the splits are dealt again whole (split j of
// the checkpoint to subtask j mod P), never cut, so every row is made once with the values of an
// uninterrupted run. The price: restored at a higher parallelism, the extra subtasks get no rows of
// that run.
import { WeirError } from '../common/errors.js'
import { Mulberry32 } from '../common/random.js'
import type { SplitPosition } from './api.js'

/** The largest stride a re-mapping may reach; beyond it a restore is refused. */
export const MAX_DATAGEN_STRIDE = 5040

/**
 * A datagen split and where it is: the rows i ≥ next with i ≡ residue (mod stride).
 *
 * @example { rows: 2048, rng: 2914405157, clock: 1767225600000 } (one split), { rows: 2049, rng: 77, clock: 1767225600000, stride: 2, residue: 1 }
 */
export interface DatagenSplit {
  /** The index of the split's next row (at stride 1, the rows made so far). */
  readonly rows: number
  readonly rng: number
  /** When row 0 was scheduled (epoch ms); NaN until a fresh split's first rows. */
  readonly clock: number
  readonly stride: number
  readonly residue: number
}

/** The position a checkpoint stores for a split ({ rows, rng, clock } at stride 1, as before splits). */
export function datagenPosition(s: DatagenSplit): SplitPosition {
  const base = { rows: s.rows, rng: s.rng, clock: s.clock }
  return s.stride === 1 ? base : { ...base, stride: s.stride, residue: s.residue }
}

/** Advances a generator past `rows` rows' draws, without making their values. */
export type RowSkipper = (rng: Mulberry32, rows: number) => void

/**
 * The split of subtask `index` of `parallelism` on a fresh start; `seed` is 'seed' or a random one:
 * its generator starts where row `index` starts.
 */
export function freshDatagenSplits(index: number, parallelism: number, seed: number, skip: RowSkipper): DatagenSplit[] {
  const rng = new Mulberry32(seed)
  skip(rng, index)
  return [{ rows: index, rng: rng.state, clock: NaN, stride: parallelism, residue: index }]
}

/** The splits subtask `index` of `parallelism` resumes from every split of a checkpoint, by residue. */
export function restoredDatagenSplits(restored: readonly (SplitPosition | null)[], table: string, index: number, parallelism: number, seed: number,
  skip: RowSkipper): DatagenSplit[]
{
  // A run at parallelism 1 before its first chunk recorded nothing: its one split from the start.
  if (restored.length === 1 && restored[0] === null) return freshDatagenSplits(index, parallelism, seed, skip)
  const old = restored.map((p, i) => parse(p, i, restored.length, table))
  let stride = 1
  for (const s of old) stride = lcm(stride, s.stride)
  if (stride > MAX_DATAGEN_STRIDE) {
    throw WeirError.checkpoint(`the ${old.length} datagen splits of table '${table}' interleave ${stride} ways (at most ${MAX_DATAGEN_STRIDE})`, {
      help: 'the checkpoint was not written by this version of Weir, or was edited; start over with --fresh',
    })
  }
  const covered = new Set<number>()
  for (const s of old) {
    for (let t = 0; t < stride / s.stride; t++) {
      const residue = (s.rows + t * s.stride) % stride
      if (covered.has(residue)) {
        throw WeirError.checkpoint(`the checkpoint's datagen splits of table '${table}' overlap: row residue ${residue} (mod ${stride}) is in two of them`, {
          help: 'the checkpoint was not written by this version of Weir, or was edited; start over with --fresh',
        })
      }
      covered.add(residue)
    }
  }
  if (covered.size !== stride) {
    throw WeirError.checkpoint(`the checkpoint's datagen splits of table '${table}' leave out rows (${stride - covered.size} of ${stride} residues)`, {
      help: 'the checkpoint was not written by this version of Weir, or was edited; start over with --fresh',
    })
  }
  // Whole splits are dealt, never cut: each goes on with its own generator, so random fields give
  // exactly the values of an uninterrupted run (at the parallelism the splits were made at).
  return old.filter((_, j) => j % parallelism === index)
}

function parse(p: SplitPosition | null, i: number, count: number, table: string): DatagenSplit {
  const o = (typeof p === 'object' && p !== null ? p : {}) as Partial<Record<keyof DatagenSplit, unknown>>
  const isUint = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max
  const stride = o.stride ?? 1, residue = o.residue ?? 0
  const ok = isUint(o.rows, Number.MAX_SAFE_INTEGER) && isUint(o.rng, 0xffffffff) &&
    (o.clock === null || (typeof o.clock === 'number' && (Number.isFinite(o.clock) || Number.isNaN(o.clock)))) &&
    isUint(stride, MAX_DATAGEN_STRIDE) && stride >= 1 && isUint(residue, stride - 1) && o.rows % stride === residue
  if (!ok) {
    const which = count === 1 ? '' : `split ${i + 1} of ${count} of `
    throw WeirError.checkpoint(`the checkpoint holds an invalid position for ${which}table '${table}': ${JSON.stringify(p)}`, {
      help:
        `a datagen source's position is { rows, rng, clock } (and stride, residue at parallelism > 1); was the checkpoint taken with another connector for '${table}'?`,
    })
  }
  // A split recorded before its first rows has no clock yet: NaN, which a checkpoint's manifest keeps
  // as NaN (plain JSON would make it null: read as NaN too).
  return { rows: o.rows as number, rng: o.rng as number, clock: o.clock === null ? NaN : o.clock as number, stride, residue }
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b
}
