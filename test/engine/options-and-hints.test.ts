// What a Flink SQL file's SETs and hints do in Weir: Weir's options and Flink's spellings of them
// take effect; Flink options for things Weir does not have, and hints it does not act on, are
// accepted with a warning that names them, where they are and why; anything else is an error.
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { ALL_OPTIONS, runDefaults } from '../../common/config/index.js'

function session(): { s: Session; warnings: string[] } {
  const warnings: string[] = []
  return { s: new Session({ warn: w => warnings.push(w), println: () => undefined, explainOnly: true }), warnings }
}

async function fails(sql: string): Promise<WeirError> {
  try {
    await new Session({ explainOnly: true }).executeSql(sql)
  } catch (e) {
    expect(e).toBeInstanceOf(WeirError)
    return e as WeirError
  }
  throw new Error('expected an error')
}

const T = `CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');\n`

describe('hints', () => {
  it('an unknown hint is ignored with a warning at its position, with a did-you-mean', async () => {
    const { s, warnings } = session()
    await s.executeSql(`${T}SELECT /*+ BOGUS */ a FROM t;\nSELECT /*+ STAT_TTL('t' = '1 d') */ b, COUNT(*) FROM t GROUP BY b`)
    expect(warnings).toEqual([
      "warning: unknown hint 'BOGUS' is ignored\n --> <sql>:2:12\n  |\n2 | SELECT /*+ BOGUS */ a FROM t;\n  |            ^^^^^\n"
      + "help: Weir acts on STATE_TTL after SELECT and OPTIONS after a table's name",
      "warning: unknown hint 'STAT_TTL' is ignored\n --> <sql>:3:12\n  |\n3 | SELECT /*+ STAT_TTL('t' = '1 d') */ b, COUNT(*) FROM t GROUP BY b\n  |            ^^^^^^^^^^^^^^^^^^^^^\n"
      + "help: did you mean STATE_TTL? (Weir acts on STATE_TTL after SELECT and OPTIONS after a table's name)",
    ])
  })

  it('a known hint in the wrong place, and a join hint, warn too; the hints Weir acts on do not', async () => {
    const { s, warnings } = session()
    await s.executeSql(`${T}CREATE VIEW v AS SELECT a FROM t;
      SELECT /*+ STATE_TTL('t' = '1 d') */ b, COUNT(*) FROM t /*+ OPTIONS('number-of-rows' = '5') */ GROUP BY b;
      SELECT /*+ OPTIONS('a' = 'b'), BROADCAST(t) */ a FROM v /*+ OPTIONS('number-of-rows' = '5') */`)
    expect(warnings.map(w => w.split('\n')[0])).toEqual([
      'warning: hint OPTIONS is ignored here',
      'warning: join hint BROADCAST is ignored: Weir joins by hashing both inputs on the join key',
      'warning: hint OPTIONS is ignored here',
    ])
    expect(warnings[2]).toContain("help: write it after a table's name in FROM (not a view's)")
  })

  it("a view's hints warn when it is created, not each time it is used; a WITH query's once", async () => {
    const { s, warnings } = session()
    await s.executeSql(`${T}CREATE VIEW v AS SELECT /*+ NOPE */ a FROM t`)
    expect(warnings).toHaveLength(1)
    await s.executeSql('SELECT a FROM v; WITH w AS (SELECT /*+ NADA */ a FROM t) SELECT a FROM w UNION ALL SELECT a FROM w')
    expect(warnings.map(w => w.split('\n')[0])).toEqual(["warning: unknown hint 'NOPE' is ignored", "warning: unknown hint 'NADA' is ignored"])
  })
})

describe('SET', () => {
  it("accepts 'execution.runtime-mode' = 'streaming' and refuses 'batch', saying why", async () => {
    const { s, warnings } = session()
    await s.executeSql(`SET 'execution.runtime-mode' = 'STREAMING'`)
    expect(s.currentOptions['execution.runtime-mode']).toBe('STREAMING')
    expect(warnings).toEqual([])
    const e = await fails(`SET 'execution.runtime-mode' = 'batch'`)
    expect(e.message).toBe("invalid value 'batch' for option 'execution.runtime-mode': Weir runs every job in streaming mode")
    expect(e.help).toMatch(/^remove the SET \(or write 'streaming'\): a bounded source still ends, with a final watermark that fires every window/)
  })

  it("stores Flink's spellings of Weir's options under Weir's keys", async () => {
    const { s, warnings } = session()
    const [r] = await s.executeSql(`SET 'state.backend.type' = 'hashmap'`)
    expect(r).toEqual({ kind: 'ok', message: "set 'state.backend.type' = 'hashmap' (as 'state.backend' = 'heap')" })
    await s.executeSql(`SET 'table.exec.resource.default-parallelism' = '4';
      SET 'table.exec.mini-batch.size' = '100';
      SET 'execution.checkpointing.dir' = '/tmp/cp';
      SET 'execution.checkpointing.num-retained' = '3'`)
    expect(s.currentOptions).toMatchObject({
      'state.backend': 'heap',
      'parallelism.default': '4',
      'execution.batch-size': '100',
      'state.checkpoints.dir': '/tmp/cp',
      'state.checkpoints.num-retained': '3',
    })
    // Flink's -1 is "not set": Weir's own value stays.
    await s.executeSql(`SET 'table.exec.resource.default-parallelism' = '-1'`)
    expect(s.currentOptions['parallelism.default']).toBe('4')
    await s.executeSql(`RESET 'table.exec.resource.default-parallelism'`)
    expect(s.currentOptions['parallelism.default']).toBeUndefined()
    expect(warnings).toEqual([])
    expect((await fails(`SET 'state.backend.type' = 'memory'`)).message).toBe(
      "invalid value 'memory' for option 'state.backend.type': expected one of 'hashmap', 'rocksdb'",
    )
    expect((await fails(`SET 'table.exec.resource.default-parallelism' = 'many'`)).message).toBe(
      "invalid value 'many' for option 'table.exec.resource.default-parallelism': expected a positive integer or 'auto' (the machine's cores)",
    )
  })

  it('stores enumerated values the way the engine compares them', async () => {
    const { s } = session()
    await s.executeSql(`SET 'state.backend' = 'HEAP'; SET 'table.exec.mini-batch.enabled' = 'FALSE'; SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'`)
    expect(s.currentOptions).toMatchObject({ 'state.backend': 'heap', 'table.exec.mini-batch.enabled': 'false',
      'table.optimizer.agg-phase-strategy': 'two_phase' })
  })

  it.each([
    ['table.exec.source.idle-timeout', '10 s', 'Weir does not mark sources idle'],
    ['table.exec.mini-batch.allow-latency', '2 s', "Weir's mini-batches are the rows a source read together"],
    ['table.optimizer.join-reorder-enabled', 'true', "Weir's planner has no such switch"],
    ['sql-client.display.max-column-width', '40', "'weir run' prints a SELECT's changes as a table"],
    ['execution.checkpointing.timeout', '10 min', 'a checkpoint is not timed out'],
    ['restart-strategy.type', 'fixed-delay', 'Weir does not restart a failed job'],
    ['state.backend.rocksdb.block.cache-size', '64 mb', 'Weir tunes RocksDB itself'],
  ])("accepts Flink's '%s', which Weir ignores, with a warning that says why", async (key, value, why) => {
    const { s, warnings } = session()
    const [r] = await s.executeSql(`SET '${key}' = '${value}'`)
    expect(r).toEqual({ kind: 'ok', message: `ignored '${key}'` })
    expect(s.currentOptions[key]).toBeUndefined()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain(`warning: option '${key}' is ignored: ${why}`)
    expect(warnings[0]).toContain(' --> <sql>:1:1')
  })

  it("warns that 'AT_LEAST_ONCE' and non-incremental checkpoints change nothing", async () => {
    const { s, warnings } = session()
    await s.executeSql(`SET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE'; SET 'state.backend.incremental' = 'false'`)
    expect(warnings.map(w => w.split('\n')[0])).toEqual([
      "warning: option 'execution.checkpointing.mode' = 'AT_LEAST_ONCE' changes nothing: Weir's checkpoints are always exactly-once (aligned barriers)",
      "warning: option 'state.backend.incremental' = 'false' changes nothing: RocksDB checkpoints are always incremental (savepoints are self-contained)",
    ])
  })

  it('refuses a time zone other than UTC, and keys that are neither Weir’s nor Flink’s, with a did-you-mean', async () => {
    expect((await fails(`SET 'table.local-time-zone' = 'Europe/Berlin'`)).message).toBe(
      "invalid value 'Europe/Berlin' for option 'table.local-time-zone': Weir computes times in UTC only",
    )
    const e = await fails(`SET 'table.exec.source.idle-timeot' = '1 s'`)
    expect(e.message).toBe("unknown option 'table.exec.source.idle-timeot'")
    expect(e.help).toBe("did you mean 'table.exec.source.idle-timeout'?")
    expect((await fails(`SET 'no.such.option' = '1'`)).message).toBe("unknown option 'no.such.option'")
  })

  it("'SET;' lists every option: its value now, its default (and weir run's) and what it means", async () => {
    const s = new Session({ options: runDefaults(), explainOnly: true })
    await s.executeSql(`SET 'execution.batch-size' = '7'; SET 'state.backend.type' = 'hashmap'`)
    const [r] = await s.executeSql('SET') as [Extract<StatementResult, { kind: 'table' }>]
    expect(r.columns).toEqual(['key', 'value', 'default', 'description'])
    const keys = r.rows.map(row => row[0])
    expect(keys).toEqual([...keys].sort())
    // Every option Weir has, each once (a count here broke whenever two changes each added one).
    expect([...keys].sort()).toEqual(ALL_OPTIONS.map(o => o.key).sort())
    expect(keys.length).toBeGreaterThan(25)
    const row = (key: string): readonly string[] | undefined => r.rows.find(x => x[0] === key)
    expect(row('execution.batch-size')).toEqual(['execution.batch-size', '7', '1024', 'rows per batch read from sources'])
    expect(row('state.backend')?.slice(0, 3)).toEqual(['state.backend', 'heap', 'heap (weir run: rocksdb)'])
    expect(row('state.checkpoints.dir')?.slice(0, 3)).toEqual(['state.checkpoints.dir', '.weir/checkpoints', '(weir run: .weir/checkpoints)'])
    expect(row('state.cache.size')?.slice(1, 3)).toEqual(['64 mb', '64 mb'])
    expect(row('table.exec.state.ttl')?.slice(1, 3)).toEqual(['0', '0'])
    expect(row('s3.endpoint')?.slice(1, 3)).toEqual(['', ''])
    expect(row('sql-client.execution.result-mode')?.slice(1, 3)).toEqual(['table', 'table'])
    expect(row('sql-client.display.max-rows')?.slice(1, 3)).toEqual(['10000', '10000'])
  })

  it('checks the options a session starts with as SET checks them, and stores them as SET would', async () => {
    expect(() => new Session({ options: { 'execution.batch-size': 'many' } })).toThrow(
      "invalid value 'many' for option 'execution.batch-size': expected a positive integer",
    )
    expect(() => new Session({ options: { 'no.such.option': '1' } })).toThrow("unknown option 'no.such.option'")
    const warnings: string[] = []
    const s = new Session({ options: { 'state.backend.type': 'hashmap', 'table.exec.mini-batch.enabled': 'FALSE', 'table.optimizer.x': 'y' },
      warn: w => warnings.push(w), explainOnly: true })
    expect(s.currentOptions).toEqual({ 'state.backend': 'heap', 'table.exec.mini-batch.enabled': 'false' })
    expect(warnings.map(w => w.split('\n')[0])).toEqual(["warning: option 'table.optimizer.x' is ignored: Weir's planner has no such switch"])
    await s.executeSql(`SET 'table.exec.mini-batch.enabled' = 'true'; RESET 'table.exec.mini-batch.enabled'`)
    expect(s.currentOptions['table.exec.mini-batch.enabled']).toBe('false')
  })
})
