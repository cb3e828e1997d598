// Tables read as a changelog ('format' = 'debezium-json'): their scan is updating, so a GROUP BY
// over them retracts, sinks that take updates accept them, and insert-only sinks and window
// functions refuse them naming the table, with a caret on it.
import { describe, expect, it } from 'vitest'
import { refusal, type Refusal } from './refused.js'
import { Session } from '../../engine/session.js'

const DDL = `CREATE TABLE orders (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'localhost:1', 'scan.startup.mode' = 'earliest-offset',
    'value.format' = 'debezium-json');
CREATE TABLE files (id INT, k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'debezium-json');
CREATE TABLE plain (id INT, k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'json');
CREATE TABLE to_kafka (k STRING, n BIGINT) WITH ('connector' = 'kafka', 'topic' = 'o', 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'json');
CREATE TABLE to_upsert (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'u', 'properties.bootstrap.servers' = 'localhost:1', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE to_json (id INT, k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-never-written', 'format' = 'json');
CREATE TABLE to_changelog (id INT, k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-never-written', 'format' = 'debezium-json');
CREATE TABLE to_print (k STRING, n BIGINT) WITH ('connector' = 'print');
`

async function explain(statement: string): Promise<string> {
  const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${DDL}\nEXPLAIN ${statement}`)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

/** The error of `statement` after the DDL, and the SQL text its caret covers. */
function refused(statement: string): Promise<Refusal> {
  return refusal(`${DDL}\n${statement}`)
}

describe('a debezium-json table', () => {
  it('is an updating scan, and a GROUP BY over it consumes retractions', async () => {
    const text = await explain('SELECT k, COUNT(*), SUM(v), MAX(v) FROM orders GROUP BY k')
    expect(text).toMatch(/Source\(table=\[orders\], connector=\[kafka\].*changelog=\[updating\]\)/)
    expect(text).toContain('consumesRetractions=[true]')
    const plain = await explain('SELECT k, COUNT(*) FROM plain GROUP BY k')
    expect(plain).toMatch(/Source\(table=\[plain\].*changelog=\[insert-only\]\)/)
    expect(plain).not.toContain('consumesRetractions')
    expect(await explain('SELECT k, COUNT(*) FROM files WHERE v > 1 GROUP BY k')).toMatch(/Source\(table=\[files\].*changelog=\[updating\]\)/)
  })

  it('goes to sinks that take updates: print, upsert-kafka, debezium-json files, blackhole', async () => {
    await explain('INSERT INTO to_print SELECT k, COUNT(*) FROM orders GROUP BY k')
    await explain('INSERT INTO to_upsert SELECT k, COUNT(*) FROM orders GROUP BY k')
    await explain('INSERT INTO to_changelog SELECT id, k, v FROM orders WHERE v > 0')
    expect(await explain('INSERT INTO to_changelog SELECT * FROM files')).toMatch(/Sink\(table=\[to_changelog\].*changelog=\[updating\]\)/)
  })

  it('is refused by insert-only sinks, naming the table, with the caret on it', async () => {
    const kafka = await refused('INSERT INTO to_kafka SELECT k, CAST(v AS BIGINT) FROM orders WHERE v > 0')
    expect(kafka).toMatchObject({ kind: 'plan', at: 'orders' })
    expect(kafka.message).toBe(
      `table 'to_kafka' (connector 'kafka', format 'json') can only take inserts, but the query produces updates from table 'orders' (format 'debezium-json', a changelog) at line 13, column 55`,
    )
    expect(kafka.help).toBe(
      `write to an 'upsert-kafka' table with a PRIMARY KEY (its messages are keyed upserts and tombstones), or set 'value.format' = 'debezium-json' on 'to_kafka' to write change events`,
    )
    const json = await refused('INSERT INTO to_json SELECT * FROM files')
    expect(json).toMatchObject({ kind: 'plan', at: 'files' })
    expect(json.message).toContain(`can only take inserts, but the query produces updates from table 'files' (format 'debezium-json', a changelog)`)
    expect(json.help).toBe(`set 'format' = 'debezium-json' on 'to_json' to write a changelog`)
  })

  it('refuses the debezium-json metadata keys on a table of another format, pointing at the column', async () => {
    const e = await refused(`CREATE TABLE j (id INT, src TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp')
      WITH ('connector' = 'kafka', 'topic' = 'j', 'properties.bootstrap.servers' = 'localhost:1', 'format' = 'json');`)
    expect(e).toMatchObject({ kind: 'connector', at: expect.stringMatching(/^src/) })
    expect(e.message).toBe(`metadata 'value.source.timestamp' (column 'src') is the 'debezium-json' format's, but the table's value format is 'json'`)
    expect(e.help).toBe(`set 'value.format' = 'debezium-json' to read change events, or drop the column`)
  })

  it('is refused by window table functions and window aggregates, naming the table', async () => {
    const tvf = await refused("SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))")
    expect(tvf.kind).toBe('unsupported')
    expect(tvf.message).toMatch(/^a window table function cannot consume the updates produced by table 'orders' \(format 'debezium-json', a changelog\)/)
    expect(tvf.at).toMatch(/^TABLE\(TUMBLE\(TABLE orders/)
    expect(tvf.help).toContain(`group the changelog of 'orders' with a GROUP BY instead`)
    const agg = await refused(
      "SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end",
    )
    expect(agg.message).toMatch(/^a window (table function|aggregate) cannot consume the updates produced by table 'orders'/)
  })
})
