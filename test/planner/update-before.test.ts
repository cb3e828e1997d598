// Who reads -U rows: a GROUP BY feeding only an upsert sink keyed by its groups, or a blackhole,
// emits its updates as +U alone; anything that retracts with -U (a changelog sink, a SELECT's view,
// another aggregate, a join) still gets them, and so does the materializer in front of an upsert
// sink whose key is not the query's unique key. The job then really emits no -U rows.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'

const DDL = `
  CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000', 'seed' = '7', 'fields.k.length' = '1', 'fields.v.min' = '0', 'fields.v.max' = '9');
  CREATE TABLE hole (k STRING, c BIGINT) WITH ('connector' = 'blackhole');
  CREATE TABLE up (k STRING, c BIGINT, PRIMARY KEY (k) NOT ENFORCED)
    WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'value.format' = 'json');
  CREATE TABLE by_count (c BIGINT, k STRING, PRIMARY KEY (c) NOT ENFORCED)
    WITH ('connector' = 'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'value.format' = 'json');
  CREATE TABLE shown (k STRING, c BIGINT) WITH ('connector' = 'print');
  CREATE TABLE changes (k STRING, c BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-never-written', 'format' = 'debezium-json');`

async function explain(statement: string): Promise<string> {
  const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${DDL}\nEXPLAIN ${statement}`)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

/** The changelog EXPLAIN gives the first operator of `kind` (the one nearest the sink). */
async function changelogOf(statement: string, kind: string): Promise<string> {
  return (await changelogsOf(statement, kind))[0]!
}

/** The changelogs of every operator of `kind`, from the sink down. */
async function changelogsOf(statement: string, kind: string): Promise<string[]> {
  const lines = (await explain(statement)).split('\n').filter(l => l.includes(`${kind}(`))
  expect(lines.length, kind).toBeGreaterThan(0)
  return lines.map(l => /changelog=\[([^\]]*)\]/.exec(l)![1]!)
}

const COUNT = 'SELECT k, COUNT(*) FROM src GROUP BY k'

describe('-U rows only for who reads them', () => {
  it('a GROUP BY into a blackhole, or into an upsert sink keyed by its groups, emits no -U', async () => {
    expect(await changelogOf(`INSERT INTO hole ${COUNT}`, 'GroupAggregate')).toBe('updating, no -U')
    expect(await changelogOf(`INSERT INTO up ${COUNT}`, 'GroupAggregate')).toBe('updating, no -U')
    // Through a projection that keeps the key (not one that computes it: UPPER(k) may merge two groups).
    expect(await changelogOf(`INSERT INTO up SELECT k, c + 1 FROM (${COUNT.replace('COUNT(*)', 'COUNT(*) AS c')})`, 'GroupAggregate'))
      .toBe('updating, no -U')
    expect(await changelogOf(`INSERT INTO up SELECT UPPER(k), c FROM (${COUNT.replace('COUNT(*)', 'COUNT(*) AS c')})`, 'GroupAggregate'))
      .toBe('updating')
    expect(await explain(`INSERT INTO up ${COUNT}`)).not.toContain('UpsertMaterialize')
  })

  it('a changelog sink, another aggregate, and the materializer of a mismatched upsert key read -U', async () => {
    expect(await changelogOf(`INSERT INTO shown ${COUNT}`, 'GroupAggregate')).toBe('updating')
    expect(await changelogOf(`INSERT INTO changes ${COUNT}`, 'GroupAggregate')).toBe('updating')
    // The outer GROUP BY feeds the blackhole; the inner one feeds the outer, which retracts with its -U.
    expect(
      await changelogsOf(`INSERT INTO hole SELECT CAST(c AS STRING), COUNT(*) FROM (${COUNT.replace('COUNT(*)', 'COUNT(*) AS c')}) GROUP BY c`,
        'GroupAggregate'),
    ).toEqual(['updating, no -U', 'updating'])
    // Rows unique by k, the sink keyed by the count: a group's -U must delete its old count's row.
    const mismatched = await explain(`INSERT INTO by_count SELECT COUNT(*), k FROM src GROUP BY k`)
    expect(mismatched).toMatch(/UpsertMaterialize\(key=\[c\], changelog=\[updating, no -U\]\)/)
    expect(await changelogOf(`INSERT INTO by_count SELECT COUNT(*), k FROM src GROUP BY k`, 'GroupAggregate')).toBe('updating')
    // A filter over the updates (HAVING) can drop a group's new value while its old one passes: only the
    // -U can take the key away, through the materializer.
    const having = await explain(`INSERT INTO up SELECT k, MAX(v) FROM src GROUP BY k HAVING MAX(v) < 8`)
    expect(having).toContain('UpsertMaterialize(key=[k]')
    expect(await changelogOf(`INSERT INTO up SELECT k, MAX(v) FROM src GROUP BY k HAVING MAX(v) < 8`, 'GroupAggregate')).toBe('updating')
    // A filter below the GROUP BY sees only inserts: no materializer.
    expect(await explain(`INSERT INTO up SELECT k, COUNT(*) FROM src WHERE v < 8 GROUP BY k`)).not.toContain('UpsertMaterialize')
    // UPPER(k) may map two groups to one key: materialized too.
    expect(await explain(`INSERT INTO up SELECT UPPER(k), COUNT(*) FROM src GROUP BY k`)).toContain('UpsertMaterialize(key=[k]')
  })

  it('the job emits no -U rows into a blackhole: its rows are the changelog without its -U rows', async () => {
    const lines: string[] = []
    const run = async (table: string): Promise<number> => {
      const session = new Session({ println: l => lines.push(l), options: { 'execution.batch-size': '7' } })
      await session.executeSql(`${DDL}\nINSERT INTO ${table} ${COUNT};`)
      const [m] = await session.awaitJobs()
      return m!.sinkRows[table]!
    }
    const hole = await run('hole')
    const shown = await run('shown')
    const before = lines.filter(l => l.startsWith('-U[')).length
    expect(before).toBeGreaterThan(100)
    expect(lines.filter(l => l.startsWith('+U[')).length).toBe(before)
    expect(shown).toBe(lines.length)
    expect(hole).toBe(shown - before)
  })
})
