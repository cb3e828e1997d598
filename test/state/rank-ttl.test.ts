// State TTL bounds deduplication and Top-N: under a stream of new keys their state levels off with a
// short TTL (table.exec.state.ttl or the STATE_TTL hint) and keeps one entry set per key without.
// Processing time is the row clock (test/support/row-clock.ts): the stream's rate is what the rows
// say, not what a loaded host manages.
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'
import { TICK_FUNCTION, useRowClock } from '../support/row-clock.js'

const BACKENDS: Record<string, () => Record<string, string>> = {
  heap: () => ({ 'state.backend': 'heap' }),
  rocksdb: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '1 mb', 'state.dir': mkdtempSync(join(tmpdir(), 'weir-rank-ttl-')) }),
}

const QUERIES: Record<string, (hint: string) => string> = {
  dedup: hint => `SELECT k, v FROM (SELECT ${hint} *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM ev) WHERE rn = 1`,
  'Top-N': hint => `SELECT k, v, rn FROM (SELECT ${hint} *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 2`,
}

/** New keys at 5000/s on the row clock (0.2 ms per row; the generator is not paced), two rows each. */
function job(query: string, rows: number, ttl: string): string {
  return `${ttl === 'set' ? `SET 'table.exec.state.ttl' = '200 ms';` : ''} ${TICK_FUNCTION}
    CREATE TABLE ev_rows (n BIGINT, pt AS PROCTIME(), k AS n / 2, v AS n % 7) WITH ('connector' = 'datagen',
      'rows-per-second' = '1000000000', 'number-of-rows' = '${rows}', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1',
      'fields.n.end' = '${rows}');
    CREATE TEMPORARY VIEW ev AS SELECT n, pt, tick(k) AS k, v FROM ev_rows;
    CREATE TABLE out (k BIGINT, v BIGINT${query.includes('rn <=') ? ', rn BIGINT' : ''}) WITH ('connector' = 'blackhole');
    INSERT INTO out ${query};`
}

/** Runs `sql` with batches of 50 rows (10 ms on the row clock): the state entries at its end. */
async function entries(sql: string, options: Record<string, string>): Promise<number> {
  const clock = useRowClock(0.2)
  try {
    const session = new Session({ options: { ...options, 'execution.batch-size': '50' }, countStoredState: true })
    await session.executeSql(sql)
    const [m] = await session.awaitJobs() as JobMetrics[]
    return Object.values(m!.stateEntries).reduce((a, b) => a + b, 0)
  } finally {
    clock.mockRestore()
  }
}

describe.each(Object.keys(BACKENDS))('state TTL of dedup and Top-N on %s', backend => {
  it.each(Object.keys(QUERIES))('%s levels off under a 200 ms TTL and grows with every key without one', async name => {
    const options = BACKENDS[backend]!
    const q = QUERIES[name]!
    const unbounded = await entries(job(q(''), 6000, 'none'), options())
    const short = await entries(job(q(''), 3000, 'set'), options())
    const long = await entries(job(q(`/*+ STATE_TTL('ev' = '200 ms') */`), 9000, 'none'), options())
    // One entry per key, forever (a Top-N this small keeps both rows of a key in one entry; under a TTL, an entry per row).
    expect(unbounded).toBe(3001)
    // About rate × TTL rows are live (~1000), however long the stream ran.
    expect(long).toBeLessThan(3000)
    expect(Math.abs(long - short)).toBeLessThan(1500)
  })
})
