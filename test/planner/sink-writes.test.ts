// What an INSERT may write, checked when it is planned: the columns it fills (physical and
// non-VIRTUAL metadata ones, as Flink's persisted columns), metadata only a sink can write, options
// only a sink refuses (with the caret on the option), and the Kafka sinks' formats and key options.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { refusal } from './refused.js'

const SERVERS = `'properties.bootstrap.servers' = 'localhost:1'`
const SRC = `CREATE TABLE src (k STRING, v INT, ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '5');`

async function explain(sql: string): Promise<string> {
  const results = await new Session({ println: () => undefined, explainOnly: true }).executeSql(`${SRC}\n${sql}`)
  const r = results.at(-1)!
  if (r.kind !== 'explain') throw new Error(`expected an explain result, got ${r.kind}`)
  return r.text
}

describe('an INSERT is refused at plan time, pointing into the CREATE TABLE', () => {
  it("when the filesystem sink cannot write 'debezium-json.schema-include', a table that can still be read", async () => {
    const ddl = `CREATE TABLE cdc (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '/tmp/weir-never-written', 'format' = 'debezium-json',
      'debezium-json.schema-include' = 'true');`
    await explain(`${ddl} EXPLAIN SELECT * FROM cdc`)
    const e = await refusal(`${SRC} ${ddl} INSERT INTO cdc SELECT k, v FROM src;`)
    expect(e).toMatchObject({ kind: 'unsupported', at: `'debezium-json.schema-include'` })
    expect(e.message).toBe(`table 'cdc' cannot be written: the filesystem sink cannot write 'debezium-json.schema-include' = 'true'`)
  })

  it("when the Kafka sink cannot write 'debezium-json.schema-include'", async () => {
    const e = await refusal(`${SRC} CREATE TABLE cdc (k STRING, v BIGINT) WITH ('connector' = 'kafka', 'topic' = 'c', ${SERVERS},
      'value.format' = 'debezium-json', 'debezium-json.schema-include' = 'true');
      INSERT INTO cdc SELECT k, COUNT(*) FROM src GROUP BY k;`)
    expect(e).toMatchObject({ kind: 'unsupported', at: `'debezium-json.schema-include'` })
  })

  it('when a non-VIRTUAL metadata column is one the Kafka sink only reads (Flink: only timestamp and headers are writable)', async () => {
    const e = await refusal(`${SRC} CREATE TABLE out (k STRING, o BIGINT METADATA FROM 'offset')
      WITH ('connector' = 'kafka', 'topic' = 'o', ${SERVERS}, 'format' = 'json');
      INSERT INTO out SELECT k, CAST(v AS BIGINT) FROM src;`)
    expect(e).toMatchObject({ kind: 'plan', at: `o BIGINT METADATA FROM 'offset'` })
    expect(e.message).toBe(`table 'out' cannot be written: connector 'kafka' cannot write metadata 'offset' (column 'o')`)
    expect(e.help).toContain(`declare the column VIRTUAL`)
    // VIRTUAL, it is read only: the INSERT fills the physical columns alone.
    await explain(`CREATE TABLE out (k STRING, o BIGINT METADATA FROM 'offset' VIRTUAL) WITH ('connector' = 'kafka', 'topic' = 'o', ${SERVERS},
      'format' = 'json'); EXPLAIN INSERT INTO out SELECT k FROM src`)
  })

  it("when 'upsert-kafka' is given debezium-json (its messages are upserts), pointing at the value", async () => {
    const e = await refusal(`${SRC} CREATE TABLE out (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'o',
      ${SERVERS}, 'key.format' = 'json', 'value.format' = 'debezium-json');`)
    expect(e).toMatchObject({ kind: 'connector', at: `'debezium-json'` })
    expect(e.message).toContain(`connector 'upsert-kafka' cannot write format 'debezium-json'`)
  })
})

describe('the Kafka sinks', () => {
  it("take a GROUP BY's updates with 'value.format' = 'debezium-json', and the debezium-json serialization options", async () => {
    const text = await explain(`CREATE TABLE out (k STRING, n BIGINT) WITH ('connector' = 'kafka', 'topic' = 'o', ${SERVERS},
      'value.format' = 'debezium-json', 'key.format' = 'json', 'key.fields' = 'k', 'debezium-json.timestamp-format.standard' = 'ISO-8601',
      'debezium-json.encode.decimal-as-plain-number' = 'true', 'sink.delivery-guarantee' = 'at-least-once');
      EXPLAIN INSERT INTO out SELECT k, COUNT(*) FROM src GROUP BY k`)
    expect(text).toMatch(/Sink\(table=\[out\].*changelog=\[updating\]\)/)
  })

  it("write metadata 'timestamp' and 'headers': an INSERT fills them after the physical columns, in the table's order", async () => {
    const text = await explain(`CREATE TABLE out (k STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', v INT, h STRING METADATA FROM 'headers',
      o BIGINT METADATA FROM 'offset' VIRTUAL) WITH ('connector' = 'kafka', 'topic' = 'o', ${SERVERS}, 'format' = 'json');
      EXPLAIN INSERT INTO out SELECT k, ts, v, '{"a":"b"}' FROM src`)
    expect(text).toContain('Sink(table=[out]')
    const upsert = await explain(`CREATE TABLE totals (k STRING, n BIGINT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', PRIMARY KEY (k) NOT ENFORCED)
      WITH ('connector' = 'upsert-kafka', 'topic' = 'o', ${SERVERS}, 'key.format' = 'json', 'value.format' = 'json');
      EXPLAIN INSERT INTO totals SELECT k, COUNT(*), MAX(ts) FROM src GROUP BY k`)
    expect(upsert).toContain('Sink(table=[totals]')
    const few = await refusal(`${SRC} CREATE TABLE out (k STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp')
      WITH ('connector' = 'kafka', 'topic' = 'o', ${SERVERS}, 'format' = 'json'); INSERT INTO out SELECT k FROM src;`)
    expect(few.message).toBe(`the query produces 1 columns but 'out' has 2 (k, ts)`)
  })

  it("take 'key.fields-prefix' on a table only written, as Flink's sinks do", async () => {
    await explain(`CREATE TABLE out (key_k STRING, v INT) WITH ('connector' = 'kafka', 'topic' = 'o', ${SERVERS}, 'format' = 'json',
      'key.format' = 'json', 'key.fields' = 'key_k', 'key.fields-prefix' = 'key_', 'value.fields-include' = 'EXCEPT_KEY',
      'sink.delivery-guarantee' = 'at-least-once'); EXPLAIN INSERT INTO out SELECT k, v FROM src`)
    await explain(`CREATE TABLE out (key_k STRING, n BIGINT, PRIMARY KEY (key_k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = 'o',
      ${SERVERS}, 'key.format' = 'json', 'value.format' = 'json', 'key.fields-prefix' = 'key_', 'value.fields-include' = 'EXCEPT_KEY');
      EXPLAIN INSERT INTO out SELECT k, COUNT(*) FROM src GROUP BY k`)
  })
})
