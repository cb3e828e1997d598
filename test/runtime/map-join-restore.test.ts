// A regular join whose key is a MAP, read from a JSON file where the two sides write each map's
// entries in opposite orders: the planner canonicalizes the key (MAP_KEY), so the join state is keyed
// by the map's value, not its entry order. Run straight, and checkpointed at one parallelism,
// cancelled and restored at another, on heap and RocksDB; all must give the hand-computed pairs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_MATRIX, runInsertJob } from '../support/restore-runs.js'

const EVENTS = 6000
let root: string
let input: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-map-join-'))
  input = join(root, 'events.jsonl')
  const lines: string[] = []
  for (let i = 0; i < EVENTS; i++) {
    // Left rows (even ids) write {a, b}; right rows (odd ids) write {b, a}: equal maps, other entry order.
    const a = Math.floor(i / 2) % 200, b = Math.floor(i / 2) % 7
    const m = i % 2 === 0 ? `{"a":${a},"b":${b}}` : `{"b":${b},"a":${a}}`
    lines.push(`{"id":${i},"side":${i % 2},"m":${m}}`)
  }
  writeFileSync(input, lines.join('\n') + '\n')
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

function sql(out: string): string {
  return `CREATE TABLE e (id INT, side INT, m MAP<STRING, INT>) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = 'json');
    CREATE TABLE out (lid INT, rid INT, rkeys STRING) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
    INSERT INTO out SELECT l.id, r.id, ARRAY_JOIN(MAP_KEYS(r.m), ',')
      FROM (SELECT id, m FROM e WHERE side = 0) AS l JOIN (SELECT id, m FROM e WHERE side = 1) AS r ON l.m = r.m;`
}

function expected(): string[] {
  const rows: string[] = []
  const key = (i: number) => `${Math.floor(i / 2) % 200}/${Math.floor(i / 2) % 7}`
  const right = new Map<string, number[]>()
  for (let r = 1; r < EVENTS; r += 2) right.set(key(r), [...(right.get(key(r)) ?? []), r])
  for (let l = 0; l < EVENTS; l += 2) for (const r of right.get(key(l)) ?? []) rows.push(JSON.stringify({ lid: l, rid: r, rkeys: 'b,a' }))
  return rows.sort()
}

describe('a join keyed by a MAP whose entries come in another order on each side', () => {
  it('straight: every pair of equal maps', async () => {
    const out = mkdtempSync(join(root, 'straight-'))
    expect((await runInsertJob(sql(out), { 'state.backend': 'heap', 'execution.batch-size': '1' })).cancelled).toBe(false)
    const rows = debeziumRows(out)
    expect(rows.length).toBeGreaterThan(5000)
    expect(rows).toEqual(expected())
  }, 120_000)

  it.each(RESTORE_MATRIX)('$b.name: checkpointed at p=$a, cancelled, restored at p=$z', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sql(out), options: b.options(root), a, z, sourceRows: EVENTS * 2, scans: 2 })
    expect(debeziumRows(out)).toEqual(expected())
  }, 240_000)
})
