// State TTL bounds semi/anti joins and INTERSECT / EXCEPT: under two streams of ever new keys their
// state keeps every key without a TTL, and about rate × TTL keys under 'table.exec.state.ttl',
// however long the streams run (as Flink applies table.exec.state.ttl to its stateful operators).
// Processing time is the row clock (test/support/row-clock.ts): the streams' rate is what the rows
// say, not what a loaded host manages.
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import type { JobMetrics } from '../../runtime/executor.js'
import { TICK_FUNCTION, runOnRowClock } from '../support/row-clock.js'

const BACKENDS: Record<string, () => Record<string, string>> = {
  heap: () => ({ 'state.backend': 'heap' }),
  rocksdb: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '1 mb', 'state.dir': mkdtempSync(join(tmpdir(), 'weir-subquery-ttl-')) }),
}

/** Each query with how many state entries it keeps per row of each input without a TTL (every key is new). */
const QUERIES: Record<string, { query: string; perRow: number }> = {
  // Left: one row → count entry per row; right: one match count per key.
  IN: { query: 'SELECT k FROM l WHERE k IN (SELECT k FROM r)', perRow: 2 },
  'NOT EXISTS': { query: 'SELECT k FROM l a WHERE NOT EXISTS (SELECT * FROM r b WHERE b.k = a.k)', perRow: 2 },
  // NOT IN over nullable columns, correlated: per key its left rows by value and the list of those values,
  // and the right values with their totals.
  'NOT IN': { query: 'SELECT k FROM l a WHERE a.k NOT IN (SELECT b.k FROM r b WHERE b.k = a.k)', perRow: 4 },
  // One entry per distinct row of either input: the right's keys are the left's shifted by half.
  INTERSECT: { query: 'SELECT k FROM l INTERSECT SELECT k FROM r', perRow: 1.5 },
  'EXCEPT ALL': { query: 'SELECT k FROM l EXCEPT ALL SELECT k FROM r', perRow: 1.5 },
}

/**
 * Two streams of new keys at 5000/s each on the row clock (one key per row, 0.1 ms per row of either);
 * the right's keys are the left's shifted by half. The generators are not paced: the row clock is the time.
 */
function job(query: string, rows: number, ttl: boolean): string {
  const table = (name: string, start: number) =>
    `CREATE TABLE ${name}_rows (k BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000', 'number-of-rows' = '${rows}',
      'fields.k.kind' = 'sequence', 'fields.k.start' = '${start}', 'fields.k.end' = '${start + rows - 1}');
    CREATE TEMPORARY VIEW ${name} AS SELECT tick(k) AS k FROM ${name}_rows;`
  return `${ttl ? "SET 'table.exec.state.ttl' = '200 ms';" : ''} ${TICK_FUNCTION} ${table('l', 1)} ${table('r', rows / 2 + 1)}
    CREATE TABLE out (k BIGINT) WITH ('connector' = 'blackhole');
    INSERT INTO out ${query};`
}

/** Runs `sql` with batches of 100 rows (10 ms on the row clock). */
const run = (sql: string, options: Record<string, string>): Promise<JobMetrics> => runOnRowClock(sql, options, 0.1, 100)

const entries = (m: JobMetrics): number => Object.values(m.stateEntries).reduce((a, b) => a + b, 0)

describe.each(Object.keys(BACKENDS))('state TTL of semi/anti joins and set operations on %s', backend => {
  it.each(Object.keys(QUERIES))('%s levels off under a 200 ms TTL and grows with every key without one', async name => {
    const options = BACKENDS[backend]!
    const { query, perRow } = QUERIES[name]!
    const unbounded = await run(job(query, 6000, false), options())
    const short = await run(job(query, 2000, true), options())
    const long = await run(job(query, 6000, true), options())
    // Without TTL: every key of both inputs, forever.
    expect(entries(unbounded)).toBe(perRow * 6000)
    // With TTL: about 2 × rate × TTL keys (~2000) live, however long the streams ran.
    expect(entries(long)).toBeLessThan(perRow * 6000 / 2)
    // Levels off: without a TTL the long run's 4000 more keys would add perRow × 4000 entries; under it both
    // runs keep what the last 200 ms of rows brought.
    expect(Math.abs(entries(long) - entries(short))).toBeLessThan(perRow * 4000 / 2)
    if (backend === 'rocksdb') {
      // On disk too: the background sweep deletes expired entries.
      expect(unbounded.stateStoredEntries).toBe(perRow * 6000)
      expect(long.stateStoredEntries!).toBeLessThan(perRow * 6000 / 2)
    }
  })
})
