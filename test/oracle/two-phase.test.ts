// Two-phase GROUP BY ('table.optimizer.agg-phase-strategy', planner/physical/two-phase.ts): at
// parallelism 1, 2 and 3 (TWO_PHASE; AUTO is one phase in Weir) the materialized changelog of a local/global aggregate must equal DuckDB's
// result and the one-phase aggregate's, for NULL keys and values, COUNT(*) and COUNT(col), FILTER,
// AVG of integers and decimals, MIN/MAX of strings, a global aggregate, SELECT DISTINCT, and keys
// that appear in one batch only. Each case also checks that the plan really has the two phases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { AGGREGATES, AVG_DEC_D, OracleData, canonWeirRow, materialize, type WeirResult, rocksOptions } from './oracle.js'

const ROWS = 3000
const STRATEGY = 'table.optimizer.agg-phase-strategy'

const CONFIGS: readonly { name: string; options: Readonly<Record<string, string>> }[] = [
  // Small batches: a key's partial rows come in many batches, and the global retracts between them.
  { name: 'p=2 TWO_PHASE, batches of 7', options: { 'parallelism.default': '2', [STRATEGY]: 'TWO_PHASE', 'execution.batch-size': '7' } },
  // Whole files in a batch: many keys per batch, each folded before the exchange.
  { name: 'p=3 TWO_PHASE, batches of 1024', options: { 'parallelism.default': '3', [STRATEGY]: 'TWO_PHASE' } },
  { name: 'p=2 TWO_PHASE on worker threads, RocksDB, batches of 50',
    options: { 'parallelism.default': '2', [STRATEGY]: 'two_phase', 'execution.worker-threads': 'true', 'execution.batch-size': '50', ...rocksOptions() } },
  { name: 'p=1 TWO_PHASE, batches of 13', options: { 'parallelism.default': '1', [STRATEGY]: 'two_phase', 'execution.batch-size': '13' } },
]

// The aggregates the window and group tests compute, but DISTINCT (which stays one phase), and more FILTERs and string extremes.
const AGGS: readonly { weir: string; duck: string }[] = [
  ...AGGREGATES.filter(a => !a.weir.includes('DISTINCT')),
  ...['MAX(s)', 'SUM(x)', 'COUNT(s) FILTER (WHERE d > 0)', 'MIN(s) FILTER (WHERE v < 0)'].map(a => ({ weir: a, duck: a })),
]
const select = (engine: 'weir' | 'duck'): string => AGGS.map((a, i) => `${a[engine]} AS a${i}`).join(', ')

describe.each(CONFIGS)('two-phase GROUP BY vs DuckDB and vs one phase, $name', ({ options }) => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed: 919, files: 3, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  /** The plan of `query` under `opts`: EXPLAIN's text. */
  const plan = async (query: string, opts: Readonly<Record<string, string>>): Promise<string> => {
    const sets = Object.entries(opts).map(([k, v]) => `SET '${k}' = '${v}';\n`).join('')
    const results = await new Session({ println: () => undefined }).executeSql(`${sets}${data.ddl}\nEXPLAIN ${query}`)
    const last = results.at(-1)
    if (last?.kind !== 'explain') throw new Error(`expected an EXPLAIN result, got ${last?.kind}`)
    return last.text
  }
  const rows = (r: WeirResult): string[] => materialize(r.changes).map(row => canonWeirRow(r.schema, row)).sort()

  /** Two phases planned, the result equal to DuckDB's (when given) and to the one-phase run's. */
  const expectTwoPhase = async (weirSql: string, duckSql?: string): Promise<WeirResult> => {
    const text = await plan(weirSql, options)
    expect(text).toContain('LocalGroupAggregate(')
    expect(text).toContain('GlobalGroupAggregate(')
    const two = duckSql === undefined ? await data.weir(weirSql, options) : await data.expectSame(weirSql, duckSql, options)
    const onePhase = { ...options, [STRATEGY]: 'ONE_PHASE' }
    expect(await plan(weirSql, onePhase)).not.toContain('LocalGroupAggregate(')
    const one = await data.weir(weirSql, onePhase)
    expect(rows(two)).toEqual(rows(one))
    expect(rows(two).length).toBeGreaterThan(0)
    return two
  }

  it('every mergeable aggregate per key, NULL key as its own group', async () => {
    await expectTwoPhase(`SELECT k, ${select('weir')} FROM t GROUP BY k`, `SELECT k, ${select('duck')} FROM t GROUP BY k`)
  })

  it('a global aggregate (no GROUP BY): the partial rows go to one subtask', async () => {
    await expectTwoPhase(`SELECT ${select('weir')} FROM t`, `SELECT ${select('duck')} FROM t`)
  })

  it('two grouping keys with NULLs, and HAVING over a merged aggregate', async () => {
    await expectTwoPhase(
      `SELECT k, MOD(v, 3) AS m, COUNT(*), SUM(d), MAX(x), MIN(s) FROM t GROUP BY k, MOD(v, 3) HAVING COUNT(v) > 3`,
      `SELECT k, v % 3 AS m, COUNT(*), SUM(d), MAX(x), MIN(s) FROM t GROUP BY k, v % 3 HAVING COUNT(v) > 3`,
    )
  })

  it('many keys, most in one batch only (GROUP BY the event time)', async () => {
    const r = await expectTwoPhase(
      `SELECT ts, COUNT(*), COUNT(k), SUM(v), MIN(s), AVG(d) FROM t GROUP BY ts`,
      `SELECT ts, COUNT(*), COUNT(k), SUM(v), MIN(s), ${AVG_DEC_D.duck} FROM t GROUP BY ts`,
    )
    expect(materialize(r.changes).length).toBeGreaterThan(ROWS / 2)
  })

  it('SELECT DISTINCT: the local phase drops a batch repeated rows', async () => {
    await expectTwoPhase(`SELECT DISTINCT k, MOD(v, 5) AS m FROM t`, `SELECT DISTINCT k, v % 5 AS m FROM t`)
  })

  it('BIGINT sums beyond 2^53 (and their 64-bit wrap) equal one phase exactly', async () => {
    await expectTwoPhase(`SELECT k, SUM(b), MIN(b), MAX(b), AVG(b), COUNT(b), SUM(b) FILTER (WHERE v > 0) FROM t GROUP BY k`)
  })
})

describe('when the GROUP BY stays one-phase', () => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed: 77, rows: 50 })
  })
  afterAll(async () => {
    await data?.close()
  })
  const explain = async (query: string, opts: Readonly<Record<string, string>>): Promise<string> => {
    const sets = Object.entries(opts).map(([k, v]) => `SET '${k}' = '${v}';\n`).join('')
    const results = await new Session({ println: () => undefined }).executeSql(`${sets}${data.ddl}\nEXPLAIN ${query}`)
    return (results.at(-1) as { text: string }).text
  }
  const two = { 'parallelism.default': '2', [STRATEGY]: 'TWO_PHASE' }

  it.each([
    ['a DISTINCT aggregate', 'SELECT k, COUNT(DISTINCT v) FROM t GROUP BY k', 'k', 'COUNT(DISTINCT …) (EXPR$1) needs its values, not a partial count'],
    ['an aggregate without partial accumulators', 'SELECT k, LISTAGG(s) FROM t GROUP BY k', 'k', 'LISTAGG (EXPR$1) has no partial accumulator to merge'],
    // The inner GROUP BY k (insert-only input) is split; the outer one, over its updates, is not.
    ['an updating input', 'SELECT c, COUNT(*) FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) GROUP BY c', 'c',
      'the input is updating: the local phase takes insert-only rows'],
  ])('%s: EXPLAIN says why', async (_what, query, key, why) => {
    const text = await explain(query, two)
    expect(text).not.toContain(`LocalGroupAggregate(groupBy=[${key}]`)
    expect(text).toMatch(new RegExp(`\\+- GroupAggregate\\(groupBy=\\[${key}\\].*onePhase=\\[${why.replace(/[()[\]$.*+?]/g, '\\$&')}\\]`))
  })

  it("mini-batch off: as Flink, two phases need mini-batch ('table.exec.mini-batch.enabled')", async () => {
    const text = await explain('SELECT k, COUNT(*) FROM t GROUP BY k', { ...two, 'table.exec.mini-batch.enabled': 'false' })
    expect(text).not.toContain('LocalGroupAggregate')
    expect(text).toContain("onePhase=['table.exec.mini-batch.enabled' is false")
  })

  it('AUTO (the default) and ONE_PHASE plan one phase at any parallelism, and say nothing of it', async () => {
    const cases: Record<string, string>[] = [{ [STRATEGY]: 'AUTO' }, { 'parallelism.default': '2' }, { 'parallelism.default': '3', [STRATEGY]: 'AUTO' }, {
      'parallelism.default': '2',
      [STRATEGY]: 'ONE_PHASE',
    }]
    for (const opts of cases) {
      const text = await explain('SELECT k, COUNT(*) FROM t GROUP BY k', opts)
      expect(text).toContain('+- GroupAggregate(groupBy=[k]')
      expect(text).not.toContain('onePhase')
    }
  })

  it('a bad strategy is refused at SET, with the values Flink takes', async () => {
    await expect(new Session({ println: () => undefined }).executeSql(`SET '${STRATEGY}' = 'THREE_PHASE';`)).rejects.toThrow(
      "expected one of 'auto', 'one_phase', 'two_phase'",
    )
  })
})
