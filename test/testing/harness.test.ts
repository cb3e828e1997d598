// weir/testing's harness on the fraud example (examples/fraud/fraud.ts): rows per key, a watermark
// that fires the probe's timer, the state per key and the pending timers, and the job's output of
// examples/fraud/fraud.sql against the same hand-computed alerts.
import { describe, expect, it } from 'vitest'
import { harness } from '../../testing/index.js'
import fraud from '../../examples/fraud/fraud.js'
import { Session } from '../../engine/session.js'

const T0 = Date.UTC(2024, 4, 1, 12)

describe('harness(fraud)', () => {
  it('a probe then a large payment within a minute alerts; after the timer fires it does not', async () => {
    const h = await harness(fraud, { partitionBy: ['card_id'], args: { threshold: 500 } })
    h.processElement({ card_id: 'c2', merchant: 'books', amount: 0.5, ts: T0 })
    expect(h.state(['c2'], 'probe')).toBe(T0)
    expect(h.timers()).toEqual([{ key: ['c2'], timestamp: T0 + 60_000, domain: 'event' }])
    h.processElement({ card_id: 'c2', merchant: 'jewels', amount: 900, ts: T0 + 30_000 })
    expect(h.take()).toEqual([{ card_id: 'c2', merchant: 'jewels', amount: 900, reason: 'large payment right after a probe', ts: T0 + 30_000 }])
    expect(h.timers()).toEqual([])

    h.processElement({ card_id: 'c3', merchant: 'gas', amount: 0.3, ts: T0 })
    h.watermark(T0 + 60_000)
    expect(h.state(['c3'], 'probe')).toBeUndefined()
    h.processElement({ card_id: 'c3', merchant: 'tv', amount: 1200, ts: T0 + 61_000 })
    expect(h.take()).toEqual([])
    expect(h.state(['c3'], 'spent')).toEqual({ gas: 0.3, tv: 1200 })
    expect(h.state(['c2'], 'spent')).toEqual({ books: 0.5, jewels: 900 })
  })

  it('the TTL clock is the processing time the test sets', async () => {
    const h = await harness(fraud, { partitionBy: ['card_id'], args: { threshold: 500 }, processingTime: 0 })
    h.processElement({ card_id: 'c1', merchant: 'coffee', amount: 3.5, ts: T0 })
    h.processingTime(86_400_000 - 1)
    expect(h.state(['c1'], 'spent')).toEqual({ coffee: 3.5 })
    h.processingTime(86_400_000)
    expect(h.state(['c1'], 'spent')).toBeUndefined()
  })
})

describe('examples/fraud/fraud.sql', () => {
  it('prints the two alerts the rule raises on its data', async () => {
    const lines: string[] = []
    const sql = (await import('node:fs')).readFileSync('examples/fraud/fraud.sql', 'utf8')
    const session = new Session({ println: l => lines.push(l), source: { sql, file: 'examples/fraud/fraud.sql' } })
    await session.executeSql(sql)
    await session.awaitJobs()
    expect(lines.sort()).toEqual([
      '+I[c1, watches, 80.0, new merchant after a big day, 2024-05-01 12:04:00.000]',
      '+I[c2, jewels, 900.0, large payment right after a probe, 2024-05-01 12:00:40.000]',
    ])
  })
})
