// Random join, semi/anti join, deduplication and Top-N queries (fuzz-queries.ts) against DuckDB, on
// heap and on RocksDB with a 64 kb cache (so that state is written, evicted and read back), at
// parallelism 1 and 2, with small batches. A query's seed is in the test's name: to run more,
// `WEIR_FUZZ_COUNT=500 WEIR_FUZZ_SEED=1000 npx vitest run test/oracle/fuzz.test.ts`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OracleData, Rng, canonWeirRow, materialize, expectSameMultiset, rocksOptions } from './oracle.js'
import { fuzzQuery } from './fuzz-queries.js'

const COUNT = Number(process.env['WEIR_FUZZ_COUNT'] ?? '16')
const FIRST_SEED = Number(process.env['WEIR_FUZZ_SEED'] ?? '1')
const ROWS = Number(process.env['WEIR_FUZZ_ROWS'] ?? '300')

const CONFIGS: readonly { name: string; options: () => Record<string, string> }[] = [
  { name: 'heap, p = 1', options: () => ({}) },
  { name: 'heap, p = 2, batches of 5', options: () => ({ 'execution.batch-size': '5', 'parallelism.default': '2' }) },
  { name: 'RocksDB, p = 1, batches of 3, a 1 kb cache', options: () => ({ ...rocksOptions(), 'state.cache.size': '1 kb', 'execution.batch-size': '3' }) },
  { name: 'heap, mini-batch off, batches of 1', options: () => ({ 'table.exec.mini-batch.enabled': 'false', 'execution.batch-size': '1' }) },
  {
    name: 'heap, p = 3, two-phase aggregation, batches of 4',
    options: () => ({ 'parallelism.default': '3', 'table.optimizer.agg-phase-strategy': 'TWO_PHASE', 'execution.batch-size': '4' }),
  },
  {
    name: 'RocksDB, p = 2, worker threads, batches of 7',
    options: () => ({ ...rocksOptions(), 'execution.batch-size': '7', 'parallelism.default': '2', 'execution.worker-threads': 'true' }),
  },
]

const seeds = Array.from({ length: COUNT }, (_, i) => FIRST_SEED + i)

describe('random queries vs DuckDB', () => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed: 777, rows: ROWS })
    // DuckDB's rewrite of a ROW_NUMBER filter fails an internal assertion on some generated shapes (seeds 1023, 1047).
    await data.duck("SET disabled_optimizers = 'top_n_window_elimination'")
  })
  afterAll(async () => {
    await data?.close()
  })

  it.each(seeds)('query of seed %i, every configuration', async seed => {
    const q = fuzzQuery(new Rng(seed))
    const expected = await data.duck(q.duck)
    for (const config of CONFIGS) {
      const result = await data.weir(`${q.views ?? ''}${q.weir}`, config.options()).catch((e: unknown) => {
        throw new Error(`${config.name}: ${q.what}\n${q.weir}\n${String(e)}`)
      })
      expect(result.lateRecordsDropped, 'no generated row is late').toBe(0)
      const actual = materialize(result.changes).map(row => canonWeirRow(result.schema, row))
      try {
        expectSameMultiset(actual, expected)
      } catch (e) {
        throw new Error(`${config.name}: ${q.what}\n${q.weir}\n${(e as Error).message}`)
      }
    }
  })
})
