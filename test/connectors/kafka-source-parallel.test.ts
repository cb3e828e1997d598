// A Kafka source read by several subtasks: each reads only the partitions it owns (partition-owner.ts),
// and a window aggregate and a GROUP BY over a topic of 4 partitions give the same result at
// parallelism 1, 2, 3 and 5 (one subtask more than partitions); a subtask that owns no partition is
// idle and does not hold a running job's watermark back; partitions added while running go to one
// subtask each; a subtask that fails fails the job.
import { describe, expect, it } from 'vitest'
import { RowKind } from '../../core/batch.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { ownerOf } from '../../connectors/kafka/partition-owner.js'
import { append, failure, kafkaSuite, kafkaTable, type Message, produce, until } from './kafka-source-helpers.js'

const suite = kafkaSuite('kafka-source-parallel')

// Message times an hour ago (the broker's retention deletes older ones), on a whole minute.
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000
/** Messages per partition: every sum of a subset is different, so a subtask's count says which partitions it read. */
const SIZES = [50, 100, 200, 400]

/** Partition p's messages: ids p*1000 + j, keys over 5 values, one second apart from T0 (so each partition is in order). */
function messages(): Message[] {
  return SIZES.flatMap((n, p) =>
    Array.from({ length: n }, (_, j) => ({ partition: p, value: JSON.stringify({ k: `k${j % 5}`, v: p * 1000 + j }), timestamp: T0 + j * 1000 }))
  )
}

const table = (topic: string, options: Record<string, string> = {}): string =>
  kafkaTable(suite.broker.bootstrap, 't', `k STRING, v INT, p INT METADATA FROM 'partition' VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND`, topic, { 'scan.startup.mode': 'earliest-offset', ...options })

/** Runs a bounded SELECT at `parallelism`; its changes folded into the final rows (JSON, sorted), and the job's metrics. */
async function run(sql: string, parallelism: number): Promise<{ rows: string[]; result: Extract<StatementResult, { kind: 'rows' }> }> {
  const session = new Session({ println: () => undefined, options: { 'parallelism.default': String(parallelism) } })
  const result = (await session.executeSql(sql)).at(-1)!
  if (result.kind !== 'rows') throw new Error(`expected rows, got ${result.kind}`)
  const live = new Map<string, number>()
  for (const c of result.changes) {
    const row = JSON.stringify(c.row)
    const add = c.kind === RowKind.INSERT || c.kind === RowKind.UPDATE_AFTER ? 1 : -1
    live.set(row, (live.get(row) ?? 0) + add)
  }
  const rows = [...live].flatMap(([row, n]) => {
    expect(n, row).toBeGreaterThanOrEqual(0)
    return Array.from({ length: n }, () => row)
  })
  return { rows: rows.sort(), result }
}

/** What each of `parallelism` subtasks must read of the topic: the messages of the partitions it owns. */
function expectedReads(topic: string, parallelism: number): number[] {
  const reads = Array.from({ length: parallelism }, () => 0)
  SIZES.forEach((n, partition) => (reads[ownerOf({ topic, partition }, parallelism)]! += n))
  return reads
}

function subtaskReads(result: Extract<StatementResult, { kind: 'rows' }>): number[] {
  const bySource = Object.values(result.metrics.sourceSubtaskRecordsRead ?? {})
  expect(bySource).toHaveLength(1)
  return bySource[0]!
}

describe('a topic of 4 partitions read at parallelism 1, 2, 3 and 5', () => {
  const all = messages()
  // The oracle: 10 s tumbling windows per key, and totals per key and partition.
  const windows = new Map<string, { c: number; s: number }>()
  const totals = new Map<string, { c: number; s: number }>()
  for (const m of all) {
    const { k, v } = JSON.parse(m.value!) as { k: string; v: number }
    const ws = m.timestamp! - (m.timestamp! % 10_000)
    for (const [map, key] of [[windows, JSON.stringify([k, ws])], [totals, JSON.stringify([k, m.partition])]] as const) {
      const acc = map.get(key) ?? { c: 0, s: 0 }
      map.set(key, { c: acc.c + 1, s: acc.s + v })
    }
  }
  const oracle = (map: Map<string, { c: number; s: number }>): string[] =>
    [...map].map(([key, { c, s }]) => JSON.stringify([...(JSON.parse(key) as unknown[]), c, s])).sort()

  it.each([1, 2, 3, 5])('parallelism %i: the same windows and totals, each subtask reading only its partitions', async parallelism => {
    const topic = `parts-${parallelism}`
    await produce(suite.kafka, topic, SIZES.length, all)
    const bounded = table(topic, { 'scan.bounded.mode': 'latest-offset' })
    const w = await run(
      `${bounded} SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;`,
      parallelism,
    )
    expect(w.rows).toEqual(oracle(windows))
    expect(w.result.metrics.lateRecordsDropped).toBe(0)
    expect(subtaskReads(w.result)).toEqual(expectedReads(topic, parallelism))
    const g = await run(`${bounded} SELECT k, p, COUNT(*), SUM(v) FROM t GROUP BY k, p;`, parallelism)
    expect(g.rows).toEqual(oracle(totals))
    expect(subtaskReads(g.result)).toEqual(expectedReads(topic, parallelism))
    // The rule deals the partitions out: with 5 subtasks one reads nothing (and ended at once), else each reads some.
    expect(subtaskReads(g.result).filter(n => n === 0)).toHaveLength(Math.max(0, parallelism - SIZES.length))
  }, 120_000)
})

describe('an unbounded source with more subtasks than partitions', () => {
  it('the subtask without a partition is idle: a window closes by the watermark while the job runs', async () => {
    await produce(suite.kafka, 'idle-subtask', 2,
      [0, 1].flatMap(p => Array.from({ length: 20 }, (_, j) => ({ partition: p, value: JSON.stringify({ k: 'a', v: j }), timestamp: T0 + j * 1000 }))))
    const cancel = new AbortController()
    const lines: string[] = []
    const session = new Session({ println: l => lines.push(l), signal: cancel.signal, options: { 'parallelism.default': '3' } })
    await session.executeSql(`${table('idle-subtask')}
      CREATE TABLE out (ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');
      INSERT INTO out SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;`)
    const done = session.awaitJobs()
    try {
      // Both partitions reach 19 s, so the watermark (18 s) closes [0 s, 5 s), [5 s, 10 s) and [10 s, 15 s).
      expect(await until(() => lines.length >= 3)).toBe(true)
    } finally {
      cancel.abort()
    }
    const [m] = await done
    expect(lines.map(l => /, (\d+)\]$/.exec(l)?.[1])).toEqual(['10', '10', '10'])
    const reads = Object.values(m!.sourceSubtaskRecordsRead ?? {})[0]!
    expect(reads).toEqual(expectedSubtasks('idle-subtask', 2, 3).map(owned => owned.length * 20))
  }, 120_000)

  it('partitions added while it runs go to one subtask each, by the same rule', async () => {
    await produce(suite.kafka, 'grow-parallel', 1, [{ partition: 0, value: JSON.stringify({ k: 'a', v: 0 }), timestamp: T0 }])
    const cancel = new AbortController()
    const lines: string[] = []
    const session = new Session({ println: l => lines.push(l), signal: cancel.signal, options: { 'parallelism.default': '3' } })
    await session.executeSql(`${table('grow-parallel', { 'scan.topic-partition-discovery.interval': '300 ms' })}
      CREATE TABLE out (v INT, p INT) WITH ('connector' = 'print');
      INSERT INTO out SELECT v, p FROM t;`)
    const done = session.awaitJobs()
    try {
      expect(await until(() => lines.length >= 1)).toBe(true)
      const admin = suite.kafka.admin()
      await admin.connect()
      await admin.createPartitions({ topicPartitions: [{ topic: 'grow-parallel', count: 4 }] })
      await admin.disconnect()
      await append(suite.kafka, 'grow-parallel', [1, 2, 3].map(p => ({ partition: p, value: JSON.stringify({ k: 'a', v: p }), timestamp: T0 + 1000 })))
      expect(await until(() => lines.length >= 4)).toBe(true)
    } finally {
      cancel.abort()
    }
    const [m] = await done
    // Each message once: no subtask read a partition another owns.
    expect(lines.map(l => /\[(\d+),/.exec(l)?.[1]).sort()).toEqual(['0', '1', '2', '3'])
    const reads = Object.values(m!.sourceSubtaskRecordsRead ?? {})[0]!
    expect(reads).toEqual(expectedSubtasks('grow-parallel', 4, 3).map(owned => owned.length))
  }, 120_000)
})

describe('a failing subtask', () => {
  it('fails the job, naming the bad record; the other subtasks stop with it', async () => {
    await produce(suite.kafka, 'bad-parallel', 2, [
      { partition: 0, value: JSON.stringify({ k: 'a', v: 1 }) },
      { partition: 1, value: '{"k": "b", "v": oops}' },
    ])
    const e = await failure(`SET 'parallelism.default' = '2';
      ${table('bad-parallel', { 'scan.bounded.mode': 'latest-offset' })}
      CREATE TABLE out (k STRING, c BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT k, COUNT(*) FROM t GROUP BY k;`)
    expect(e.message).toContain(`bad record at topic 'bad-parallel', partition 1, offset 0`)
  }, 120_000)
})

/** The partitions (of `partitions`) each of `parallelism` subtasks owns. */
function expectedSubtasks(topic: string, partitions: number, parallelism: number): number[][] {
  const owned: number[][] = Array.from({ length: parallelism }, () => [])
  for (let partition = 0; partition < partitions; partition++) owned[ownerOf({ topic, partition }, parallelism)]!.push(partition)
  return owned
}
