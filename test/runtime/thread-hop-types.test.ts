// Every SQL type across a thread hop: rows of every type (NULLs among them) go through a keyed Top-N
// and a keyed aggregate at parallelism 2 on worker threads — the source's rows cross to the worker's
// subtask, its output crosses back to the sink on the job's thread, row kinds included — and must
// come out exactly as at parallelism 1 on one thread: the same values of the same JS types.
import { afterAll, describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { subtaskWorkersRunning, subtaskWorkersStarted } from '../../runtime/worker-pool.js'
import { materialize } from '../oracle/oracle.js'

const ROWS = 2000

// Each column NULL on some rows (a different residue per column), values derived from the row's id.
const nullable = (mod: number, expr: string): string => `CASE WHEN MOD(id, ${mod}) = 0 THEN NULL ELSE ${expr} END`

const DDL = `
  CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '${ROWS}',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
  CREATE TEMPORARY VIEW v AS SELECT
    id,
    ${nullable(7, 'CAST(id AS INT) * 3')} AS i,
    ${nullable(11, 'id * 1000000000000000')} AS big,
    ${nullable(13, 'CAST(id AS DOUBLE) / 7')} AS d,
    ${nullable(17, 'CAST(id AS FLOAT) / 3')} AS f,
    ${nullable(5, 'MOD(id, 2) = 0')} AS b,
    ${nullable(19, 'CAST(id AS DECIMAL(10, 0)) / 8')} AS dec_small,
    ${nullable(23, "CAST(id AS DECIMAL(38, 0)) * CAST('12345678901234567890123456' AS DECIMAL(38, 0))")} AS dec_huge,
    ${nullable(29, 'TO_TIMESTAMP_LTZ(id * 86400123, 3)')} AS ltz,
    ${nullable(31, 'CAST(TO_TIMESTAMP_LTZ(id * 1000, 3) AS TIMESTAMP(3))')} AS ts,
    ${nullable(37, "TIME '10:00:00' + INTERVAL '1' SECOND * MOD(id, 3600)")} AS tm,
    ${nullable(41, "CAST(CONCAT('b', CAST(id AS STRING)) AS BYTES)")} AS bytes,
    ${nullable(43, "CONCAT('ünïcødé ☃ 𝄞 ', CAST(id AS STRING))")} AS utf,
    ${nullable(47, "REPEAT('abcdefghij', MOD(id, 300))")} AS long_s,
    ${nullable(53, 'ARRAY[id, id + 1, CAST(NULL AS BIGINT)]')} AS arr,
    ${nullable(59, "MAP['k', CAST(id AS STRING), 'n', CAST(NULL AS STRING)]")} AS m,
    ${nullable(61, "ROW(id, CONCAT('r', CAST(id AS STRING)))")} AS r
  FROM src;`

/** The changes of the query, run at parallelism `p` (on worker threads when p > 1). */
async function run(query: string, p: number): Promise<{ kind: number; row: unknown[] }[]> {
  const session = new Session({ println: () => undefined })
  const before = subtaskWorkersStarted()
  const results = await session.executeSql(
    `SET 'parallelism.default' = '${p}';\nSET 'execution.worker-threads' = '${p > 1}';\nSET 'execution.batch-size' = '64';\n${DDL}\n${query}`,
  )
  expect(subtaskWorkersStarted() - before, 'worker threads started').toBe(p - 1)
  const last = results.at(-1)
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  return last.changes as { kind: number; row: unknown[] }[]
}

const byFirst = (a: unknown[], b: unknown[]): number => Number(a[0]) - Number(b[0])

describe('every SQL type across a thread hop', () => {
  afterAll(() => {
    expect(subtaskWorkersRunning(), 'no worker thread outlives its job').toBe(0)
  })

  it('a keyed Top-N passes rows of every type (NULLs, DECIMAL, TIMESTAMP_LTZ, BYTES, TIME, ARRAY, MAP, ROW, long and non-ASCII strings) exactly as at p = 1', async () => {
    const q = 'SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY MOD(id, 97) ORDER BY id DESC) AS rn FROM v) WHERE rn <= 1000'
    const one = materialize(await run(q, 1)).sort(byFirst)
    const two = materialize(await run(q, 2)).sort(byFirst)
    expect(one.length).toBe(ROWS)
    // Every column has NULLs and values.
    for (let c = 0; c < one[0]!.length - 1; c++) {
      expect(one.some(r => r[c] === null), `column ${c} has NULLs`).toBe(c === 0 ? false : true)
      expect(one.some(r => r[c] !== null), `column ${c} has values`).toBe(true)
    }
    expect(typeof one.find(r => r[6] !== null)![6], 'DECIMAL as a bigint').toBe('bigint')
    expect(one.find(r => r[11] !== null)![11], 'BYTES as a Uint8Array').toBeInstanceOf(Uint8Array)
    expect(two).toEqual(one)
    // The same JS types column by column (toEqual alone would let a Buffer stand for a Uint8Array).
    const types = (rows: unknown[][]): string[] => rows.map(r => r.map(v => (v === null ? 'null' : `${typeof v}:${(v as object).constructor.name}`)).join())
    expect(types(two)).toEqual(types(one))
  })

  it('a keyed aggregate sends MULTISETs, ARRAYs and updates back across the hop exactly as at p = 1', async () => {
    const q = `SELECT MOD(id, 50) AS g, COLLECT(utf) AS ms, ARRAY_AGG(d) AS ds, SUM(dec_small) AS s, MAX(ltz) AS mx, COUNT(*) AS n
      FROM v GROUP BY MOD(id, 50)`
    const oneChanges = await run(q, 1)
    const twoChanges = await run(q, 2)
    const one = materialize(oneChanges).sort(byFirst)
    const two = materialize(twoChanges).sort(byFirst)
    expect(one.length).toBe(50)
    expect(twoChanges.some(c => c.kind !== 0), 'updates crossed the hop').toBe(true)
    expect(two).toEqual(one)
  })
})
