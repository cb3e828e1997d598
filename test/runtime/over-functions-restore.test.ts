// LAG, RANK, DENSE_RANK and ROW_NUMBER in an OVER clause on heap and RocksDB: straight; checkpointed
// and cancelled midway; restored from the checkpoint at another parallelism. The committed changelog
// must materialize to the same rows, and the straight run to rows computed here from the input.
import { expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { describeRestoreCases, type RestoreCase } from '../support/restore-cases.js'

type Event = { k: string; v: number; ts: string }

interface Case extends RestoreCase {
  readonly expected: (events: readonly Event[]) => Record<string, unknown>[]
}

/** The events of each partition in time order (peers in input order: one file, read in order). */
function partitions(events: readonly Event[], by: (e: Event) => string): Event[][] {
  const groups = new Map<string, Event[]>()
  for (const e of events) {
    const g = groups.get(by(e))
    if (g === undefined) groups.set(by(e), [e])
    else g.push(e)
  }
  const ms = (e: Event): number => Date.parse(e.ts.replace(' ', 'T') + 'Z')
  return [...groups.values()].map(g => g.map((e, i) => ({ e, i })).sort((a, b) => ms(a.e) - ms(b.e) || a.i - b.i).map(x => x.e))
}

const lag = <T>(rows: readonly Event[], i: number, n: number, f: (e: Event) => T, dflt: T | null = null): T | null => i >= n ? f(rows[i - n]!) : dflt

const CASES: readonly Case[] = [
  {
    name: 'LAG with offsets 1 and 3, RANK, DENSE_RANK and ROW_NUMBER per key',
    columns: 'k STRING, v INT, prev INT, prev3 INT, r BIGINT, dr BIGINT, rn BIGINT',
    query: `SELECT k, v, LAG(v) OVER w, LAG(v, 3, -1) OVER w, RANK() OVER w, DENSE_RANK() OVER w, ROW_NUMBER() OVER w
      FROM t WINDOW w AS (PARTITION BY k ORDER BY ts)`,
    expected: events =>
      partitions(events, e => e.k).flatMap(rows => {
        let rank = 0, dense = 0
        return rows.map((e, i) => {
          if (i === 0 || rows[i - 1]!.ts !== e.ts) {
            rank = i + 1
            dense++
          }
          return { k: e.k, v: e.v, prev: lag(rows, i, 1, x => x.v), prev3: lag(rows, i, 3, x => x.v, -1), r: rank, dr: dense, rn: i + 1 }
        })
      }),
  },
  {
    name: 'LAG of a string over one global partition, beside a ROWS aggregate',
    columns: 'k STRING, v INT, k2 STRING, s3 INT, rn BIGINT',
    query: `SELECT k, v, LAG(k, 2, 'none') OVER w, SUM(v) OVER (ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), ROW_NUMBER() OVER w
      FROM t WINDOW w AS (ORDER BY ts)`,
    expected: events =>
      partitions(events, () => '').flatMap(rows =>
        rows.map((e, i) => ({ k: e.k, v: e.v, k2: lag(rows, i, 2, x => x.k, 'none'), s3: rows.slice(Math.max(0, i - 2), i + 1).reduce((s, x) => s + x.v, 0),
          rn: i + 1 })
        )
      ),
  },
]

describeRestoreCases({
  name: 'over-functions',
  seeded: { rows: 8000, keys: 7, seed: 29 },
  cases: CASES,
  checkStraight: (rows, c, input) => {
    const events = readFileSync(input, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Event)
    expect(rows.length).toBe(events.length)
    expect(rows).toEqual(c.expected(events).map(r => JSON.stringify(r)).sort())
  },
})
