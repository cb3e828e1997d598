// The thread hop's own cost: CPU nanoseconds per row to encode a batch into an ArrayBuffer of its own
// (as a link does when its ring is full) and to decode it, for rows shaped as q1's output (auction,
// bidder, price as a DECIMAL's unscaled bigint, dateTime in ms, extra: a 60–140 character slice of a
// shared text, as the Nexmark generator makes it), 1,024 rows a batch. CPU time, not wall time, so a
// busy host changes it less. Prints JSON.
// Run: npx tsc -p . ; node dist/bench/batch-codec-speed.js [rounds]
import { decodeBatch, encodeBatch } from '../runtime/batch-codec.js'
import type { Batch } from '../core/batch.js'

const ROWS = 1024
const rounds = Number(process.argv[2] ?? 3000)

const text = Buffer.alloc(1 << 20, 'qwertyuiopasdfghjklzxcvbnm').toString('latin1')
const batch: Batch = {
  rows: Array.from({ length: ROWS },
    (_, i) => [1000 + (i % 50), 2000 + i * 3, BigInt(i * 907) * 1000n, 1.7e12 + i, text.substring(i * 31, i * 31 + 60 + (i % 80))]),
  kinds: null,
}

/** CPU nanoseconds per row of `rounds` calls of `f`. */
function cpuNsPerRow(f: () => void): number {
  const start = process.cpuUsage()
  for (let k = 0; k < rounds; k++) f()
  const used = process.cpuUsage(start)
  return ((used.user + used.system) * 1000) / rounds / ROWS
}

let data = encodeBatch(batch)
for (let k = 0; k < 300; k++) decodeBatch(encodeBatch(batch))
const encodeNs = cpuNsPerRow(() => {
  data = encodeBatch(batch)
})
const decodeNs = cpuNsPerRow(() => {
  decodeBatch(data)
})
console.log(JSON.stringify({ rows: ROWS, rounds, bytesPerRow: data.byteLength / ROWS, encodeNsPerRow: encodeNs, decodeNsPerRow: decodeNs }))
