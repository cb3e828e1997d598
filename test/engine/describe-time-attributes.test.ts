// DESCRIBE as Flink prints it for time attributes: the watermarked column's type carries *ROWTIME*
// and its watermark column the watermark's expression; a PROCTIME() column's type carries
// *PROCTIME* (NOT NULL in the null column, as Flink prints the type without it) and its extras the
// computed expression.
import { describe, expect, it } from 'vitest'
import { Session, type StatementResult } from '../../engine/session.js'

async function describeRows(sql: string, t: string): Promise<string[][]> {
  const s = new Session({ println: () => undefined })
  await s.executeSql(sql)
  const [r] = await s.executeSql(`DESCRIBE ${t}`) as [Extract<StatementResult, { kind: 'table' }>]
  expect(r.columns).toEqual(['name', 'type', 'null', 'key', 'extras', 'watermark'])
  return r.rows.map(row => [...row])
}

describe('DESCRIBE of time attributes', () => {
  it("prints Flink's Orders example: *ROWTIME*, *PROCTIME*, the key and the watermark's expression", async () => {
    const rows = await describeRows(
      `CREATE TABLE Orders (
        \`user\` BIGINT NOT NULL,
        product STRING,
        amount INT,
        ts TIMESTAMP(3),
        ptime AS PROCTIME(),
        PRIMARY KEY (\`user\`) NOT ENFORCED,
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
      ) WITH ('connector' = 'datagen')`,
      'Orders',
    )
    expect(rows).toEqual([
      ['user', 'BIGINT', 'FALSE', 'PRI(user)', '', ''],
      ['product', 'STRING', 'TRUE', '', '', ''],
      ['amount', 'INT', 'TRUE', '', '', ''],
      ['ts', 'TIMESTAMP(3) *ROWTIME*', 'TRUE', '', '', "ts - INTERVAL '1' SECOND"],
      ['ptime', 'TIMESTAMP_LTZ(3) *PROCTIME*', 'FALSE', '', 'AS PROCTIME()', ''],
    ])
  })

  it('marks a computed rowtime of type TIMESTAMP_LTZ(3), and only the watermarked column', async () => {
    const rows = await describeRows(
      `CREATE TABLE e (ms BIGINT, other TIMESTAMP(3), rt AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR rt AS rt) WITH ('connector' = 'datagen')`,
      'e',
    )
    expect(rows.map(r => r.slice(1, 2).concat(r.slice(4)))).toEqual([
      ['BIGINT', '', ''],
      ['TIMESTAMP(3)', '', ''],
      ['TIMESTAMP_LTZ(3) *ROWTIME*', 'AS TO_TIMESTAMP_LTZ(ms, 3)', 'rt'],
    ])
  })
})
