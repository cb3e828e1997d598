// Nexmark q18 (dedup) and q19 (Top-N) run with their published text, as the benchmark runs them, on
// heap and RocksDB: q18 keeps one row per (bidder, auction), q19 at most 10 per auction.
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Session } from '../../engine/session.js'
import { rankQueries } from '../../bench/nexmark/rank-queries.js'

describe.each(rankQueries(0.002))('$name ($backend)', q => {
  it('runs to the end with the state the query bounds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-nexmark-rank-'))
    const session = new Session({ println: () => undefined, options: { 'state.dir': dir }, countStoredState: true })
    await session.executeSql(q.sql)
    const [m] = await session.awaitJobs()
    const rowsOut = Object.values(m!.sinkRows).reduce((a, b) => a + b, 0)
    const entries = Object.values(m!.stateEntries).reduce((a, b) => a + b, 0)
    expect(m!.cancelled).toBe(false)
    expect(rowsOut).toBeGreaterThan(100)
    if (q.name.startsWith('q19')) {
      // Top-10 per auction over an insert-only input: at most 10 rows of each auction are kept.
      expect(entries).toBeLessThan(m!.sourceRecordsRead)
    } else {
      expect(entries).toBeGreaterThan(0)
    }
  })
})
