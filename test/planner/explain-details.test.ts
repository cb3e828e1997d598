// EXPLAIN's details (Flink's EXPLAIN [ESTIMATED_COST | CHANGELOG_MODE | PLAN_ADVICE | JSON_EXECUTION_PLAN]*):
// the JSON execution plan names every operator with its parallelism and ship strategies as the runtime
// connects them; the estimates print only what the sources' options and file sizes give, unknown otherwise;
// plan advice is the unbounded-state warnings; the details combine; an unknown one is refused at its name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'

const DDL = `
CREATE TABLE g (id BIGINT, v INT, k STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '1000', 'rows-per-second' = '500');
CREATE TABLE u (id BIGINT, k STRING) WITH ('connector' = 'datagen');
`

async function explain(sql: string, setup = DDL): Promise<string> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(setup)
  const r = (await session.executeSql(sql)).at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

interface JsonPlan {
  nodes: {
    id: number
    type: string
    pact: string
    contents: string
    parallelism: number
    predecessors?: { id: number; ship_strategy: string; side: string }[]
  }[]
}

function jsonOf(text: string): JsonPlan {
  const at = text.indexOf('== Physical Execution Plan ==\n')
  expect(at, 'the JSON section is there').toBeGreaterThan(0)
  return JSON.parse(text.slice(at + '== Physical Execution Plan ==\n'.length)) as JsonPlan
}

describe('EXPLAIN JSON_EXECUTION_PLAN', () => {
  it('a GROUP BY at parallelism 2: every operator, its parallelism, HASH on the group key, the collector fed GLOBAL', async () => {
    const text = await explain(`SET 'parallelism.default' = '2';
      EXPLAIN JSON_EXECUTION_PLAN SELECT k, COUNT(*) AS n FROM g WHERE v > 3 GROUP BY k`)
    expect(text.startsWith('== Physical Plan ==\n')).toBe(true)
    const plan = jsonOf(text)
    expect(plan.nodes.map(n => [n.id, n.type, n.pact, n.parallelism])).toEqual([
      [1, 'Source: g', 'Data Source', 2],
      [2, 'GroupAggregate', 'Operator', 2],
      [3, 'Collect', 'Data Sink', 1],
    ])
    expect(plan.nodes[0]!.predecessors).toBeUndefined()
    expect(plan.nodes[1]!.predecessors).toEqual([{ id: 1, ship_strategy: 'HASH[k]', side: 'first' }])
    expect(plan.nodes[2]!.predecessors).toEqual([{ id: 2, ship_strategy: 'GLOBAL', side: 'first' }])
    expect(plan.nodes[1]!.contents).toBe('GroupAggregate(groupBy=[k], select=[k, COUNT(*) AS n], changelog=[updating])')
  })

  it('forward chains at parallelism 1, a join with two sides, a global aggregate', async () => {
    const plan = jsonOf(await explain(`EXPLAIN JSON_EXECUTION_PLAN
      SELECT g.k, u.id FROM g JOIN u ON g.k = u.k UNION ALL SELECT CAST(NULL AS STRING), COUNT(*) FROM u`))
    const join = plan.nodes.find(n => n.type === 'Join')!
    expect(join.predecessors!.map(p => [p.ship_strategy, p.side])).toEqual([['HASH[k]', 'first'], ['HASH[k]', 'second']])
    const global = plan.nodes.find(n => n.type === 'GroupAggregate')!
    expect(global.predecessors!.map(p => p.ship_strategy)).toEqual(['GLOBAL'])
    expect(plan.nodes.every(n => n.parallelism === 1)).toBe(true)
    const ids = new Set(plan.nodes.map(n => n.id))
    expect(plan.nodes.flatMap(n => n.predecessors ?? []).every(p => ids.has(p.id)), 'predecessors name nodes of the plan').toBe(true)
  })
})

describe('EXPLAIN ESTIMATED_COST', () => {
  it('derives rows and rate from datagen options, bounds them under a filter and a limit, unknown past an aggregate', async () => {
    const text = await explain('EXPLAIN ESTIMATED_COST SELECT id FROM g WHERE v > 3 ORDER BY id LIMIT 10')
    expect(text).toContain(
      'Source(table=[g], connector=[datagen], fields=[id], filter=[(v > 3)], changelog=[insert-only]): rows=[≤1000], rate=[≤500 rows/s], cumulativeRows=[≤1000]',
    )
    expect(text).toMatch(/Sort\(.*\): rows=\[≤10\], rate=\[unknown\], cumulativeRows=\[≤1010\]/)
    const agg = await explain('EXPLAIN ESTIMATED_COST SELECT k, COUNT(*) FROM g GROUP BY k')
    expect(agg).toContain('Source(table=[g], connector=[datagen], fields=[k], changelog=[insert-only]): rows=[1000], rate=[500 rows/s], cumulativeRows=[1000]')
    expect(agg).toMatch(/GroupAggregate\(.*\): rows=\[unknown\], rate=\[unknown\], cumulativeRows=\[unknown\]/)
  })

  it('an unbounded datagen: rows unknown, its default pace; a file source: its bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-explain-cost-'))
    try {
      writeFileSync(join(dir, 'a.jsonl'), '{"x":1}\n{"x":2}\n')
      writeFileSync(join(dir, 'b.jsonl'), '{"x":3}\n')
      const text = await explain(
        'EXPLAIN ESTIMATED_COST SELECT x FROM f UNION ALL SELECT CAST(id AS INT) FROM u',
        `${DDL}CREATE TABLE f (x INT) WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'json');`,
      )
      expect(text).toMatch(/Source\(table=\[f\].*\): rows=\[unknown\], rate=\[unknown\], cumulativeRows=\[unknown\], sourceBytes=\[24\]/)
      expect(text).toMatch(/Source\(table=\[u\].*\): rows=\[unknown\], rate=\[10000 rows\/s\], cumulativeRows=\[unknown\]/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('EXPLAIN PLAN_ADVICE and combined details', () => {
  it('gives the unbounded-state warnings as advice, or says there is none', async () => {
    const text = await explain('EXPLAIN PLAN_ADVICE SELECT k, COUNT(*) FROM u GROUP BY k')
    expect(text).toContain('== Plan Advice ==')
    expect(text).toMatch(/advice\[1\]: \[WARNING\] .*grows without bound; set 'table\.exec\.state\.ttl'/)
    expect(text).not.toContain('== Warnings ==')
    expect(await explain('EXPLAIN PLAN_ADVICE SELECT id FROM u')).toContain('No available advice')
  })

  it('CHANGELOG_MODE, ESTIMATED_COST and JSON_EXECUTION_PLAN together', async () => {
    const text = await explain('EXPLAIN CHANGELOG_MODE, ESTIMATED_COST, JSON_EXECUTION_PLAN SELECT k, COUNT(*) FROM g GROUP BY k')
    expect(text).toMatch(/GroupAggregate\(groupBy=\[k\], .*changelogMode=\[I,UB,UA\]\): rows=\[unknown\]/)
    expect(jsonOf(text).nodes).toHaveLength(3)
  })

  it('refuses an unknown detail at its name', async () => {
    const error = await explain('EXPLAIN CHANGELOG_MODE, COSTS SELECT id FROM u').then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(WeirError)
    expect((error as WeirError).message).toBe('EXPLAIN COSTS is not supported')
    expect((error as WeirError).help).toContain('ESTIMATED_COST, CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN')
    const span = (error as WeirError).span!
    expect(`${span.start.line}:${span.start.column}-${span.end.column}`).toBe('1:25-30')
  })
})
