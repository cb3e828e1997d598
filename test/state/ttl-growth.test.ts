// State TTL keeps state bounded: an endless stream of new keys under a short TTL levels off in
// live entries, while the same job without TTL keeps one entry per key — and EXPLAIN warns about it.
import { describe, expect, it } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Session } from '../../engine/session.js'
import type { JobMetrics } from '../../runtime/executor.js'

const BACKENDS: Record<string, () => Record<string, string>> = {
  heap: () => ({ 'state.backend': 'heap' }),
  rocksdb: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '1 mb', 'state.dir': mkdtempSync(join(tmpdir(), 'weir-ttl-')) }),
}

/** New keys at 5000/s (one per row), counted per key. */
function job(rows: number, ttl: string | undefined): string {
  return `${ttl ? `SET 'table.exec.state.ttl' = '${ttl}';` : ''}
    CREATE TABLE ev (k BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000', 'number-of-rows' = '${rows}',
      'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '${rows}');
    CREATE TABLE out (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
    INSERT INTO out SELECT k, COUNT(*) FROM ev GROUP BY k;`
}

async function run(sql: string, options: Record<string, string>): Promise<JobMetrics> {
  const session = new Session({ options })
  await session.executeSql(sql)
  const [metrics] = await session.awaitJobs()
  return metrics!
}

const entries = (m: JobMetrics): number => Object.values(m.stateEntries).reduce((a, b) => a + b, 0)

describe.each(Object.keys(BACKENDS))('state TTL on %s', backend => {
  it('levels off under a 200 ms TTL and grows with every key without one', async () => {
    const options = BACKENDS[backend]!
    const short = await run(job(2500, '200 ms'), options())
    const long = await run(job(7500, '200 ms'), options())
    const unbounded = await run(job(7500, undefined), options())
    // Without TTL: one entry per key, forever.
    expect(entries(unbounded)).toBe(7500)
    // With TTL: about rate × TTL keys are live (~1000), however long the stream ran.
    expect(entries(long)).toBeLessThan(3000)
    expect(entries(short)).toBeLessThan(2500)
    expect(Math.abs(entries(long) - entries(short))).toBeLessThan(1500)
    if (backend === 'rocksdb') {
      // On disk too: the background sweep deletes expired entries, so what is stored levels off.
      expect(unbounded.stateStoredEntries).toBe(7500)
      expect(long.stateStoredEntries!).toBeLessThan(3500)
      expect(Math.abs(long.stateStoredEntries! - short.stateStoredEntries!)).toBeLessThan(2000)
    }
  })
})

describe('EXPLAIN and TTL', () => {
  it('warns about the job without TTL only', async () => {
    const session = new Session()
    const ddl = job(10, undefined).split('INSERT INTO')[0]!
    await session.executeSql(ddl)
    const [plain] = await session.executeSql('EXPLAIN INSERT INTO out SELECT k, COUNT(*) FROM ev GROUP BY k')
    expect(plain!.kind === 'explain' && plain!.text).toContain('grows without bound')
    const [hinted] = await session.executeSql(`EXPLAIN INSERT INTO out SELECT /*+ STATE_TTL('ev' = '200 ms') */ k, COUNT(*) FROM ev GROUP BY k`)
    expect(hinted!.kind === 'explain' && hinted!.text).toContain('ttl=[200 ms]')
    expect(hinted!.kind === 'explain' && hinted!.text).not.toContain('Warnings')
  })
})
