// Name helpers for "did you mean" hints.

/** Levenshtein distance, case-insensitive. */
export function editDistance(a: string, b: string): number {
  a = a.toLowerCase(); b = b.toLowerCase()
  const prev = new Array<number>(b.length + 1)
  for (let j = 0; j <= b.length; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = tmp
    }
  }
  return prev[b.length]!
}

/** The candidate closest to `name` if it is close enough to be a plausible typo. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestD = Infinity
  for (const c of candidates) {
    const d = editDistance(name, c)
    if (d < bestD) { best = c; bestD = d }
  }
  if (best === undefined) return undefined
  const limit = Math.max(1, Math.floor(Math.max(name.length, best.length) / 3))
  return bestD <= limit ? best : undefined
}
