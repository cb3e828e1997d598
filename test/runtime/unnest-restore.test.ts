// UNNEST under stateful operators, three ways on heap and RocksDB: straight; checkpointed and
// cancelled midway; restored from the checkpoint at another parallelism. The committed changelog
// must materialize to the same rows, and the straight run to rows computed here. The Unnest is
// stateless: what is checked is that its rows reach the keyed operators above it exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Rng } from '../oracle/oracle.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'

const ROWS = 6000
const TAGS = ['a', 'b', 'c', 'd', 'e']
let root: string
let input: string
const rows: { id: number; k: string; tags: (string | null)[] | null; m: Record<string, number> }[] = []

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-unnest-restore-'))
  input = join(root, 'input.jsonl')
  const rng = new Rng(5)
  const t0 = Date.UTC(2024, 0, 1)
  const lines: string[] = []
  for (let id = 0; id < ROWS; id++) {
    const tags = rng.chance(0.1) ? null : Array.from({ length: rng.int(0, 4) }, () => (rng.chance(0.1) ? null : rng.pick(TAGS)))
    const m: Record<string, number> = {}
    for (let i = rng.int(0, 2); i > 0; i--) m[rng.pick(['x', 'y', 'z'])] = rng.int(1, 9)
    const row = { id, k: rng.pick(['p', 'q', 'r', 's']), tags, m }
    rows.push(row)
    lines.push(JSON.stringify({ ...row, ts: new Date(t0 + id * 50).toISOString().replace('T', ' ').replace('Z', '') }))
  }
  writeFileSync(input, lines.join('\n') + '\n')
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

interface Case {
  readonly name: string
  readonly columns: string
  readonly query: string
  /** The rows the query gives, as debeziumRows prints them. */
  readonly expected: () => string[]
}

const CASES: readonly Case[] = [
  {
    name: 'GROUP BY the elements of an array, with their positions',
    columns: 'x STRING, n BIGINT, s BIGINT, p INT',
    query: 'SELECT x, COUNT(*), SUM(CAST(id AS BIGINT)), MAX(pos) FROM t CROSS JOIN UNNEST(t.tags) WITH ORDINALITY AS u(x, pos) GROUP BY x',
    expected: () => {
      const by = new Map<string | null, { n: number; s: number; p: number }>()
      for (const r of rows) {
        r.tags?.forEach((x, i) => {
          const g = by.get(x) ?? { n: 0, s: 0, p: 0 }
          by.set(x, { n: g.n + 1, s: g.s + r.id, p: Math.max(g.p, i + 1) })
        })
      }
      return [...by].map(([x, g]) => JSON.stringify({ x, n: g.n, s: g.s, p: g.p })).sort()
    },
  },
  {
    name: 'GROUP BY the map entries of an updating input (LEFT JOIN UNNEST over a GROUP BY)',
    columns: 'mk STRING, n BIGINT',
    query: `SELECT mk, COUNT(*) FROM (SELECT k, MAP['last', MAX(id), 'count', CAST(COUNT(*) AS INT)] AS mm FROM t GROUP BY k) g
      LEFT JOIN UNNEST(g.mm) AS u(mk, mv) ON TRUE WHERE MOD(mv, 2) = 0 GROUP BY mk`,
    expected: () => {
      const groups = new Map<string, { last: number; count: number }>()
      for (const r of rows) {
        const g = groups.get(r.k) ?? { last: -1, count: 0 }
        groups.set(r.k, { last: Math.max(g.last, r.id), count: g.count + 1 })
      }
      const counts = new Map<string, number>()
      for (const g of groups.values()) {
        for (const [mk, mv] of [['last', g.last], ['count', g.count]] as const) if (mv % 2 === 0) counts.set(mk, (counts.get(mk) ?? 0) + 1)
      }
      return [...counts].map(([mk, n]) => JSON.stringify({ mk, n })).sort()
    },
  },
]

function sql(c: Case, out: string): string {
  return `
    CREATE TABLE t (id INT, k STRING, tags ARRAY<STRING>, m MAP<STRING, INT>, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (${c.columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out ${c.query};`
}

describe.each(CASES)('$name', c => {
  let expected: string[]
  beforeAll(async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await runInsertJob(sql(c, out), { 'pipeline.name': 'unnest-job', 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    expected = debeziumRows(out)
    expect(expected).toEqual(c.expected())
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(c, out), options: { 'pipeline.name': 'unnest-job', ...b.options(root) }, a, z, sourceRows: ROWS })
    expect(debeziumRows(out)).toEqual(expected)
  }, 240_000)
})
