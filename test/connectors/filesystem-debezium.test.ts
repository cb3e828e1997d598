// The filesystem source reading 'debezium-json': change events into +I, -U/+U and -D rows; bad
// events under both policies; a GROUP BY over a changelog file equal to DuckDB over the table's final
// state, straight and across a cancel and restore; and Weir's own debezium-json output read back.
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { parseTimestamp } from '../../common/values.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import { RowKind } from '../../core/batch.js'
import { Session } from '../../engine/session.js'
import { ChangelogOracle, generateChangelog, GROUPED, PRODUCTS_COLUMNS, type ChangeEvent } from '../oracle/changelog.js'
import { canonWeirRow, expectSameMultiset, materialize } from '../oracle/oracle.js'
import { drain, errorOf, sourceCtx, tempDir, visibleRows } from './helpers.js'
import { holdSourceEndsUntil } from '../support/restore-runs.js'

const source = filesystemConnector.source!
const SCHEMA: Field[] = [{ name: 'id', type: T.int() }, { name: 'amount', type: T.decimal(20, 2) }, { name: 'big', type: T.bigint() }, {
  name: 'ts',
  type: T.timestamp(3),
}]

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ dir, cleanup } = tempDir())
})
afterEach(() => cleanup())

/** The rows and kinds a debezium-json file reads as, with the reader's metrics. */
async function changes(lines: readonly string[], options: Record<string, string> = {}, batchSize = 1024) {
  const file = join(dir, 'changes.json')
  writeFileSync(file, lines.join('\n') + '\n')
  const all = { path: file, format: 'debezium-json', ...options }
  source.validate(all, SCHEMA)
  const reader = await source.create(sourceCtx(all, SCHEMA, batchSize))
  let skipped = 0
  const chunks = await drain({
    splitCount: reader.splitCount,
    next: () => reader.next(),
    metrics: () => reader.metrics(),
    close: async () => {
      skipped = reader.metrics()['skippedRecords'] ?? 0
      await reader.close()
    },
  })
  const out: [string, ...unknown[]][] = []
  for (const c of chunks) c.rows.forEach((row, i) => out.push([['+I', '-U', '+U', '-D'][c.kinds?.[i] ?? 0]!, ...row]))
  return { rows: out, skipped, chunks }
}

const BIG = '9007199254740993' // 2^53 + 1: a double would read 2^53
const row = (id: number, amount: string, ts = '2024-01-02 03:04:05.678') => `{"id":${id},"amount":${amount},"big":${BIG},"ts":"${ts}"}`

describe("filesystem source, 'debezium-json'", () => {
  it('reads c and r as +I, u as -U then +U, d as -D, with exact decimals and big integers inside the events', async () => {
    const { rows, chunks } = await changes([
      `{"before":null,"after":${row(1, '12345678901234567.89')},"op":"r","ts_ms":1}`,
      '',
      `{"before":null,"after":${row(2, '0.10')},"op":"c"}`,
      `{"before":${row(2, '0.10')},"after":${row(2, '-7.25', '2024-01-02T03:04:06Z')},"op":"u","source":{"table":"t"}}`,
      `{"op":"d","before":${row(1, '12345678901234567.89')},"after":null}`,
    ], { 'debezium-json.timestamp-format.standard': 'ISO-8601' })
    const ts = parseTimestamp('2024-01-02 03:04:05.678')
    expect(rows).toEqual([
      ['+I', 1, 1234567890123456789n, 9007199254740993n, ts],
      ['+I', 2, 10n, 9007199254740993n, ts],
      ['-U', 2, 10n, 9007199254740993n, ts],
      ['+U', 2, -725n, 9007199254740993n, parseTimestamp('2024-01-02 03:04:06')],
      ['-D', 1, 1234567890123456789n, 9007199254740993n, ts],
    ])
    expect(chunks.at(-1)!.kinds).toBeInstanceOf(Uint8Array)
  })

  it('keeps an update’s -U and +U in one chunk, so no position falls between them', async () => {
    const lines = Array.from({ length: 5 }, (_, i) => `{"before":${row(i, '1')},"after":${row(i, '2')},"op":"u"}`)
    const { rows, chunks } = await changes(lines, {}, 1)
    expect(rows).toHaveLength(10)
    for (const c of chunks.filter(c => c.rows.length > 0)) expect([...c.kinds!]).toEqual([RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER])
  })

  it("reads events inside a {schema, payload} envelope with 'debezium-json.schema-include'", async () => {
    const schema = '{"type":"struct","fields":[],"optional":false,"name":"dbserver1.inventory.products.Envelope"}'
    const lines = [`{"schema":${schema},"payload":{"before":null,"after":${row(3, '4.50')},"op":"c"}}`]
    expect((await changes(lines, { 'debezium-json.schema-include': 'true' })).rows).toEqual([['+I', 3, 450n, 9007199254740993n,
      parseTimestamp('2024-01-02 03:04:05.678')]])
    const e = await errorOf(() => changes(lines))
    expect(e.message).toMatch(/changes\.json:1 \(table 't'\): the change event has no "op"$/)
    expect(e.help).toContain(`set 'debezium-json.schema-include' = 'true'`)
  })

  it('fails on an update or delete without "before", an unknown op and malformed JSON, naming file and line', async () => {
    const ok = `{"before":null,"after":${row(1, '1')},"op":"c"}`
    const cases: [string, RegExp, RegExp][] = [
      [`{"before":null,"after":${row(1, '2')},"op":"u"}`, /a change event with "op" "u" has no "before" row$/, /REPLICA IDENTITY FULL/],
      [`{"before":null,"after":null,"op":"d"}`, /a change event with "op" "d" has no "before" row$/, /REPLICA IDENTITY FULL/],
      [`{"before":null,"after":${row(1, '2')},"op":"x"}`, /unknown "op" "x" \(expected "c", "r", "u" or "d"\)$/, /^set 'debezium-json.ignore-parse-errors'/],
      [`{"before":null,"after":{"id":1`, /invalid JSON/, /^set 'debezium-json.ignore-parse-errors' = 'true' to skip bad records$/],
      [`[1, 2]`, /expected a Debezium change event \(a JSON object\), found an array$/, /ignore-parse-errors/],
      [`{"before":null,"after":"x","op":"c"}`, /"after" must be an object, found "x"$/, /ignore-parse-errors/],
    ]
    for (const [bad, message, help] of cases) {
      const e = await errorOf(() => changes([ok, '', bad, ok]))
      expect(e.message).toMatch(/^bad record at .*changes\.json:3 \(table 't'\): /)
      expect(e.message).toMatch(message)
      expect(e.help).toMatch(help)
      expect(e.help).toContain(`'debezium-json.ignore-parse-errors' = 'true'`)
      expect(e.record).toMatchObject({ line: 3, record: bad })
    }
    const skipped = await changes([ok, ...cases.map(c => c[0]), ok], { 'debezium-json.ignore-parse-errors': 'true' })
    expect(skipped.rows.map(r => r[0])).toEqual(['+I', '+I'])
    expect(skipped.skipped).toBe(cases.length)
  })

  it("takes only debezium-json's own options, and the sink refuses 'schema-include'", async () => {
    expect(() => source.validate({ path: dir, format: 'debezium-json', 'json.ignore-parse-errors': 'true' }, SCHEMA)).toThrow(
      /option 'json.ignore-parse-errors' applies to format 'json', but 'format' is 'debezium-json'/,
    )
    const e = await errorOf(async () =>
      filesystemConnector.sink!.create({ table: 'out', options: { path: dir, format: 'debezium-json', 'debezium-json.schema-include': 'true' }, schema: SCHEMA,
        changelog: 'updating', primaryKey: [], println: () => {}, jobName: 'j', operatorId: '1-sink', exactlyOnce: false })
    )
    expect(e.message).toContain(`cannot write 'debezium-json.schema-include' = 'true'`)
  })
})

describe('a changelog file through SQL vs DuckDB over the final state', () => {
  let events: ChangeEvent[]
  let oracle: ChangelogOracle
  let data: { dir: string; cleanup: () => void }
  let path: string
  beforeAll(async () => {
    events = generateChangelog(41, 3000)
    oracle = await ChangelogOracle.create(events)
    data = tempDir()
    path = join(data.dir, 'products.json')
    writeFileSync(path, events.map(e => e.text).join('\n') + '\n')
  })
  afterAll(() => {
    oracle?.close()
    data?.cleanup()
  })

  const table = (name: string, at: string) =>
    `CREATE TABLE ${name} (${PRODUCTS_COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${at}', 'format' = 'debezium-json');`
  const GROUPED_SCHEMA: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.bigint() }, { name: 'sv', type: T.int() }, {
    name: 'sd',
    type: T.decimal(38, 2),
  }, { name: 'mx', type: T.int() }, { name: 'mn', type: T.decimal(10, 2) }]

  async function select(sql: string, options: Record<string, string> = {}) {
    const results = await new Session({ println: () => undefined, options }).executeSql(sql)
    const last = results.at(-1)!
    if (last.kind !== 'rows') throw new Error(`expected rows, got ${last.kind}`)
    return last
  }

  it('GROUP BY over the changelog (groups shrink, move and empty out) equals DuckDB', async () => {
    for (const batch of ['1', '7', '1024']) {
      const r = await select(`${table('products', path)}\n${GROUPED}`, { 'execution.batch-size': batch })
      const got = materialize(r.changes).map(row => canonWeirRow(GROUPED_SCHEMA, row))
      expectSameMultiset(got, await oracle.query(GROUPED))
      expect(r.changes.some(c => c.kind === RowKind.UPDATE_BEFORE)).toBe(true)
    }
    // A WATERMARK on the changelog's time column changes nothing for a GROUP BY (Flink allows it there).
    const watermarked = table('products', path).replace('ts TIMESTAMP(3))', "ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)")
    expect(watermarked).toContain('WATERMARK')
    const r = await select(`${watermarked}\n${GROUPED}`)
    expectSameMultiset(materialize(r.changes).map(row => canonWeirRow(GROUPED_SCHEMA, row)), await oracle.query(GROUPED))
    // The table itself, materialized, is its final state.
    const all = await select(`${table('products', path)}\nSELECT id, k, v, d, ts FROM products`)
    expect(all.changes.filter(c => c.kind === RowKind.DELETE).length).toBeGreaterThan(100)
    expect(materialize(all.changes).length).toBe(oracle.rows)
  })

  it('a job cancelled after a checkpoint and restored writes the oracle’s result once; its output reads back as a changelog', async () => {
    for (const [name, query, expected] of [
      ['grouped', GROUPED, GROUPED],
      ['passed-through', 'SELECT k, v, d FROM products WHERE id >= 0', 'SELECT k, v, d FROM products'],
    ] as const) {
      const out = join(data.dir, `${name}-out`)
      const columns = name === 'grouped' ? 'k STRING, n BIGINT, sv INT, sd DECIMAL(38, 2), mx INT, mn DECIMAL(10, 2)' : 'k STRING, v INT, d DECIMAL(10, 2)'
      const sql = `${table('products', path)}
        CREATE TABLE out (${columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
        INSERT INTO out ${query};`
      // Batches of 1 with a checkpoint every few ms: checkpoints fall between nearly every record.
      const options = { 'pipeline.name': `dbz-${name}`, 'execution.checkpointing.interval': '5 ms', 'execution.batch-size': '1',
        'state.checkpoints.dir': join(data.dir, `${name}-chk`) }
      const cancel = new AbortController()
      // The source's end is held until the cancel (at most 5 s): on a loaded host the job could read all
      // of its input before a checkpoint committed a part, and end uncancelled.
      const first = new Session({ println: () => undefined, signal: cancel.signal, options, faults: holdSourceEndsUntil(cancel.signal), onCheckpoint: () =>
        visibleParts(out) > 0 && cancel.abort() })
      await first.executeSql(sql)
      const [m1] = await first.awaitJobs()
      expect(m1!.cancelled).toBe(true)
      const log: string[] = []
      const second = new Session({ println: () => undefined, options, log: m => log.push(m) })
      await second.executeSql(sql)
      const [m2] = await second.awaitJobs()
      expect(log.join('\n')).toContain('resuming from checkpoint')
      expect(m2!.sourceRecordsRead).toBeLessThan(events.length + events.filter(e => e.text.includes('"op":"u"')).length)
      // The folder, read back by the source in name order, folds to the oracle's rows: the parts sort
      // in the order they were written (part 10 after part 9, the second run's after the first's).
      const back = await select(`CREATE TABLE back (${columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
        SELECT * FROM back`)
      const schema = back.schema
      expectSameMultiset(materialize(back.changes).map(row => canonWeirRow(schema, row)), await oracle.query(expected))
    }
  }, 240_000)

  it('reads back what the filesystem sink wrote as debezium-json, and aggregates it again', async () => {
    const out = join(data.dir, 'round-trip')
    const sink = `CREATE TABLE out (k STRING, n BIGINT, sv INT, sd DECIMAL(38, 2), mx INT, mn DECIMAL(10, 2))
      WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');`
    const session = new Session({ println: () => undefined, options: { 'execution.batch-size': '3' } })
    await session.executeSql(`${table('products', path)}\n${sink}\nINSERT INTO out ${GROUPED};`)
    await session.awaitJobs()
    const back = `CREATE TABLE back (k STRING, n BIGINT, sv INT, sd DECIMAL(38, 2), mx INT, mn DECIMAL(10, 2))
      WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');`
    const rows = await select(`${back}\nSELECT * FROM back`)
    expect(rows.changes.filter(c => c.kind === RowKind.DELETE).length).toBeGreaterThan(100)
    expectSameMultiset(materialize(rows.changes).map(row => canonWeirRow(GROUPED_SCHEMA, row)), await oracle.query(GROUPED))
    const again = await select(`${back}\nSELECT MOD(n, 3) AS b, COUNT(*), SUM(sv), MAX(mx) FROM back GROUP BY MOD(n, 3)`)
    expectSameMultiset(materialize(again.changes).map(row => canonWeirRow(again.schema, row)),
      await oracle.query(`SELECT n % 3 AS b, COUNT(*), SUM(sv), MAX(mx) FROM (${GROUPED}) GROUP BY n % 3`))
  })
})

/** How many part files of a sink's folder are visible. */
function visibleParts(folder: string): number {
  return existsSync(folder) ? readdirSync(folder).filter(f => !f.startsWith('.') && !f.startsWith('_')).length : 0
}
