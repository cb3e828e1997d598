// The examples run as `weir run` runs them (their .sql through a Session, the module relative to the
// file): examples/fraud and examples/sessionize against hand-computed rows on heap and RocksDB; the
// sessionizer over generated clicks against DuckDB (gaps by LAG, sessions by a running SUM),
// straight and checkpointed then restored at another parallelism.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import { Mulberry32 } from '../../common/random.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const EXAMPLES = resolve(import.meta.dirname, '../../examples')

async function printed(file: string, options: Record<string, string>): Promise<string[]> {
  const lines: string[] = []
  const sql = readFileSync(file, 'utf8').replace(/'examples\//g, `'${EXAMPLES}/`)
  const session = new Session({ println: l => lines.push(l), source: { sql, file }, options })
  await session.executeSql(sql)
  await session.awaitJobs()
  return lines.sort()
}

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-examples-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe.each(RESTORE_BACKENDS)('the examples on $name', b => {
  it('fraud.sql prints the alerts worked out by hand from payments.jsonl', async () => {
    expect(await printed(join(EXAMPLES, 'fraud/fraud.sql'), b.options(root))).toEqual([
      // c1 paid 420 + 300 at grocer and shoes (over 500 elsewhere, two merchants), then a new merchant.
      '+I[c1, watches, 80.0, new merchant after a big day, 2024-05-01 12:04:00.000]',
      // c2's 0.50 probe, then 900 within the minute.
      '+I[c2, jewels, 900.0, large payment right after a probe, 2024-05-01 12:00:40.000]',
    ])
  })

  it('sessionize.sql prints the sessions worked out by hand from clicks.jsonl', async () => {
    expect(await printed(join(EXAMPLES, 'sessionize/sessionize.sql'), b.options(root))).toEqual([
      '+I[ann, 2024-05-01 09:00:00.000, 2024-05-01 09:09:00.000, 3, home > shoes > cart]', // 21 minutes to the next click
      '+I[ann, 2024-05-01 09:30:00.000, 2024-05-01 09:35:00.000, 2, home > news]', // closed by the final watermark
      '+I[bob, 2024-05-01 09:01:00.000, 2024-05-01 09:04:00.000, 3, home > cart > logout]',
      '+I[bob, 2024-05-01 09:05:00.000, 2024-05-01 09:05:00.000, 1, home]', // arrives late (after ann's 09:09): still its own session
      '+I[bob, 2024-05-01 09:31:00.000, 2024-05-01 09:31:00.000, 1, news]',
      '+I[cid, 2024-05-01 09:10:00.000, 2024-05-01 09:10:00.000, 1, home]',
      '+I[cid, 2024-05-01 09:31:30.000, 2024-05-01 09:31:30.000, 1, logout]',
    ].sort())
  })
})

describe('the sessionizer over generated clicks against DuckDB', () => {
  const ROWS = 3000
  const GAP_S = 600
  const clicks: { user_id: string; page: string; ts: string }[] = []
  beforeAll(() => {
    const rng = new Mulberry32(21)
    const pages = ['home', 'news', 'shoes', 'cart', 'pay', 'logout']
    let t = Date.UTC(2024, 4, 1)
    for (let i = 0; i < ROWS; i++) {
      t += Math.floor(rng.nextDouble() * 40_000) // ~40 users: a user's clicks are minutes apart, sometimes more than the gap
      clicks.push({ user_id: `u${Math.floor(rng.nextDouble() * 40)}`, page: pages[Math.floor(rng.nextDouble() * pages.length)]!,
        ts: new Date(t).toISOString().replace('T', ' ').replace('Z', '') })
    }
    writeFileSync(join(root, 'clicks.jsonl'), clicks.map(c => JSON.stringify(c)).join('\n') + '\n')
  })

  const sql = (out: string): string => `
    CREATE TABLE clicks (user_id STRING, page STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${join(root, 'clicks.jsonl')}', 'format' = 'json');
    CREATE TABLE sessions (user_id STRING, session_start TIMESTAMP(3), session_end TIMESTAMP(3), pages INT, path STRING)
      WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    CREATE FUNCTION sessionize AS '${EXAMPLES}/sessionize/sessionize.ts';
    INSERT INTO sessions SELECT * FROM sessionize(input => TABLE clicks PARTITION BY user_id, gap_s => ${GAP_S});`

  async function duckdb(): Promise<string[]> {
    const instance = await DuckDBInstance.create(':memory:')
    const con = await instance.connect()
    try {
      const reader = await con.runAndReadAll(`
        WITH c AS (
          SELECT user_id, page, CAST(ts AS TIMESTAMP) AS ts,
            LAG(CAST(ts AS TIMESTAMP)) OVER (PARTITION BY user_id ORDER BY ts) AS prev_ts,
            LAG(page) OVER (PARTITION BY user_id ORDER BY ts) AS prev_page
          FROM read_json('${join(root, 'clicks.jsonl')}', columns = {user_id: 'VARCHAR', page: 'VARCHAR', ts: 'VARCHAR'})),
        s AS (
          SELECT *, SUM(CASE WHEN prev_ts IS NULL OR ts - prev_ts > INTERVAL ${GAP_S} SECOND OR prev_page = 'logout' THEN 1 ELSE 0 END)
            OVER (PARTITION BY user_id ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
          FROM c)
        SELECT user_id, strftime(MIN(ts), '%Y-%m-%d %H:%M:%S.%g'), strftime(MAX(ts), '%Y-%m-%d %H:%M:%S.%g'), COUNT(*),
          string_agg(page, ' > ' ORDER BY ts)
        FROM s GROUP BY user_id, sid`)
      return reader.getRows().map(r => r.map(String).join('|')).sort()
    } finally {
      con.closeSync()
      instance.closeSync()
    }
  }

  const rows = (out: string): string[] =>
    debeziumRows(out).map(r => {
      const o = JSON.parse(r) as Record<string, unknown>
      return [o['user_id'], o['session_start'], o['session_end'], o['pages'], o['path']].join('|')
    }).sort()

  it.each(RESTORE_BACKENDS)('straight on $name', async b => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(sql(out), b.options(root))
    const expected = await duckdb()
    expect(expected.length).toBeGreaterThan(300)
    expect(expected.some(r => r.includes('logout >')), 'some sessions continue past a logout? then the oracle is wrong').toBe(false)
    expect(rows(out)).toEqual(expected)
  })

  it.each([
    { b: RESTORE_BACKENDS[0]!, a: 1, z: 3 },
    { b: RESTORE_BACKENDS[1]!, a: 2, z: 1 },
  ])('checkpointed on $b.name at parallelism $a, restored at $z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(out), options: b.options(root), a, z, sourceRows: ROWS })
    expect(rows(out)).toEqual(await duckdb())
  })
})
