// SHOW CREATE TABLE / VIEW: the text printed, and that running it in a fresh session gives the same
// catalog entry (round trip) for tables with every kind of column, a watermark, a key and options.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'
import type { CatalogObject } from '../../planner/index.js'
import { fails } from './helpers.js'

const SERVERS = `'properties.bootstrap.servers' = 'localhost:9092'`

/** A catalog entry without the spans (they point into the text it was created from). */
function entry(obj: CatalogObject | undefined): unknown {
  const skip = new Set(['span', 'keySpan', 'valueSpan', 'fnSpan', 'optionSpans', 'optionValueSpans'])
  return JSON.parse(JSON.stringify(obj, (k, v: unknown) => (skip.has(k) ? undefined : v)))
}

async function showCreate(s: Session, sql: string): Promise<string> {
  const [r] = await s.executeSql(sql) as [Extract<StatementResult, { kind: 'explain' }>]
  expect(r.kind).toBe('explain')
  return r.text
}

/** Creates with `ddl`, prints `name`'s DDL, runs it in a fresh session (after `setup`) and compares the entries. */
async function roundTrip(ddl: string, name: string, object: 'TABLE' | 'VIEW' = 'TABLE', setup = ''): Promise<string> {
  const key = name.startsWith('`') ? name.slice(1, -1).replaceAll('``', '`') : name
  const s = new Session()
  await s.executeSql(setup + ddl)
  const text = await showCreate(s, `SHOW CREATE ${object} ${name}`)
  const fresh = new Session()
  if (setup !== '') await fresh.executeSql(setup)
  await fresh.executeSql(text)
  expect(entry(fresh.catalog.get(key))).toEqual(entry(s.catalog.get(key)))
  expect(fresh.catalog.get(key)).toBeDefined()
  // And printed again, the same text.
  expect(await showCreate(fresh, `SHOW CREATE ${object} ${name}`)).toBe(text)
  return text
}

describe('SHOW CREATE TABLE', () => {
  it('prints columns, computed columns, the watermark, the key and the options as Flink lays them out', async () => {
    const text = await roundTrip(
      `CREATE TABLE orders (
        \`user\` BIGINT NOT NULL,
        product VARCHAR(32),
        amount DECIMAL(10, 2),
        ts TIMESTAMP(3),
        ptime AS PROCTIME(),
        doubled AS amount * 2,
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,
        PRIMARY KEY (\`user\`) NOT ENFORCED
      ) WITH ('connector' = 'datagen', 'rows-per-second' = '5', 'fields.product.length' = '3')`,
      'orders',
    )
    expect(text).toBe(
      [
        'CREATE TABLE `orders` (',
        '  `user` BIGINT NOT NULL,',
        '  `product` STRING,',
        '  `amount` DECIMAL(10, 2),',
        '  `ts` TIMESTAMP(3),',
        '  `ptime` AS PROCTIME(),',
        '  `doubled` AS amount * 2,',
        "  WATERMARK FOR `ts` AS ts - INTERVAL '1' SECOND,",
        '  CONSTRAINT `PK_user` PRIMARY KEY (`user`) NOT ENFORCED',
        ') WITH (',
        "  'connector' = 'datagen',",
        "  'rows-per-second' = '5',",
        "  'fields.product.length' = '3'",
        ')',
      ].join('\n'),
    )
  })

  it('round trips METADATA columns (FROM, VIRTUAL), TIMESTAMP_LTZ, a key implied NOT NULL and a quote in an option', async () => {
    const text = await roundTrip(
      `CREATE TABLE k (
        id INT PRIMARY KEY NOT ENFORCED,
        payload STRING,
        event_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
        \`offset\` BIGINT METADATA VIRTUAL,
        part INT METADATA FROM 'partition' VIRTUAL,
        WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
      ) WITH ('connector' = 'upsert-kafka', 'topic' = 'k', ${SERVERS}, 'properties.client.id' = 'it''s', 'key.format' = 'json', 'value.format' = 'json')`,
      'k',
    )
    expect(text).toContain('  `id` INT NOT NULL,\n')
    expect(text).toContain("  `event_time` TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',\n")
    expect(text).toContain('  `offset` BIGINT METADATA VIRTUAL,\n')
    expect(text).toContain("  `part` INT METADATA FROM 'partition' VIRTUAL,\n")
    expect(text).toContain("  'properties.client.id' = 'it''s',\n")
  })

  it('quotes names with backquotes in them, and keeps the case of names', async () => {
    const text = await roundTrip("CREATE TABLE `My``T` (`a``b` INT, Bc AS `a``b` + 1) WITH ('connector' = 'datagen')", '`My``T`')
    expect(text.split('\n').slice(0, 3)).toEqual(['CREATE TABLE `My``T` (', '  `a``b` INT,', '  `Bc` AS `a``b` + 1'])
  })

  it('prints the options as an ALTER TABLE left them', async () => {
    const s = new Session()
    await s.executeSql(`CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');
      ALTER TABLE t SET ('number-of-rows' = '10', 'rows-per-second' = '7')`)
    expect(await showCreate(s, 'SHOW CREATE TABLE t')).toContain(
      ") WITH (\n  'connector' = 'datagen',\n  'rows-per-second' = '7',\n  'number-of-rows' = '10'\n)",
    )
  })

  it('refuses an unknown name (with a guess) and a view, pointing at the name', async () => {
    const s = new Session()
    await s.executeSql(`CREATE TABLE orders (a INT) WITH ('connector' = 'datagen'); CREATE VIEW v AS SELECT a FROM orders`)
    const e = await fails('SHOW CREATE TABLE ordrs', s)
    expect(e.message).toBe("table or view 'ordrs' not found")
    expect(e.help).toBe("did you mean 'orders'?")
    expect(e.span?.start).toMatchObject({ line: 1, column: 19 })
    const v = await fails('SHOW CREATE TABLE\n  v', s)
    expect(v.message).toBe("'v' is a view, not a table")
    expect(v.help).toBe('use SHOW CREATE VIEW v')
    expect(v.span?.start).toMatchObject({ line: 2, column: 3 })
    const t = await fails('SHOW CREATE VIEW orders', s)
    expect(t.message).toBe("'orders' is a table, not a view")
  })
})

describe('SHOW CREATE VIEW', () => {
  it("prints the view's columns and its query as written, and round trips", async () => {
    const setup = `CREATE TABLE orders (id BIGINT, amount INT) WITH ('connector' = 'datagen');`
    const text = await roundTrip(
      'CREATE VIEW big (i, a) AS SELECT id, amount\n  FROM orders WHERE amount > 10',
      'big',
      'VIEW',
      setup,
    )
    expect(text).toBe('CREATE VIEW `big` (`i`, `a`) AS\nSELECT id, amount\n  FROM orders WHERE amount > 10')
    const plain = await roundTrip('CREATE VIEW v AS SELECT COUNT(*) AS n FROM orders', 'v', 'VIEW', setup)
    expect(plain).toBe('CREATE VIEW `v` AS\nSELECT COUNT(*) AS n FROM orders')
  })
})

describe('SHOW CREATE with comments', () => {
  it('keeps the COMMENTs of columns, the table and a view', async () => {
    const text = await roundTrip(
      `CREATE TABLE c (a INT COMMENT 'the ''a''', b AS a + 1 COMMENT 'b', m BIGINT METADATA FROM 'offset' VIRTUAL COMMENT 'o') COMMENT 'a table'
        WITH ('connector' = 'kafka', 'topic' = 'c', ${SERVERS}, 'format' = 'json')`,
      'c',
    )
    expect(text.split('\n').slice(0, 7)).toEqual([
      'CREATE TABLE `c` (',
      "  `a` INT COMMENT 'the ''a''',",
      "  `b` AS a + 1 COMMENT 'b',",
      "  `m` BIGINT METADATA FROM 'offset' VIRTUAL COMMENT 'o'",
      ')',
      "COMMENT 'a table'",
      'WITH (',
    ])
    const setup = `CREATE TABLE t (a INT) WITH ('connector' = 'datagen');`
    expect(await roundTrip(`CREATE VIEW v COMMENT 'v' AS SELECT a FROM t`, 'v', 'VIEW', setup)).toBe("CREATE VIEW `v`\nCOMMENT 'v' AS\nSELECT a FROM t")
  })
})
