// "Did you mean …?": the closest candidate to a misspelled name by edit distance (transpositions count once). Shared by every stage.

/** Edit distance with adjacent transpositions (optimal string alignment), case-insensitive. */
export function editDistance(a: string, b: string): number {
  a = a.toUpperCase()
  b = b.toUpperCase()
  const rows = a.length + 1
  const cols = b.length + 1
  const d: number[] = new Array<number>(rows * cols)
  for (let i = 0; i < rows; i++) d[i * cols] = i
  for (let j = 0; j < cols; j++) d[j] = j
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1)
      d[i * cols + j] = v
    }
  }
  return d[rows * cols - 1]!
}

/** How far a word may be from a candidate to count as a misspelling of it. */
function tolerance(candidate: string): number {
  return candidate.length <= 4 ? 1 : candidate.length <= 8 ? 2 : 3
}

/**
 * The candidate closest to `word`, if any is close enough to be a likely misspelling.
 *
 * @example closest('FORM', ['FROM', 'WHERE']) // 'FROM'
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length < 2) return undefined
  let best: string | undefined
  let bestDistance = Infinity
  for (const c of candidates) {
    if (c.toUpperCase() === word.toUpperCase()) continue
    const dist = editDistance(word, c)
    if (dist <= tolerance(c) && dist < bestDistance) {
      best = c
      bestDistance = dist
    }
  }
  return best
}

/** `name` as a file or folder name: anything but letters, digits, '.', '_' and '-' becomes '_'. */
export function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_')
}
