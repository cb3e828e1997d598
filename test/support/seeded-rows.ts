// Seeded JSON input for job tests: rows {k, v, ts} with `keys` keys, values 0..99 and event time
// rising 100 ms per row from 2024-01-01 with up to 1.5 s of disorder; the same seed, the same file.
import { writeFileSync } from 'node:fs'

export function writeSeededRows(path: string, options: { readonly rows: number; readonly keys: number; readonly seed: number }): void {
  let seed = options.seed
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const lines: string[] = []
  const start = Date.UTC(2024, 0, 1)
  for (let i = 0; i < options.rows; i++) {
    const ts = start + i * 100 - Math.floor(rnd() * 1500)
    lines.push(
      JSON.stringify({ k: `k${Math.floor(rnd() * options.keys)}`, v: Math.floor(rnd() * 100),
        ts: new Date(ts).toISOString().replace('T', ' ').replace('Z', '') }),
    )
  }
  writeFileSync(path, lines.join('\n') + '\n')
}
