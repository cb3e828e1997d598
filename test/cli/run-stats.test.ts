// `weir run --stats`: the compiled CLI in a child process, its last table on stderr parsed and held
// against what the job must have done — the file's rows, DuckDB's count of the filter, the changelog
// the job printed, the keys its state holds — at parallelism 1 and 2 (worker threads).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { DuckDBInstance } from '@duckdb/node-api'
import { Mulberry32 } from '../../common/random.js'

const bin = join(process.cwd(), 'bin/weir.js')
const dir = mkdtempSync(join(tmpdir(), 'weir-stats-'))

function weir(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000, cwd: dir })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

interface StatsRow {
  readonly operator: string
  readonly subtask: string
  readonly rowsIn: number
  readonly rowsOut: number
  readonly busy: number
  readonly watermark: string
  readonly state: string
  readonly checkpoint: string
}

/** The tables `--stats` printed to `stderr`, each as its rows (the total line last). */
function statsTables(stderr: string): StatsRow[][] {
  const tables: StatsRow[][] = []
  const lines = stderr.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith('stats of job ')) continue
    expect(lines[i + 1]!.split(/ {2,}/)).toEqual(['operator', 'subtask', 'rows in', 'rows out', 'rows/s', 'busy %', 'backpr. %', 'watermark', 'state',
      'last checkpoint'])
    const rows: StatsRow[] = []
    for (let j = i + 2; j < lines.length && lines[j] !== '' && !lines[j]!.startsWith('stats of job ') && !lines[j]!.startsWith('job '); j++) {
      const c = lines[j]!.trim().split(/ {2,}/)
      expect(c.length, lines[j]).toBe(10)
      rows.push({ operator: c[0]!, subtask: c[1]!, rowsIn: Number(c[2]), rowsOut: Number(c[3]), busy: Number(c[5]), watermark: c[7]!, state: c[8]!,
        checkpoint: c[9]! })
    }
    tables.push(rows)
  }
  return tables
}

/** The last table's rows of operator `kind` ('group-aggregate': every subtask of it). */
function rowsOf(table: readonly StatsRow[], kind: string): StatsRow[] {
  return table.filter(r => r.operator.replace(/^\d+-/, '') === kind)
}

const sum = (rows: readonly StatsRow[], f: (r: StatsRow) => number): number => rows.reduce((a, r) => a + f(r), 0)
const entriesOf = (r: StatsRow): number => Number(/^(\d+) entries/.exec(r.state)?.[1] ?? NaN)
const bytesOf = (r: StatsRow): number => {
  const m = /, ([\d.]+) (B|KB|MB|GB)$/.exec(r.state)
  return m === null ? NaN : Number(m[1]) * 1024 ** ['B', 'KB', 'MB', 'GB'].indexOf(m[2]!)
}

/** A JSON-lines file of `rows` rows {k, v}, k in 1..keys. */
function dataFile(name: string, rows: number, keys: number): string {
  const rng = new Mulberry32(rows * 31 + keys)
  const lines: string[] = []
  for (let i = 0; i < rows; i++) lines.push(JSON.stringify({ k: 1 + Math.floor(rng.nextDouble() * keys), v: Math.floor(rng.nextDouble() * 100) }))
  const path = join(dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

const FILTER = 'v % 3 <> 0'

function groupJob(name: string, data: string, settings: string): string {
  const file = join(dir, `${name}.sql`)
  writeFileSync(file, `${settings}
CREATE TABLE t (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '${data}', 'format' = 'json');
CREATE TABLE out1 (k INT, n BIGINT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO out1 SELECT k, COUNT(*), SUM(v) FROM t WHERE ${FILTER} GROUP BY k;
`)
  return file
}

async function duck(sql: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:')
  const con = await instance.connect()
  const r = await con.runAndReadAll(sql)
  const n = Number(r.getRows()[0]![0])
  con.closeSync()
  return n
}

describe('weir run --stats', () => {
  let small: string
  let large: string
  beforeAll(() => {
    small = dataFile('small.jsonl', 6000, 200)
    large = dataFile('large.jsonl', 6000, 3000)
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  for (const backend of ['heap', 'rocksdb']) {
    it(`counts what a filtered GROUP BY over a file did, at p = 1 and p = 2 on worker threads (${backend})`, async () => {
      const duckFiltered = await duck(`SELECT COUNT(*) FROM read_json_auto('${small}') WHERE ${FILTER}`)
      const duckKeys = await duck(`SELECT COUNT(DISTINCT k) FROM read_json_auto('${small}') WHERE ${FILTER}`)
      const finals: StatsRow[][] = []
      for (const p of [1, 2]) {
        const settings = `SET 'state.backend' = '${backend}';\nSET 'parallelism.default' = '${p}';\nSET 'execution.worker-threads' = 'true';`
        const r = weir('run', '--fresh', '--stats', '30s', groupJob(`group-${backend}-${p}`, small, settings))
        expect(r.code, r.stderr).toBe(0)
        const tables = statsTables(r.stderr)
        // Only the last: the job ends long before 30 s.
        expect(tables.length).toBe(1)
        const last = tables[0]!
        finals.push(last)
        // stdout is the job's changelog only.
        const changelog = r.stdout.trim().split('\n')
        expect(changelog.every(l => /^[+-][IUD]\[\d+, \d+, \d+\]$/.test(l))).toBe(true)
        const source = rowsOf(last, 'source')
        expect(sum(source, x => x.rowsIn)).toBe(6000)
        // The filter is pushed into the source: its rows out are the rows the filter kept.
        expect(sum(source, x => x.rowsOut)).toBe(duckFiltered)
        const agg = rowsOf(last, 'group-aggregate')
        expect(agg.length).toBe(p)
        expect(agg.map(x => x.subtask)).toEqual(p === 1 ? ['1/1'] : ['1/2', '2/2'])
        expect(sum(agg, x => x.rowsIn)).toBe(duckFiltered)
        expect(sum(agg, x => x.rowsOut)).toBe(changelog.length)
        expect(sum(rowsOf(last, 'sink'), x => x.rowsIn)).toBe(changelog.length)
        // One entry (the accumulators) per key; each subtask holds some.
        expect(sum(agg, entriesOf)).toBe(duckKeys)
        for (const a of agg) {
          expect(entriesOf(a)).toBeGreaterThan(0)
          expect(bytesOf(a)).toBeGreaterThan(0)
        }
        expect(last.every(x => x.watermark === '-' || x.watermark === 'end')).toBe(true)
        expect(last.at(-1)!.operator).toBe('total')
        expect(last.at(-1)!.rowsIn).toBe(sum(last.slice(0, -1), x => x.rowsIn))
      }
      // The sums over subtasks at p = 2 are p = 1's, operator by operator.
      const perOperator = (t: StatsRow[]): Record<string, [number, number]> => {
        const o: Record<string, [number, number]> = {}
        for (const x of t.slice(0, -1)) {
          const s = (o[x.operator] ??= [0, 0])
          s[0] += x.rowsIn
          s[1] += x.rowsOut
        }
        return o
      }
      expect(perOperator(finals[1]!)).toEqual(perOperator(finals[0]!))
    })
  }

  it('state grows with the keys', async () => {
    const sizes: { entries: number; bytes: number }[] = []
    for (const data of [small, large]) {
      const r = weir('run', '--fresh', '--stats', groupJob(`grow-${sizes.length}`, data, `SET 'state.backend' = 'heap';`))
      expect(r.code, r.stderr).toBe(0)
      const agg = rowsOf(statsTables(r.stderr).at(-1)!, 'group-aggregate')
      sizes.push({ entries: sum(agg, entriesOf), bytes: sum(agg, bytesOf) })
    }
    expect(sizes[0]!.entries).toBe(await duck(`SELECT COUNT(DISTINCT k) FROM read_json_auto('${small}') WHERE ${FILTER}`))
    expect(sizes[1]!.entries).toBe(await duck(`SELECT COUNT(DISTINCT k) FROM read_json_auto('${large}') WHERE ${FILTER}`))
    expect(sizes[1]!.bytes).toBeGreaterThan(sizes[0]!.bytes * 5)
  })

  it('prints tables while a nexmark job runs at p = 2 on worker threads, with its checkpoints', () => {
    const job = (p: number): string => {
      const file = join(dir, `nexmark-${p}.sql`)
      writeFileSync(file, `SET 'parallelism.default' = '${p}';
SET 'execution.worker-threads' = 'true';
SET 'state.backend' = 'heap';
SET 'execution.checkpointing.interval' = '300 ms';
SET 'state.checkpoints.dir' = 'file://${join(dir, `checkpoints-${p}`)}';
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '100000', 'nexmark.event.rate' = '20000',
  'nexmark.max-emit-speed' = 'false');
CREATE TABLE sink (auction BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT auction, COUNT(*) FROM bid GROUP BY auction;
`)
      return file
    }
    const runs = [1, 2].map(p => {
      const r = weir('run', '--fresh', '--stats', '250ms', job(p))
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toBe('')
      return statsTables(r.stderr)
    })
    const [one, two] = runs as [StatsRow[][], StatsRow[][]]
    // 100,000 events paced at 20,000/s (5 s, however fast the host): tables while it ran, and one at its end.
    expect(two.length).toBeGreaterThan(1)
    const last = two.at(-1)!
    expect(rowsOf(last, 'source').length).toBe(2)
    const agg = rowsOf(last, 'group-aggregate')
    expect(agg.length).toBe(2)
    for (const table of [one.at(-1)!, last]) {
      // Nexmark's bids are 46 of every 50 events.
      expect(sum(rowsOf(table, 'source'), x => x.rowsOut)).toBe(92_000)
      expect(sum(rowsOf(table, 'group-aggregate'), x => x.rowsIn)).toBe(92_000)
    }
    // (Its rows out are not compared: an aggregate emits one change per key and batch, and batches differ with the parallelism.)
    expect(sum(agg, entriesOf)).toBe(sum(rowsOf(one.at(-1)!, 'group-aggregate'), entriesOf))
    // A watermark, as a timestamp, while it ran; 'end' once the input ended.
    expect(two.some(t => rowsOf(t, 'group-aggregate').some(x => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/.test(x.watermark)))).toBe(true)
    expect(agg.every(x => x.watermark === 'end')).toBe(true)
    // Checkpoints completed along the way: every subtask of the keyed operator shows its part in the last.
    for (const a of agg) {
      const m = /^#(\d+) sync ([\d.]+) ms, async ([\d.]+) ms, ([\d.]+) (B|KB|MB), end-to-end ([\d.]+) ms$/.exec(a.checkpoint)
      expect(m, a.checkpoint).not.toBeNull()
      expect(Number(m![1])).toBeGreaterThan(0)
      expect(Number(m![4])).toBeGreaterThan(0)
      expect(Number(m![6])).toBeGreaterThanOrEqual(Number(m![2]))
    }
    expect(rowsOf(last, 'source').every(x => x.checkpoint === '-')).toBe(true)
  })

  it('rejects an interval that is not one', () => {
    const file = groupJob('bad', small, '')
    for (const bad of ['abc', '0s', '--stats=5 parsecs']) {
      const args = bad.startsWith('--') ? ['run', bad, file] : ['run', '--stats', bad, file]
      const r = weir(...args)
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`error: --stats takes an interval such as 2s, 500ms or 1min (default 5s), not '${bad.replace('--stats=', '')}'`)
      expect(r.stdout).toBe('')
    }
  })
})
