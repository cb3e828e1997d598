// UNNEST over a changelog source (debezium-json with an ARRAY column): an update retracts the old
// array's element rows (-U) and adds the new one's (+U), a delete deletes them, and the LEFT form
// retracts and adds the NULL-padded row of an empty array. A GROUP BY over the elements follows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROW_KIND_SHORT } from '../../core/batch.js'
import { Session } from '../../engine/session.js'
import { rocksDir } from '../oracle/oracle.js'

let dir: string
let ddl: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weir-unnest-cdc-'))
  const path = join(dir, 'cdc.jsonl')
  const events = [
    { before: null, after: { id: 1, tags: ['a', 'b'] }, op: 'c' },
    { before: { id: 1, tags: ['a', 'b'] }, after: { id: 1, tags: ['c'] }, op: 'u' },
    { before: null, after: { id: 2, tags: [] }, op: 'c' },
    { before: { id: 2, tags: [] }, after: { id: 2, tags: ['d', null] }, op: 'u' },
    { before: { id: 1, tags: ['c'] }, after: null, op: 'd' },
    { before: null, after: { id: 3, tags: null }, op: 'c' },
  ]
  writeFileSync(path, events.map(e => JSON.stringify(e)).join('\n') + '\n')
  ddl = `CREATE TABLE cdc (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'debezium-json');`
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function changes(query: string, options: Readonly<Record<string, string>> = {}): Promise<unknown[][]> {
  const sets = Object.entries(options).map(([k, v]) => `SET '${k}' = '${v}';\n`).join('')
  const results = await new Session({ println: () => undefined }).executeSql(`${sets}${ddl}\n${query}`)
  const last = results.at(-1)
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  return last.changes.map(c => [ROW_KIND_SHORT[c.kind], ...c.row])
}

describe('UNNEST over a debezium-json source', () => {
  it('gives each element row its change kind', async () => {
    expect(await changes('SELECT id, x, pos FROM cdc CROSS JOIN UNNEST(cdc.tags) WITH ORDINALITY AS u(x, pos)')).toEqual([
      ['+I', 1, 'a', 1],
      ['+I', 1, 'b', 2],
      ['-U', 1, 'a', 1],
      ['-U', 1, 'b', 2],
      ['+U', 1, 'c', 1],
      ['+U', 2, 'd', 1],
      ['+U', 2, null, 2],
      ['-D', 1, 'c', 1],
    ])
  })

  it('LEFT JOIN … ON TRUE: an empty or NULL array is one NULL-padded row, retracted like any other', async () => {
    expect(await changes('SELECT id, x FROM cdc LEFT JOIN UNNEST(cdc.tags) AS u(x) ON TRUE')).toEqual([
      ['+I', 1, 'a'],
      ['+I', 1, 'b'],
      ['-U', 1, 'a'],
      ['-U', 1, 'b'],
      ['+U', 1, 'c'],
      ['+I', 2, null],
      ['-U', 2, null],
      ['+U', 2, 'd'],
      ['+U', 2, null],
      ['-D', 1, 'c'],
      ['+I', 3, null],
    ])
  })

  it.each([['heap', {}], ['rocksdb', 'rocks']] as const)('a GROUP BY over the elements retracts what was unnested, on %s', async (_name, backend) => {
    const options: Record<string, string> = backend === 'rocks'
      ? { 'state.backend': 'rocksdb', 'state.dir': rocksDir(), 'execution.batch-size': '1' }
      : { 'execution.batch-size': '1' }
    const out = await changes('SELECT x, COUNT(*) FROM cdc CROSS JOIN UNNEST(cdc.tags) AS u(x) GROUP BY x', options)
    // Materialized: only id 2's elements remain.
    const live = new Map<string, unknown[]>()
    for (const [kind, x, n] of out) {
      const key = JSON.stringify(x)
      if (kind === '+I' || kind === '+U') live.set(key, [x, n])
      else live.delete(key)
    }
    expect([...live.values()].sort()).toEqual([['d', 1], [null, 1]].sort())
    expect(out.some(([kind]) => kind === '-D')).toBe(true)
  })
})
