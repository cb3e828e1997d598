// Oracle test for BYTES against DuckDB's BLOB: a string's UTF-8 bytes, their hex text, byte-wise
// comparison, and a GROUP BY keyed by BYTES.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'

describe.each([9])('BYTES vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 1500 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('CAST from STRING, HEX, comparisons', async () => {
    await data.expectSame(
      `SELECT s, CAST(s AS BYTES), HEX(CAST(s AS BYTES)), CAST(s AS BYTES) < CAST(k AS BYTES), CAST(s AS BYTES) = CAST(k AS BYTES) FROM t`,
      `SELECT s, encode(s), hex(encode(s)), encode(s) < encode(k), encode(s) = encode(k) FROM t`,
    )
  })

  it('GROUP BY a BYTES key', async () => {
    await data.expectSame(
      `SELECT CAST(k AS BYTES), COUNT(*), SUM(v) FROM t GROUP BY CAST(k AS BYTES)`,
      `SELECT encode(k), COUNT(*), SUM(v) FROM t GROUP BY encode(k)`,
    )
  })
})
