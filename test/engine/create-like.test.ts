// CREATE TABLE … LIKE: the base table's schema and options merged by Flink's strategies, the table
// it gives (compared with the same table written out in full), and the conflicts it refuses.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import type { CatalogObject } from '../../planner/index.js'
import { parseSql } from '../../grammar/index.js'
import { fails } from './helpers.js'

const BASE = `CREATE TABLE base (
  id BIGINT, ts TIMESTAMP(3), d AS id * 2, m TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'kafka', 'topic' = 'b', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');`

const SKIP = new Set(['span', 'keySpan', 'valueSpan', 'fnSpan', 'optionSpans', 'optionValueSpans'])

/** A catalog entry without its name and spans (they point into the text it was created from). */
function entry(obj: CatalogObject | undefined): unknown {
  expect(obj).toBeDefined()
  const { name: _, ...rest } = obj!
  return JSON.parse(JSON.stringify(rest, (k, v: unknown) => (SKIP.has(k) ? undefined : v)))
}

/** The catalog entry of `like` (a CREATE TABLE … LIKE base) equals the one of `full` (the same table written out). */
async function same(like: string, full: string): Promise<void> {
  const s = new Session()
  await s.executeSql(BASE + like + ';' + full)
  const [a, b] = parseSql(like + ';' + full).map(st => (st.kind === 'CreateTable' ? st.name.parts.at(-1)!.value : ''))
  expect(entry(s.catalog.get(a!))).toEqual(entry(s.catalog.get(b!)))
}

describe('CREATE TABLE … LIKE', () => {
  it('by default includes everything, appends new columns and overwrites options', async () => {
    await same(
      `CREATE TABLE t (extra STRING) WITH ('topic' = 'c', 'scan.startup.mode' = 'earliest-offset') LIKE base`,
      `CREATE TABLE full_t (id BIGINT, ts TIMESTAMP(3), d AS id * 2, m TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL, extra STRING,
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED)
        WITH ('connector' = 'kafka', 'topic' = 'c', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset')`,
    )
  })

  it('EXCLUDING ALL keeps the physical columns only; a later option overrides ALL for its feature', async () => {
    await same(
      `CREATE TABLE t WITH ('connector' = 'blackhole') LIKE base (EXCLUDING ALL)`,
      `CREATE TABLE full_t (id BIGINT NOT NULL, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole')`,
    )
    await same(
      `CREATE TABLE t LIKE base (EXCLUDING ALL INCLUDING WATERMARKS INCLUDING OPTIONS)`,
      `CREATE TABLE full_t (id BIGINT NOT NULL, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
        WITH ('connector' = 'kafka', 'topic' = 'b', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json')`,
    )
  })

  it('OVERWRITING GENERATED / METADATA / WATERMARKS replaces the base definitions in place; EXCLUDING drops them', async () => {
    await same(
      `CREATE TABLE t (d AS id + 1, m TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', WATERMARK FOR ts AS ts)
        LIKE base (OVERWRITING GENERATED OVERWRITING METADATA OVERWRITING WATERMARKS EXCLUDING CONSTRAINTS)`,
      `CREATE TABLE full_t (id BIGINT NOT NULL, ts TIMESTAMP(3), d AS id + 1, m TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', WATERMARK FOR ts AS ts)
        WITH ('connector' = 'kafka', 'topic' = 'b', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json')`,
    )
    await same(
      `CREATE TABLE t (PRIMARY KEY (ts) NOT ENFORCED) LIKE base (EXCLUDING GENERATED EXCLUDING METADATA EXCLUDING CONSTRAINTS EXCLUDING WATERMARKS)`,
      `CREATE TABLE full_t (id BIGINT NOT NULL, ts TIMESTAMP(3), PRIMARY KEY (ts) NOT ENFORCED)
        WITH ('connector' = 'kafka', 'topic' = 'b', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json')`,
    )
  })

  it('runs: a bounded datagen copied with more rows', async () => {
    const s = new Session()
    await s.executeSql(`CREATE TABLE g (a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '2');
      CREATE TABLE g2 (b AS a * 10) WITH ('fields.a.end' = '3') LIKE g`)
    const [r] = await s.executeSql('SELECT a, b FROM g2') as [Extract<StatementResult, { kind: 'rows' }>]
    expect(r.changes.map(c => c.row)).toEqual([[1, 10], [2, 20], [3, 30]])
  })

  it('refuses conflicts, pointing at them, with the option that resolves each', async () => {
    const s = new Session()
    await s.executeSql(BASE)
    const cases: [string, string, string, number][] = [
      [`CREATE TABLE t (id INT) LIKE base`, "a column named 'id' is in the base table 'base' already", 'give the column another name', 17],
      [`CREATE TABLE t (d AS id) LIKE base`, "a computed column named 'd' is in the base table 'base' already",
        'use OVERWRITING GENERATED to replace it, or EXCLUDING GENERATED', 17],
      [`CREATE TABLE t (m INT METADATA) LIKE base`, "a metadata column named 'm' is in the base table 'base' already",
        'use OVERWRITING METADATA to replace it, or EXCLUDING METADATA', 17],
      [`CREATE TABLE t (WATERMARK FOR ts AS ts) LIKE base`, "the base table 'base' has a watermark already (on 'ts')",
        'use OVERWRITING WATERMARKS to replace it, or EXCLUDING WATERMARKS', 17],
      [`CREATE TABLE t (PRIMARY KEY (ts) NOT ENFORCED) LIKE base`, "the base table 'base' has a primary key already",
        'use EXCLUDING CONSTRAINTS to declare another', 17],
      [`CREATE TABLE t WITH ('topic' = 'x') LIKE base (INCLUDING OPTIONS)`, "option 'topic' is in the base table 'base' already",
        'use OVERWRITING OPTIONS to replace it, or EXCLUDING OPTIONS', 22],
      [`CREATE TABLE t LIKE base (OVERWRITING CONSTRAINTS)`, 'OVERWRITING CONSTRAINTS is not a LIKE option',
        'use INCLUDING CONSTRAINTS or EXCLUDING CONSTRAINTS', 27],
      [`CREATE TABLE t LIKE base (INCLUDING OPTIONS EXCLUDING OPTIONS)`, 'LIKE option OPTIONS is given twice', 'give each feature one strategy', 45],
      [`CREATE TABLE t LIKE base (INCLUDING COLUMNS)`, "unknown LIKE feature 'COLUMNS'",
        'use ALL, CONSTRAINTS, GENERATED, OPTIONS, WATERMARKS, METADATA or PARTITIONS', 37],
      [`CREATE TABLE t LIKE bse`, "table or view 'bse' not found", "did you mean 'base'?", 21],
      [`CREATE TABLE t`, 'CREATE TABLE needs its columns',
        'list them after the name: CREATE TABLE t (a INT, …) WITH (…), copy another table with … LIKE other, or take them from a query with … AS SELECT', 14],
    ]
    for (const [sql, message, help, column] of cases) {
      const e = await fails(sql, s)
      expect({ message: e.message, help: e.help, column: e.span?.start.column }).toEqual({ message, help, column })
    }
    await s.executeSql(`CREATE TABLE dg (a INT) WITH ('connector' = 'datagen'); CREATE VIEW v AS SELECT a FROM dg`)
    expect((await fails('CREATE TABLE t LIKE v', s)).message).toBe("'v' is a view: LIKE copies a table")
    expect(s.catalog.get('t')).toBeUndefined()
  })

  it('checks the merged options with the connector, blaming an option of the base table on the LIKE clause', async () => {
    const s = new Session()
    await s.executeSql(BASE)
    const own = await fails(`CREATE TABLE t WITH ('format' = 'nosuch') LIKE base`, s)
    expect(own.message).toContain("'nosuch'")
    expect(own.span?.start.column).toBe(33)
    const inherited = await fails(`CREATE TABLE t WITH ('connector' = 'datagen') LIKE base (EXCLUDING GENERATED EXCLUDING METADATA EXCLUDING WATERMARKS)`, s)
    expect(inherited.message).toBe("unsupported option 'topic' for connector 'datagen'")
    expect(inherited.span?.start.column).toBe(52)
  })
})
