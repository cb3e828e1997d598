// Oracle test for CONVERT_TZ: each generated row's time as wall-clock text, converted between zones in
// Weir and by DuckDB's ICU time zones (timezone(), strftime()) alike.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'

const PAIRS: readonly [string, string][] = [
  ['UTC', 'America/Los_Angeles'],
  ['America/Los_Angeles', 'UTC'],
  ['Asia/Kolkata', 'Europe/Berlin'],
  ['Europe/Berlin', 'Australia/Sydney'],
]

describe.each([5, 6])('CONVERT_TZ vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 1500 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('between zones with and without daylight saving time', async () => {
    const weir = PAIRS.map(([f, t], i) => `CONVERT_TZ(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'), '${f}', '${t}') AS c${i}`).join(', ')
    const duck = PAIRS.map(([f, t], i) => `strftime(timezone('${t}', timezone('${f}', date_trunc('second', ts))), '%Y-%m-%d %H:%M:%S') AS c${i}`).join(', ')
    await data.expectSame(`SELECT ts, ${weir} FROM t`, `SELECT ts, ${duck} FROM t`)
  })
})
