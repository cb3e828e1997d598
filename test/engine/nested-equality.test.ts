// = <> IS [NOT] DISTINCT FROM and IN between ROW, ARRAY and MAP values in jobs over a JSON file of
// nested values: in WHERE, as a join key and an IN-subquery key (a MAP equal to one whose entries
// come in another order), and an ARRAY as a GROUP BY key. As Flink compares them: element by
// element, NULL elements equal to each other, a NULL value unknown.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'

const A = [
  { id: 1, m: { a: 1, b: 2 }, arr: [1, 2], r: { x: 1, y: 'p' } },
  { id: 2, m: { b: 2, a: 1 }, arr: [1, null], r: { x: 1, y: null } },
  { id: 3, m: { a: 1 }, arr: [2, 1], r: { x: 2, y: 'p' } },
  { id: 4, m: null, arr: null, r: null },
  { id: 5, m: { a: 1, b: 3 }, arr: [1, 2], r: { x: 1, y: 'p' } },
  { id: 6, m: {}, arr: [], r: { x: null, y: null } },
]
const B = [
  { k: { b: 2, a: 1 }, label: 'ab' },
  { k: { a: 1 }, label: 'a' },
  { k: { a: 2 }, label: 'none' },
  { k: {}, label: 'empty' },
]

function ddl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-nested-eq-'))
  writeFileSync(join(dir, 'a.jsonl'), A.map(r => JSON.stringify(r)).join('\n') + '\n')
  writeFileSync(join(dir, 'b.jsonl'), B.map(r => JSON.stringify(r)).join('\n') + '\n')
  return `CREATE TABLE a (id INT, m MAP<STRING, INT>, arr ARRAY<INT>, r ROW<x INT, y STRING>)
      WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'a.jsonl')}', 'format' = 'json');
    CREATE TABLE b (k MAP<STRING, INT>, label STRING) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'b.jsonl')}', 'format' = 'json');`
}

/** The rows of a bounded query, materialized, each as its cells' JSON, sorted. */
async function rows(query: string): Promise<string[]> {
  const results = await new Session({ println: () => undefined }).executeSql(`${ddl()}\n${query}`)
  const last = results.at(-1)
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  const live: string[] = []
  for (const c of last.changes) {
    const text = JSON.stringify(c.row)
    if (c.kind === 0 || c.kind === 2) live.push(text)
    else live.splice(live.indexOf(text), 1)
  }
  return live.sort()
}

const ids = async (where: string) => (await rows(`SELECT id FROM a WHERE ${where}`)).map(r => JSON.parse(r)[0] as number).sort()

describe('nested values compared in jobs', () => {
  it('WHERE: = and <> element by element; a MAP whatever its entry order; NULL is unknown', async () => {
    expect(await ids(`m = MAP['a', 1, 'b', 2]`)).toEqual([1, 2])
    expect(await ids(`m <> MAP['b', 2, 'a', 1]`)).toEqual([3, 5, 6])
    expect(await ids(`arr = ARRAY[1, 2]`)).toEqual([1, 5])
    expect(await ids(`arr <> ARRAY[1, 2]`)).toEqual([2, 3, 6])
    // NULL elements are equal to each other inside an array (Flink's generated array comparison).
    expect(await ids(`arr = ARRAY[1, NULL]`)).toEqual([2])
    // A ROW compares by position whatever its field names; its fields widen (INT and BIGINT).
    expect(await ids(`r = ROW(1, 'p')`)).toEqual([1, 5])
    expect(await ids(`r = ROW(CAST(1 AS BIGINT), CAST(NULL AS STRING))`)).toEqual([2])
    expect(await ids(`r = (CAST(NULL AS INT), CAST(NULL AS STRING))`)).toEqual([6])
  })

  it('IS [NOT] DISTINCT FROM treats a NULL value as a value; IN and NOT IN', async () => {
    expect(await ids(`arr IS NOT DISTINCT FROM ARRAY[1, NULL]`)).toEqual([2])
    expect(await ids(`arr IS DISTINCT FROM ARRAY[1, NULL]`)).toEqual([1, 3, 4, 5, 6])
    expect(await ids(`m IS NOT DISTINCT FROM CAST(NULL AS MAP<STRING, INT>)`)).toEqual([4])
    expect(await ids(`m IN (MAP['b', 2, 'a', 1], MAP['a', 1])`)).toEqual([1, 2, 3])
    expect(await ids(`arr NOT IN (ARRAY[1, 2], ARRAY[2, 1])`)).toEqual([2, 6])
    expect(await ids(`ARRAY_CONTAINS(ARRAY[ARRAY[2, 1], ARRAY[1, NULL]], arr)`)).toEqual([2, 3])
  })

  it('a join on MAP equality meets maps whose entries come in another order', async () => {
    // Keys meet by their stored encoding: without the planner's MAP_KEY, {a=1, b=2} and {b=2, a=1} would not join.
    expect(await rows(`SELECT a.id, b.label FROM a JOIN b ON a.m = b.k`)).toEqual(['[1,"ab"]', '[2,"ab"]', '[3,"a"]', '[6,"empty"]'])
    expect(await rows(`SELECT a.id, b.label FROM a LEFT JOIN b ON a.m = b.k AND b.label <> 'a'`)).toEqual([
      '[1,"ab"]',
      '[2,"ab"]',
      '[3,null]',
      '[4,null]',
      '[5,null]',
      '[6,"empty"]',
    ])
    expect(await ids(`m IN (SELECT k FROM b)`)).toEqual([1, 2, 3, 6])
    expect(await ids(`m NOT IN (SELECT k FROM b WHERE label <> 'empty')`)).toEqual([5, 6])
  })

  it('an ARRAY and a ROW as GROUP BY keys (NULL elements group together)', async () => {
    expect(await rows(`SELECT arr, COUNT(*) FROM a GROUP BY arr`)).toEqual(['[[1,2],2]', '[[1,null],1]', '[[2,1],1]', '[[],1]', '[null,1]'])
    expect(await rows(`SELECT r.x, COUNT(*) FROM a GROUP BY r`)).toEqual(['[1,1]', '[1,2]', '[2,1]', '[null,1]', '[null,1]'])
  })
})
