// GROUP BY keyed by a TIME and by BYTES (keeping TIMEs and BYTES as aggregate values) on heap and RocksDB: straight;
// checkpointed and cancelled midway; restored from the checkpoint at another parallelism. The
// committed changelog must materialize to the same rows, and the straight run to hand-computed ones.
import { expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { formatTime } from '../../common/values.js'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'

type Event = { k: string; v: number; ts: string }

interface Case extends RestoreCase {
  readonly expected: (events: readonly Event[]) => Record<string, unknown>[]
}

const msOfDay = (ts: string): number => Date.parse(ts.replace(' ', 'T') + 'Z') % 86_400_000

const CASES: readonly Case[] = [
  {
    name: 'GROUP BY a TIME key, with MIN and MAX of TIMEs',
    columns: 't TIME, n BIGINT, lo TIME(3), hi TIME(3)',
    query: `SELECT TIME '10:00:00' + INTERVAL '1' MINUTE * MOD(v, 17), COUNT(*), MIN(CAST(ts AS TIME(3))), MAX(CAST(ts AS TIME(3)))
      FROM t GROUP BY TIME '10:00:00' + INTERVAL '1' MINUTE * MOD(v, 17)`,
    expected: events => {
      const groups = new Map<number, { n: number; lo: number; hi: number }>()
      for (const e of events) {
        const key = 36_000_000 + (e.v % 17) * 60_000, t = msOfDay(e.ts)
        const g = groups.get(key) ?? { n: 0, lo: Infinity, hi: -Infinity }
        groups.set(key, { n: g.n + 1, lo: Math.min(g.lo, t), hi: Math.max(g.hi, t) })
      }
      // The json format writes a TIME in whole seconds, as Flink's does.
      return [...groups].map(([k, g]) => ({ t: formatTime(k), n: g.n, lo: formatTime(g.lo), hi: formatTime(g.hi) }))
    },
  },
  {
    name: 'GROUP BY a BYTES key, with LAST_VALUE of BYTES',
    columns: 'b BYTES, n BIGINT, total BIGINT, last_b VARBINARY(20)',
    query: `SELECT CAST(k AS BYTES), COUNT(*), SUM(CAST(v AS BIGINT)), LAST_VALUE(UNHEX(CONCAT(CAST(v + 16 AS STRING), 'ff')))
      FROM t GROUP BY CAST(k AS BYTES)`,
    expected: events => {
      const groups = new Map<string, { n: number; total: number; last: number }>()
      for (const e of events) {
        const g = groups.get(e.k) ?? { n: 0, total: 0, last: 0 }
        groups.set(e.k, { n: g.n + 1, total: g.total + e.v, last: e.v })
      }
      // The json format writes BYTES as base64, as Flink's does.
      const b64 = (hex: string): string => Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex').toString('base64')
      return [...groups].map(([k, g]) => ({ b: Buffer.from(k).toString('base64'), n: g.n, total: g.total, last_b: b64(`${g.last + 16}ff`) }))
    },
  },
]

describeRestoreCases({
  name: 'time-bytes',
  seeded: { rows: 5000, keys: 9, seed: 21 },
  cases: CASES,
  watermark: false,
  checkStraight: (rows, c, input) => {
    expect(rows.length).toBeGreaterThan(3)
    const events = readFileSync(input, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Event)
    expect(rows).toEqual(c.expected(events).map(r => JSON.stringify(r)).sort())
  },
})
