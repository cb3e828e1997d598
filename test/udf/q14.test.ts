// Nexmark q14 with its published text and count_char written in TypeScript (bench/nexmark/udf): the
// INSERT runs into its blackhole sink, and its SELECT's rows are checked one by one against values
// computed here from each row (the count of 'c' in extra, the time-of-day type of the bid's hour) and
// against the built-in form of the count, at parallelism 1 and at 2 on worker threads.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { q14Statements } from '../../bench/nexmark/q14.js'

const EVENTS = 20_000
const BID = `CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '${EVENTS}');
`

const countOf = (s: string, c: string): number => [...s].filter(x => x === c).length

function timeType(ms: number): string {
  const h = new Date(ms).getUTCHours()
  return h >= 8 && h <= 18 ? 'dayTime' : h <= 6 || h >= 20 ? 'nightTime' : 'otherTime'
}

describe('Nexmark q14', () => {
  it('runs with its published text into its blackhole sink', async () => {
    const session = new Session({ println: () => undefined })
    await session.executeSql(BID + q14Statements())
    const [metrics] = await session.awaitJobs()
    expect(metrics!.sourceRecordsRead).toBeGreaterThan(0)
  }, 60_000)

  it.each([1, 2])('gives the count of c and the bid time type of each row at parallelism %i', async p => {
    const select = q14Statements().replace('INSERT INTO sink\n', '').replace("count_char(extra, 'c') AS c_counts",
      "count_char(extra, 'c') AS c_counts, CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', '')) AS builtin")
    const session = new Session({ println: () => undefined, options: { 'parallelism.default': String(p), 'execution.worker-threads': 'true' } })
    const results = await session.executeSql(BID + select)
    const last = results.at(-1)
    if (last?.kind !== 'rows') throw new Error('expected rows')
    const rows = last.changes.map(c => c.row)
    expect(rows.length).toBeGreaterThan(100)
    let withC = 0
    for (const [, , , bidTimeType, dateTime, extra, cCounts, builtin] of rows) {
      expect(cCounts).toBe(countOf(extra as string, 'c'))
      expect(cCounts).toBe(builtin)
      expect(bidTimeType).toBe(timeType(dateTime as number))
      if ((cCounts as number) > 0) withC++
    }
    expect(withC, "some rows' extra holds a 'c'").toBeGreaterThan(10)
  }, 60_000)
})
