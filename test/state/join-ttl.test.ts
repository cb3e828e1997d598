// Join state TTL per side: a join of two streams of ever new keys keeps every row of a side without
// TTL, and about rate × TTL rows of a side whose STATE_TTL hint (or 'table.exec.state.ttl') bounds it,
// however long the stream runs. Processing time is the row clock (test/support/row-clock.ts): the
// streams' rate is what the rows say, not what a loaded host manages.
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import type { JobMetrics } from '../../runtime/executor.js'
import { TICK_FUNCTION, runOnRowClock } from '../support/row-clock.js'

const BACKENDS: Record<string, () => Record<string, string>> = {
  heap: () => ({ 'state.backend': 'heap' }),
  rocksdb: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '1 mb', 'state.dir': mkdtempSync(join(tmpdir(), 'weir-join-ttl-')) }),
}

/**
 * Two streams of new keys at 5000/s each on the row clock (one per row, 0.1 ms per row of either; the
 * generators are not paced); the right's keys are the left's shifted, so half the rows match.
 */
function job(rows: number, hint: string): string {
  const table = (name: string, start: number) =>
    `CREATE TABLE ${name}_rows (k BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '${rows}',
      'fields.k.kind' = 'sequence', 'fields.k.start' = '${start}', 'fields.k.end' = '${start + rows - 1}');
    CREATE TEMPORARY VIEW ${name} AS SELECT tick(k) AS k FROM ${name}_rows;`
  return `${TICK_FUNCTION} ${table('l', 1)} ${table('r', rows / 2)}
    CREATE TABLE out (a BIGINT, b BIGINT) WITH ('connector' = 'blackhole');
    INSERT INTO out SELECT ${hint} a.k, b.k FROM l a JOIN r b ON a.k = b.k;`
}

/** Runs `sql` with batches of 100 rows (10 ms on the row clock). */
const run = (sql: string, options: Record<string, string>): Promise<JobMetrics> => runOnRowClock(sql, options, 0.1, 100)

const entries = (m: JobMetrics): number => Object.values(m.stateEntries).reduce((a, b) => a + b, 0)

describe.each(Object.keys(BACKENDS))('join state TTL on %s', backend => {
  it('levels off on the sides a TTL bounds, and grows with every row on a side without one', async () => {
    const options = BACKENDS[backend]!
    const both = "/*+ STATE_TTL('a' = '200 ms', 'b' = '200 ms') */"
    const short = await run(job(2000, both), options())
    const long = await run(job(6000, both), options())
    const unbounded = await run(job(6000, ''), options())
    const leftOnly = await run(job(6000, "/*+ STATE_TTL('a' = '200 ms') */"), options())
    // Without TTL: one entry per row of each side, forever.
    expect(entries(unbounded)).toBe(12000)
    // With TTL on both: about 2 × rate × TTL rows (~2000) live, however long the streams ran; without a
    // TTL the longer run keeps 8000 more.
    expect(entries(long)).toBeLessThan(5000)
    expect(Math.abs(entries(long) - entries(short))).toBeLessThan(4000)
    // The hint is per side: the right side keeps all of its 6000 rows.
    expect(entries(leftOnly)).toBeGreaterThanOrEqual(6000)
    expect(entries(leftOnly)).toBeLessThan(9000)
    if (backend === 'rocksdb') {
      expect(unbounded.stateStoredEntries).toBe(12000)
      expect(long.stateStoredEntries!).toBeLessThan(6000)
    }
  })
})
