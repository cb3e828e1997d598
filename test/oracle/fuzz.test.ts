// Random queries (fuzz-queries.ts) against DuckDB, on heap and on RocksDB with a 1 kb and a 64 kb
// cache (so that state is written, evicted and read back), at parallelism 1 to 3, with small batches,
// mini-batch off and two-phase aggregation. A query's seed is in the test's name: to run more,
// `WEIR_FUZZ_COUNT=500 WEIR_FUZZ_SEED=1000 npx vitest run test/oracle/fuzz.test.ts` (WEIR_FUZZ_ROWS: the rows read).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type OracleData, Rng, canonWeirRow, materialize, expectSameMultiset, rocksOptions } from './oracle.js'
import { fuzzData, fuzzQuery, fuzzSeeds, weirText } from './fuzz-queries.js'

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

const seeds = fuzzSeeds(16)

describe('random queries vs DuckDB', () => {
  let data: OracleData
  beforeAll(async () => {
    data = await fuzzData(777, ROWS)
  })
  afterAll(async () => {
    await data?.close()
  })

  it.each(seeds)('query of seed %i, every configuration', async seed => {
    const q = fuzzQuery(new Rng(seed))
    const expected = await data.duck(q.duck)
    for (const config of CONFIGS) {
      const result = await data.weir(weirText(q), config.options()).catch((e: unknown) => {
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
