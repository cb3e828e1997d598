// Temporal joins against a deduplicating view in the planner: a keep-last ROW_NUMBER() on the rowtime
// of an append-only table is a versioned view — keyed by its PARTITION BY, its rows read as versions
// without a Deduplicate (EXPLAIN) — and every other ranking view is refused at the view's name with
// what a versioned view needs.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const DDL =
  `CREATE TABLE orders (id INT, cur STRING, region STRING, amount INT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'json');
CREATE TABLE currency_rates (cur STRING, region STRING, rate INT, update_time TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR update_time AS update_time - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'json');
CREATE TABLE plain_rates (cur STRING, rate INT, update_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'json');
CREATE TABLE cdc_rates (cur STRING, rate INT, update_time TIMESTAMP(3), PRIMARY KEY (cur) NOT ENFORCED, WATERMARK FOR update_time AS update_time)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'debezium-json');
CREATE TABLE out (id INT, rate INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-never-written', 'format' = 'json');
`

/** A view `v` ranking `table` by `order`, keeping `rn <filter>`, selecting `select`. */
function view(
  { select = 'cur, rate, update_time', partition = 'cur', order = 'update_time DESC', table = 'currency_rates', filter = 'rn = 1' } = {},
): string {
  return `CREATE VIEW v AS SELECT ${select} FROM (
  SELECT *, ROW_NUMBER() OVER (${partition ? `PARTITION BY ${partition} ` : ''}ORDER BY ${order}) AS rn FROM ${table}) WHERE ${filter};\n`
}

async function explain(views: string, statement: string): Promise<string> {
  const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${DDL}${views}EXPLAIN ${statement}`)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

const JOIN = 'SELECT o.id, r.rate FROM orders o JOIN v FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur'

describe('temporal join against a deduplicating view', () => {
  it('event time: the rows are the versions, keyed by the PARTITION BY, with no Deduplicate; append-only into an insert-only sink', async () => {
    const text = await explain(view(), `INSERT INTO out ${JOIN.replace('JOIN v', 'LEFT JOIN v')} AND r.rate > o.amount`)
    expect(text).toMatch(
      /TemporalJoin\(joinType=\[LeftOuterJoin\], asOf=\[ts\], versionTime=\[update_time\], versions=\[the rows of view v, deduplicated by time in this join\], equi=\[cur = cur\], where=\[.*rate.*>.*amount.*\], .*changelog=\[insert-only\]\)/,
    )
    expect(text).toContain('state versions: MapState<time, version> per key; key=[cur]; ttl=[not needed]; bounded=[yes: freed by time')
    expect(text).toMatch(/\+- Exchange\(distribution=\[hash\[cur\]\]\)\n\s+\+- Source\(table=\[currency_rates\].*changelog=\[insert-only\]\)/)
    expect(text).not.toContain('Deduplicate')
    expect(text).not.toMatch(/WARNING|warning:/)
  })

  it('a composite PARTITION BY is the key; a view over the view, the row number selected, and a CTE are still versioned', async () => {
    const composite = await explain(
      view({ select: 'cur, region, rate, update_time', partition: 'cur, region' }),
      'SELECT o.id, r.rate FROM orders o JOIN v FOR SYSTEM_TIME AS OF o.ts AS r ON o.region = r.region AND o.cur = r.cur',
    )
    expect(composite).toMatch(/TemporalJoin\(.*versions=\[the rows of view v, .*equi=\[cur = cur, region = region\]/)
    const nested = await explain(
      `${view({ select: '*' })}CREATE VIEW w AS SELECT rate * 2 AS r2, update_time AS since, cur AS c, rn FROM v;\n`,
      'SELECT o.id, w.r2, w.rn FROM orders o JOIN w FOR SYSTEM_TIME AS OF o.ts ON o.cur = w.c',
    )
    expect(nested).toMatch(/TemporalJoin\(joinType=\[InnerJoin\], asOf=\[ts\], versionTime=\[since\], versions=\[the rows of view w, .*equi=\[cur = c\]/)
    expect(nested).not.toContain('Deduplicate')
    // A CTE is read the same way as a view.
    const cte = await explain(
      '',
      `WITH latest AS (SELECT cur, rate, update_time FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY cur ORDER BY update_time DESC) AS rn
        FROM currency_rates) WHERE rn = 1) SELECT o.id, l.rate FROM orders o JOIN latest FOR SYSTEM_TIME AS OF o.ts AS l ON o.cur = l.cur`,
    )
    expect(cte).toMatch(/TemporalJoin\(joinType=\[InnerJoin\], asOf=\[ts\], versionTime=\[update_time\], versions=\[the rows of view latest, /)
  })

  it('processing time: the latest row of the view per key, so its Deduplicate stays under the join', async () => {
    const text = await explain(view(), JOIN.replace('o.ts', 'o.pt'))
    expect(text).toMatch(/TemporalJoin\(joinType=\[InnerJoin\], asOf=\[pt \(proctime\)\], equi=\[cur = cur\]/)
    expect(text).toContain('state: ValueState<latest version> per key; key=[cur]')
    expect(text).toMatch(/Deduplicate\(keep=\[LastRow\], key=\[cur\], order=\[update_time\], changelog=\[updating\]\)/)
  })

  const REFUSED: readonly { name: string; views: string; message: string; help: string; statement?: string; at?: string }[] = [
    { name: 'keep-first', views: view({ order: 'update_time ASC' }),
      message: "'v' is not a versioned view: it keeps the first row per key (ORDER BY update_time ASC), where a versioned view keeps the last",
      help: "order the view's ROW_NUMBER() by update_time DESC" },
    { name: 'processing-time order', views: view({ order: 'pt DESC' }),
      message: "'v' is not a versioned view: it deduplicates by processing time (ORDER BY pt), so its rows have no event time to be looked up AS OF",
      help: 'or join AS OF a PROCTIME() column of the probe side' },
    { name: 'no watermark', views: view({ table: 'plain_rates' }),
      message: "'v' is not a versioned view: it orders its ROW_NUMBER() by update_time, which is not a rowtime (a column with a watermark)",
      help: 'declare WATERMARK FOR update_time AS … on the table the view reads' },
    { name: 'a Top-N', views: view({ filter: 'rn <= 2' }), message: "'v' is not a versioned view: it is a Top-N (ROW_NUMBER() <= 2), not a deduplication",
      help: 'PARTITION BY <key> ORDER BY <rowtime> DESC' },
    { name: 'an updating input', views: view({ table: 'cdc_rates' }),
      message: "'v' is not a versioned view: it deduplicates an updating input (table 'cdc_rates' (format 'debezium-json', a changelog)",
      help: 'a changelog table with a PRIMARY KEY and a watermark is versioned itself' },
    { name: 'a condition above the deduplication', views: view({ filter: 'rn = 1 AND rate > 3' }),
      message: "'v' is not a versioned view: it filters its deduplicated rows (a condition beside the one on the row number)",
      help: "move that condition out of the view into the join's ON clause" },
    { name: 'the time attribute not selected', views: view({ select: 'cur, rate' }),
      message: "'v' is not a versioned view: it does not select its time attribute update_time, each version's time",
      help: "add update_time to the view's SELECT list" },
    { name: 'the key not selected', views: view({ select: 'region, rate, update_time' }),
      statement: 'SELECT o.id FROM orders o JOIN v FOR SYSTEM_TIME AS OF o.ts AS r ON o.region = r.region',
      message: "'v' is not a versioned view: it does not select its PARTITION BY column cur, the primary key of a versioned view",
      help: "add cur to the view's SELECT list" },
    { name: 'no PARTITION BY', views: view({ partition: '' }), message: "'v' is not a versioned view: it has no PARTITION BY (it keeps one row in all)",
      help: "partition the view's ROW_NUMBER() by the key the join looks up" },
    { name: 'a PARTITION BY wider than the join key', views: view({ select: 'cur, region, rate, update_time', partition: 'cur, region' }),
      message: "the join condition does not cover the PARTITION BY columns of 'v' (cur, region): region is not equated with the probe side",
      help: 'add o.<column> = v.region to ON', at: 'o.cur = r.cur' },
    { name: 'a PARTITION BY on another column than the join key', views: view({ select: 'cur, region, rate, update_time', partition: 'region' }),
      message: "the join condition does not cover the PARTITION BY columns of 'v' (region): region is not equated with the probe side",
      help: 'add o.<column> = v.region to ON', at: 'o.cur = r.cur' },
    { name: 'no ranking at all', views: 'CREATE VIEW v AS SELECT cur, rate, update_time FROM currency_rates;\n',
      message: "'v' has no PRIMARY KEY, so it is not a versioned table: a temporal join looks up one version per key",
      help: 'a view is versioned when it keeps the last row per key' },
  ]

  it.each(REFUSED)('refuses a view with $name, at its name in the join', async c => {
    const e = await refusal(`${DDL}${c.views}${c.statement ?? JOIN}`)
    expect(e).toMatchObject({ kind: 'plan', at: c.at ?? 'v' })
    expect(e.message.startsWith(c.message), e.message).toBe(true)
    expect(e.help).toContain(c.help)
  })
})
