// PERCENTILE's exact, continuous percentiles from a value → count map (Flink's PercentileAggFunction):
// with N values counted, percentage p falls at position p·(N − 1) + 1 of the sorted values (1-based);
// between two positions the result is interpolated linearly. NaN sorts above every number (Java's
// Double order).

/** The percentiles at `percentages` (each in [0, 1]) of the values held with positive counts; null when none are held. */
export function exactPercentiles(entries: Iterable<readonly [number, number]>, percentages: readonly number[]): number[] | null {
  const held: [number, number][] = []
  let total = 0
  for (const [v, c] of entries) {
    if (c <= 0) continue
    held.push([v, c])
    total += c
  }
  if (total === 0) return null
  held.sort((a, b) => javaCompare(a[0], b[0]))
  const order = percentages.map((p, i) => ({ position: p * (total - 1) + 1, i })).sort((a, b) => a.position - b.position)
  const out = new Array<number>(percentages.length)
  let j = 0, seen = held[0]![1]
  for (const { position, i } of order) {
    const lower = Math.floor(position), higher = Math.ceil(position)
    while (seen < lower) seen += held[++j]![1]
    const here = held[j]![0]
    // The position lies within a run of one value (or exactly on a value): that value; else between it and the next.
    out[i] = seen >= higher ? here : (higher - position) * here + (position - lower) * held[j + 1]![0]
  }
  return out
}

function javaCompare(a: number, b: number): number {
  if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1
  if (Number.isNaN(b)) return -1
  return a < b ? -1 : a > b ? 1 : 0
}
