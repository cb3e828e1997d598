// Oracle test over a JSON file of nested values: ARRAY<INT> and MAP<STRING, INT> columns (NULL
// columns, NULL elements, empty arrays and maps) read by Weir's json format and by DuckDB's
// read_json with the same column types, then taken apart by the collection functions and compared
// with = / <> (a MAP against one written in another entry order). Only where DuckDB's list_* and
// map_* functions mean what Flink's do (see collection-functions.test.ts for the differences; also,
// DuckDB's list_concat reads a NULL list as empty where Flink's ARRAY_CONCAT gives NULL).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DuckDBInstance, DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api'
import { Session } from '../../engine/session.js'
import { canonDuck, canonWeirRow, expectSameMultiset, materialize, Rng } from './oracle.js'

const ROWS = 1500
const KEYS = ['a', 'b', 'c', 'd']

describe.each([21, 22])('collection functions over a JSON file of arrays and maps vs DuckDB, seed %i', seed => {
  let dir: string
  let path: string
  let instance: DuckDBInstance
  let con: DuckDBConnection

  beforeAll(async () => {
    const rng = new Rng(seed)
    const lines: string[] = []
    for (let id = 0; id < ROWS; id++) {
      const arr = rng.chance(0.08) ? null : Array.from({ length: rng.int(0, 5) }, () => (rng.chance(0.15) ? null : rng.int(-3, 9)))
      let m: string | null = null
      if (!rng.chance(0.08)) {
        const keys = KEYS.filter(() => rng.chance(0.5))
        // Entries in a random order: equality must not depend on it.
        keys.sort(() => rng.next() - 0.5)
        m = `{${keys.map(k => `"${k}":${rng.chance(0.1) ? 'null' : rng.int(0, 3)}`).join(',')}}`
      }
      lines.push(`{"id":${id},"arr":${JSON.stringify(arr)},"m":${m ?? 'null'}}`)
    }
    dir = mkdtempSync(join(tmpdir(), 'weir-collection-json-'))
    path = join(dir, 'nested.jsonl')
    writeFileSync(path, lines.join('\n') + '\n')
    instance = await DuckDBInstance.create(':memory:')
    con = await instance.connect()
    await con.run(`CREATE TABLE t AS SELECT * FROM read_json('${path}', format = 'newline_delimited',
      columns = {id: 'INTEGER', arr: 'INTEGER[]', m: 'MAP(VARCHAR, INTEGER)'})`)
  })
  afterAll(() => {
    con?.closeSync()
    instance?.closeSync()
    rmSync(dir, { recursive: true, force: true })
  })

  async function expectSame(weirSql: string, duckSql: string): Promise<void> {
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`CREATE TABLE t (id INT, arr ARRAY<INT>, m MAP<STRING, INT>)
      WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      ${weirSql}`)
    const last = results.at(-1)
    if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
    const weir = materialize(last.changes).map(r => canonWeirRow(last.schema, r))
    const reader = await con.runAndReadAll(duckSql)
    const doubles = reader.columnTypes().map(t => t.typeId === DuckDBTypeId.DOUBLE)
    const duck = reader.getRows().map(row => row.map((v, i) => canonDuck(v, doubles[i]!)).join(' | '))
    expect(duck.length).toBeGreaterThan(100)
    expectSameMultiset(weir, duck)
  }

  it('ARRAY_* of the array column', async () => {
    await expectSame(
      `SELECT id, CARDINALITY(arr), ARRAY_REVERSE(arr)[1], ARRAY_SLICE(arr, 2, 3)[2], ARRAY_MAX(arr), ARRAY_MIN(arr), ARRAY_CONTAINS(arr, 4),
         COALESCE(ARRAY_POSITION(arr, 4), -1), ARRAY_SORT(arr)[1], ARRAY_SORT(arr, FALSE)[1], CARDINALITY(ARRAY_CONCAT(arr, ARRAY[1, 2])),
         ARRAY_APPEND(arr, 7)[CARDINALITY(arr) + 1], CARDINALITY(ARRAY_REMOVE(arr, 4)), CARDINALITY(ARRAY_DISTINCT(ARRAY_REMOVE(arr, CAST(NULL AS INT)))),
         arr = ARRAY[1, 2], arr <> ARRAY[3] FROM t`,
      `SELECT id, len(arr), list_reverse(arr)[1], list_slice(arr, 2, 3)[2], list_max(arr), list_min(arr), list_contains(arr, 4),
         CASE WHEN arr IS NULL THEN -1 ELSE COALESCE(list_position(arr, 4), 0) END, list_sort(arr, 'ASC', 'NULLS FIRST')[1],
         list_sort(arr, 'DESC', 'NULLS LAST')[1], CASE WHEN arr IS NOT NULL THEN len(list_concat(arr, [1, 2])) END, list_append(arr, 7)[len(arr) + 1],
         len(list_filter(arr, x -> x IS DISTINCT FROM 4)), len(list_distinct(arr)), arr = [1, 2], arr <> [3] FROM t`,
    )
  })

  it('MAP_* of the map column, and MAP equality whatever the entry order', async () => {
    await expectSame(
      `SELECT id, CARDINALITY(m), CARDINALITY(MAP_KEYS(m)), ARRAY_CONTAINS(MAP_KEYS(m), 'b'), MAP_CONTAINS_KEY(m, 'c'), m['a'],
         ARRAY_MAX(MAP_VALUES(m)), ARRAY_JOIN(ARRAY_SORT(MAP_KEYS(m)), ','),
         m = MAP['a', 1, 'b', 2], m = MAP['b', 2, 'a', 1], m IS NOT DISTINCT FROM MAP_UNION(m, MAP['a', m['a']]) FROM t`,
      `SELECT id, cardinality(m), len(map_keys(m)), list_contains(map_keys(m), 'b'), list_contains(map_keys(m), 'c'), m['a'],
         list_max(map_values(m)), array_to_string(list_sort(map_keys(m)), ','),
         CASE WHEN m IS NULL THEN NULL ELSE cardinality(m) = 2 AND m['a'] IS NOT DISTINCT FROM 1 AND m['b'] IS NOT DISTINCT FROM 2
           AND list_contains(map_keys(m), 'a') AND list_contains(map_keys(m), 'b') END,
         CASE WHEN m IS NULL THEN NULL ELSE cardinality(m) = 2 AND m['a'] IS NOT DISTINCT FROM 1 AND m['b'] IS NOT DISTINCT FROM 2
           AND list_contains(map_keys(m), 'a') AND list_contains(map_keys(m), 'b') END,
         m IS NULL OR list_contains(map_keys(m), 'a') FROM t`,
    )
  })
})
