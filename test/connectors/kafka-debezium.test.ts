// The Kafka source reading 'debezium-json' against a real broker: a topic of change events (keyed by
// row, tombstones after deletes) through GROUP BY equals DuckDB over the table's final state — read
// straight, and written to 'upsert-kafka' by `weir run` killed at a checkpoint's worst points and at
// random moments, then restarted — and bad events fail naming topic, partition and offset, or are
// skipped and counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { RowKind } from '../../core/batch.js'
import { Session } from '../../engine/session.js'
import { ChangelogOracle, generateChangelog, PRODUCTS_COLUMNS, type ChangeEvent } from '../oracle/changelog.js'
import { canonWeirRow, expectSameMultiset, materialize, Rng } from '../oracle/oracle.js'
import { createTopics, readTopic, type Received } from '../support/kafka-topics.js'
import { jobDir, killStarted, startWeir, startWeirWithFaults, type WeirProcess } from '../support/weir-process.js'
import { kafkaConnector } from '../../connectors/kafka/index.js'
import { drain, sourceCtx } from './helpers.js'
import { failure, kafkaSuite, kafkaTable, produce, type Message } from './kafka-source-helpers.js'

const suite = kafkaSuite('debezium')
const PARTITIONS = 3
let events: ChangeEvent[]
let oracle: ChangelogOracle

/** The change events as Debezium's Kafka connector writes them: keyed by the row's id (so a row's events stay in order), a tombstone after a delete. */
function messages(list: readonly ChangeEvent[]): Message[] {
  return list.flatMap(e => {
    const m = { partition: e.id % PARTITIONS, key: `{"id":${e.id}}`, value: e.text }
    return e.text.includes('"op":"d"') ? [m, { ...m, value: null }] : [m]
  })
}

beforeAll(async () => {
  events = generateChangelog(16, 4000)
  oracle = await ChangelogOracle.create(events)
  await produce(suite.kafka, 'products', PARTITIONS, messages(events))
}, 300_000)

afterAll(() => {
  oracle?.close()
  killStarted()
})

const PRODUCTS = (options: Record<string, string> = {}) =>
  kafkaTable(suite.broker.bootstrap, 'products', PRODUCTS_COLUMNS, 'products', {
    'format': 'debezium-json',
    'scan.startup.mode': 'earliest-offset',
    'scan.bounded.mode': 'latest-offset',
    ...options,
  })

/** The GROUP BY both engines compute (k is the upsert key: NOT NULL). */
const TOTALS = 'SELECT k, COUNT(*) AS n, SUM(v) AS sv, SUM(d) AS sd, MAX(v) AS mx FROM products WHERE k IS NOT NULL GROUP BY k'
const TOTALS_SCHEMA: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.bigint() }, { name: 'sv', type: T.int() }, {
  name: 'sd',
  type: T.decimal(38, 2),
}, { name: 'mx', type: T.int() }]

describe("a Kafka topic of 'debezium-json' change events", () => {
  it('through GROUP BY (groups shrink, move and empty out; tombstones skipped) equals DuckDB over the final state', async () => {
    for (const batch of ['5', '1024']) {
      const results = await new Session({ println: () => undefined, options: { 'execution.batch-size': batch } }).executeSql(`${PRODUCTS()}\n${TOTALS}`)
      const last = results.at(-1)!
      if (last.kind !== 'rows') throw new Error(last.kind)
      expect(last.changes.some(c => c.kind === RowKind.DELETE || c.kind === RowKind.UPDATE_BEFORE)).toBe(true)
      expect(last.metrics.skippedRecords).toBe(0)
      expectSameMultiset(materialize(last.changes).map(r => canonWeirRow(TOTALS_SCHEMA, r)), await oracle.query(TOTALS))
    }
  }, 300_000)

  it("into 'upsert-kafka' with checkpoints, killed at a checkpoint's worst points and at random moments: the folded topic equals DuckDB", async () => {
    await createTopics(suite.kafka, [{ topic: 'totals', partitions: PARTITIONS }])
    const dir = jobDir(`
      SET 'pipeline.name' = 'debezium-totals';
      SET 'execution.checkpointing.interval' = '40 ms';
      SET 'execution.batch-size' = '16';
      ${PRODUCTS()}
      CREATE TABLE totals (k STRING, n BIGINT, sv INT, sd DECIMAL(38, 2), mx INT, PRIMARY KEY (k) NOT ENFORCED)
        WITH ('connector' = 'upsert-kafka', 'topic' = 'totals', 'properties.bootstrap.servers' = '${suite.broker.bootstrap}',
          'key.format' = 'json', 'value.format' = 'json');
      INSERT INTO totals ${TOTALS};`)
    const rng = new Rng(16)
    let crashed = 0
    const run = async (p: WeirProcess, killAfterMs?: number): Promise<number | null> => {
      const timer = killAfterMs === undefined ? undefined : setTimeout(() => p.child.kill('SIGKILL'), killAfterMs)
      const code = await p.exited()
      clearTimeout(timer)
      if (code !== 0) crashed++
      return code
    }
    let done = false
    for (const at of ['before-commit:2', 'before-manifest:3', 'kafka-transaction:2', 'before-commit:5']) {
      if ((await run(startWeirWithFaults(dir, at, 'run', 'job.sql'))) === 0) {
        done = true
        break
      }
    }
    for (let i = 0; i < 3 && !done; i++) done = (await run(startWeir(dir, 'run', 'job.sql'), rng.int(1500, 5000))) === 0
    for (let i = 0; i < 5 && !done; i++) {
      const p = startWeir(dir, 'run', 'job.sql')
      done = (await p.exited()) === 0
      if (!done) expect.soft(p.err()).toBe('')
    }
    expect(done).toBe(true)
    expect(crashed).toBeGreaterThan(0)
    expectSameMultiset(fold(await readTopic(suite.kafka, 'totals', PARTITIONS)), await oracle.query(TOTALS))
  }, 900_000)

  it("keeps each update's -U and +U in one chunk (one position), however small the chunks", async () => {
    const options = { topic: 'products', 'properties.bootstrap.servers': suite.broker.bootstrap, 'format': 'debezium-json',
      'scan.startup.mode': 'earliest-offset', 'scan.bounded.mode': 'latest-offset' }
    const schema: Field[] = [{ name: 'id', type: T.int() }, { name: 'k', type: T.string() }]
    const chunks = await drain(await kafkaConnector.source!.create(sourceCtx(options, schema, 1)))
    let updates = 0
    for (const c of chunks) {
      const kinds = [...(c.kinds ?? c.rows.map(() => RowKind.INSERT))]
      kinds.forEach((k, i) => {
        if (k === RowKind.UPDATE_BEFORE) {
          updates++
          expect(kinds[i + 1]).toBe(RowKind.UPDATE_AFTER)
          expect(c.rows[i + 1]![0]).toBe(c.rows[i]![0])
        }
      })
      if (c.kinds === undefined) expect(kinds.every(k => k === RowKind.INSERT)).toBe(true)
    }
    expect(updates).toBe(events.filter(e => e.text.includes('"op":"u"')).length)
  }, 300_000)

  it("offers the change events' metadata ('value.source.timestamp', 'value.ingestion-timestamp', 'value.source.*')", async () => {
    const columns = `${PRODUCTS_COLUMNS}, src_ts TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL,
      ingested TIMESTAMP_LTZ(3) METADATA FROM 'value.ingestion-timestamp' VIRTUAL, db STRING METADATA FROM 'value.source.database' VIRTUAL,
      tbl STRING METADATA FROM 'value.source.table' VIRTUAL, sch STRING METADATA FROM 'value.source.schema', whole STRING METADATA FROM 'value.schema'`
    const ddl = kafkaTable(suite.broker.bootstrap, 'products', columns, 'products', {
      'format': 'debezium-json',
      'scan.startup.mode': 'earliest-offset',
      'scan.bounded.mode': 'latest-offset',
    })
    const results = await new Session({ println: () => undefined }).executeSql(`${ddl}\nSELECT id, src_ts, ingested, db, tbl, sch, whole FROM products`)
    const last = results.at(-1)!
    if (last.kind !== 'rows') throw new Error(last.kind)
    for (const { row } of last.changes) {
      expect([row[2] === (row[1] as number) + 5, row[3], row[4], row[5], row[6]]).toEqual([true, 'shop', 'products', null, null])
    }
    // Each event's rows carry its own source timestamp (an update's -U and +U the same one).
    const stamps = (list: readonly unknown[]) => [...new Set(list)].sort()
    expect(stamps(last.changes.map(c => c.row[1]))).toEqual(stamps(events.map(e => (JSON.parse(e.text) as { source: { ts_ms: number } }).source.ts_ms)))
  }, 300_000)

  it('bad events fail the job naming topic, partition and offset, or are skipped and counted', async () => {
    const ok = (id: number) => `{"before":null,"after":{"id":${id},"k":"a","v":1,"d":1.5,"ts":"2024-01-01 00:00:00"},"op":"c"}`
    await produce(suite.kafka, 'bad-changes', 1, [
      { partition: 0, value: ok(1) },
      { partition: 0, value: null },
      { partition: 0, value: `{"before":null,"after":{"id":1,"k":"b"},"op":"u"}` },
      { partition: 0, value: `{"before":null,"after":null,"op":"t"}` },
      { partition: 0, value: `{"op":` },
      { partition: 0, value: ok(2) },
    ])
    const table = (options: Record<string, string> = {}) => PRODUCTS({ topic: 'bad-changes', ...options })
    const e = await failure(`${table()} SELECT id FROM products;`)
    expect(e.message).toBe(`bad record at topic 'bad-changes', partition 0, offset 2 (table 'products'): a change event with "op" "u" has no "before" row`)
    expect(e.help).toMatch(/REPLICA IDENTITY FULL.*; or set 'debezium-json.ignore-parse-errors' = 'true' to skip bad records$/)
    const results = await new Session({ println: () => undefined }).executeSql(
      `${table({ 'debezium-json.ignore-parse-errors': 'true' })} SELECT id FROM products;`,
    )
    const last = results.at(-1)!
    if (last.kind !== 'rows') throw new Error(last.kind)
    expect(last.changes.map(c => [c.kind, ...c.row])).toEqual([[RowKind.INSERT, 1], [RowKind.INSERT, 2]])
    expect(last.metrics.skippedRecords).toBe(3)
  }, 300_000)
})

/** An upsert topic folded by key (a tombstone removes it), each row canonical. */
function fold(got: readonly Received[]): string[] {
  const live = new Map<string, string>()
  for (const m of got) {
    if (m.value === null) live.delete(m.key!)
    else live.set(m.key!, m.value)
  }
  return [...live.values()].map(value => {
    const o = JSON.parse(value) as Record<string, unknown>
    return canonWeirRow(TOTALS_SCHEMA, [o['k'], o['n'], o['sv'], o['sd'] === null ? null : decimalOf(String(o['sd'])), o['mx']])
  })
}

/** A DECIMAL(38, 2) JSON number as Weir holds it (unscaled). */
function decimalOf(text: string): bigint {
  const [int, frac = ''] = text.split('.')
  const negative = int!.startsWith('-')
  const unscaled = BigInt(int!.replace('-', '')) * 100n + BigInt((frac + '00').slice(0, 2))
  return negative ? -unscaled : unscaled
}
