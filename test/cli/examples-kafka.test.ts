// The README's Kafka walk-through, as a user runs it: topics made with scripts/kafka-server.sh, the
// three examples/kafka-*.sql files run by the compiled CLI (only the broker's address differs:
// theirs is 127.0.0.1:9092), and what the continuous query commits checked against DuckDB's answer
// to the same query over the clicks file.
import { execFile, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { DuckDBInstance } from '@duckdb/node-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-server.js'

const ROOT = process.cwd()
const BIN = join(ROOT, 'bin/weir.js')
const CLICKS = join(ROOT, 'examples/data/clicks.jsonl')

let broker: KafkaBroker
let dir: string

beforeAll(async () => {
  broker = await startKafkaBroker()
  dir = mkdtempSync(join(tmpdir(), 'weir-kafka-examples-'))
  for (const name of ['kafka-load', 'kafka-clicks', 'kafka-read']) {
    const sql = readFileSync(join(ROOT, 'examples', `${name}.sql`), 'utf8')
    expect(sql).toContain(`'127.0.0.1:9092'`)
    writeFileSync(join(dir, `${name}.sql`), sql.replaceAll('127.0.0.1:9092', broker.bootstrap).replaceAll('examples/data/clicks.jsonl', CLICKS))
  }
}, 450_000)

afterAll(async () => {
  await broker?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
}, 150_000)

function topic(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync('bash', [join(ROOT, 'scripts/kafka-server.sh'), 'topic', ...args, broker.dir], { encoding: 'utf8', timeout: 60_000 })
  return { code: r.status, out: r.stdout + r.stderr }
}

async function weir(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, 'run', file], { cwd: dir, timeout: 120_000 })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const r = e as { code: number; stdout: string; stderr: string }
    return { code: r.code, stdout: r.stdout, stderr: r.stderr }
  }
}

/** The rows of a printed result table (`| +I | dave | … |`), each as its cells joined by ' | '. */
function tableRows(stdout: string): string[] {
  return stdout.split('\n').filter(l => l.startsWith('| +I |')).map(l => l.split('|').slice(2, -1).map(c => c.trim()).join(' | '))
}

/** Every window of examples/kafka-clicks.sql's query over the clicks file, as DuckDB computes it, formatted as Weir prints it. */
async function duckWindows(): Promise<Set<string>> {
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  try {
    const reader = await con.runAndReadAll(`
      WITH c AS (SELECT user_id, url, CAST(amount AS DECIMAL(10, 2)) AS amount, CAST(ts AS TIMESTAMP) AS ts
                 FROM read_json('${CLICKS}', format = 'newline_delimited'))
      SELECT user_id, strftime(time_bucket(INTERVAL 1 MINUTE, ts), '%Y-%m-%d %H:%M:%S.000') AS ws,
             strftime(time_bucket(INTERVAL 1 MINUTE, ts) + INTERVAL 1 MINUTE, '%Y-%m-%d %H:%M:%S.000') AS we,
             COUNT(*) AS clicks, COUNT(DISTINCT url) AS pages,
             COALESCE(CAST(SUM(amount) FILTER (WHERE url = '/checkout') AS VARCHAR), '<NULL>') AS spent
      FROM c GROUP BY ALL`)
    return new Set(reader.getRowObjectsJS().map(r => [r['user_id'], r['ws'], r['we'], r['clicks'], r['pages'], r['spent']].join(' | ')))
  } finally {
    con.closeSync()
    db.closeSync()
  }
}

describe('the README Kafka walk-through (examples/kafka-*.sql)', () => {
  it('loads, aggregates from Kafka to Kafka exactly once, and reads back what DuckDB computes', async () => {
    expect(topic('clicks', '4')).toMatchObject({ code: 0, out: expect.stringContaining(`created topic 'clicks' with 4 partitions`) })
    expect(topic('clicks_per_minute', '1').code).toBe(0)
    expect(topic('clicks', '4').out).toContain(`topic 'clicks' exists already`)
    expect(topic('no such', '1').code).not.toBe(0)

    const load = await weir('kafka-load.sql')
    expect(load.stderr).toContain('400 rows read, 400 rows written')
    expect(load.code).toBe(0)

    // The continuous query runs until every window the watermark has closed is committed (the same
    // count read twice, a few checkpoints apart), then Ctrl-C stops it.
    const job = spawn(process.execPath, [BIN, 'run', 'kafka-clicks.sql'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
    let jobErr = ''
    job.stderr.on('data', (d: Buffer) => (jobErr += d.toString()))
    const exited = new Promise<number | null>(done => job.on('exit', done))
    let rows: string[] = []
    try {
      for (let last = -1, tries = 0; tries < 40; tries++) {
        await new Promise(r => setTimeout(r, 2500))
        const read = await weir('kafka-read.sql')
        expect(read.code, read.stderr).toBe(0)
        rows = tableRows(read.stdout)
        expect(read.stdout).toContain(`${rows.length} row`)
        if (rows.length > 0 && rows.length === last) break
        last = rows.length
      }
    } finally {
      job.kill('SIGINT')
    }
    // Ctrl-C stops a job as in a shell: exit 130, windows still open not emitted.
    expect(await exited, jobErr).toBe(130)
    expect(jobErr).toContain(`job 'clicks-per-minute' stopped: 400 rows read`)

    // 5 users over about 5 minutes: the windows before the last minute or so are closed.
    expect(rows.length).toBeGreaterThan(15)
    expect(new Set(rows).size).toBe(rows.length)
    const oracle = await duckWindows()
    for (const r of rows) expect(oracle, r).toContain(r)
  }, 400_000)
})
