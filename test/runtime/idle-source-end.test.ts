// A source subtask that owns no split (one file read at parallelism 2) is idle from the start: its
// consumers go on without it. When it ends after every other input of a consumer has ended (on a
// loaded host, or on worker threads, its end can come last), its final watermark must still count:
// the windows of the consumer's keys fire, or their rows are silently lost (a quarter to a half of a
// window aggregate's output was, on worker threads, in about one run of three).
//
// On worker threads the order is the threads' race (the idle subtask's source runs on worker 1, where
// no test hook reaches), so the runner is driven here with that order item by item: a window
// aggregate's subtask sees its first input end (after its final watermark), then the second input say
// it is idle, send its final watermark, and end. On the job's thread the end is held with the
// 'source-end' fault point until the subtask that reads the file has ended.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { formatTimestamp } from '../../common/values.js'
import { Session } from '../../engine/session.js'
import type { FaultInjector } from '../../runtime/faults.js'
import { jobConfigOf } from '../../common/config/index.js'
import type { Row } from '../../core/batch.js'
import { parseSql } from '../../grammar/index.js'
import { Catalog, planQuery, tableFromAst } from '../../planner/index.js'
import { openOperator } from '../../runtime/operator-setup.js'
import { buildSubtasks, type Item } from '../../runtime/subtasks.js'
import { TaskRunner } from '../../runtime/task-runner.js'
import { makeKey, subtaskOf } from '../../state/key-encoding.js'
import '../../operators/registry.js'

const KEYS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']
const ROWS = 2_000
const BASE = Date.UTC(2024, 0, 1)
let root: string
let path: string
/** `k|count|window end` per TUMBLE(2 s) window and key, computed here. */
let expected: string[]

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-idle-end-'))
  path = join(root, 'events.jsonl')
  const lines: string[] = []
  const counts = new Map<string, number>()
  for (let i = 0; i < ROWS; i++) {
    const k = KEYS[(i * 7) % KEYS.length]!
    const ts = BASE + i * 37
    lines.push(JSON.stringify({ k, ts: formatTimestamp(ts) }))
    const at = `${k}|${formatTimestamp(ts - (ts % 2000) + 2000)}`
    counts.set(at, (counts.get(at) ?? 0) + 1)
  }
  writeFileSync(path, lines.join('\n') + '\n')
  expected = [...counts].map(([at, n]) => {
    const [k, end] = at.split('|')
    return `${k}|${n}|${end}`
  }).sort()
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

/** Holds the end of source subtask 1 (no split) until subtask 0 has ended and its end has travelled; `held` says it was. */
function lastEndFromTheIdleSubtask(): FaultInjector & { held: boolean } {
  let first!: () => void
  const firstEnded = new Promise<void>(resolve => (first = resolve))
  const hook = {
    held: false,
    at: (point: string, detail: unknown) => {
      if (point !== 'source-end') return
      const { subtask } = detail as { subtask: number }
      if (subtask === 0) {
        first()
        return
      }
      hook.held = true
      return firstEnded.then(() => sleep(100))
    },
  }
  return hook as FaultInjector & { held: boolean }
}

/** An INSERT job (a SELECT's job gets no fault hook): its rows, from what the print sink printed. */
async function windowCounts(faults: FaultInjector): Promise<{ rows: string[]; reads: readonly number[] | undefined }> {
  const printed: string[] = []
  const session = new Session({ println: l => printed.push(l), faults, options: {
    'parallelism.default': '2',
    'execution.batch-size': '64',
  } })
  await session.executeSql(`
    CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
    CREATE TABLE o (k STRING, n BIGINT, window_end TIMESTAMP(3)) WITH ('connector' = 'print');
    INSERT INTO o SELECT k, COUNT(*) AS n, window_end FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
      GROUP BY k, window_start, window_end;`)
  const [metrics] = await session.awaitJobs()
  const rows = printed.map(l => {
    const m = /^\+I\[(.*), (\d+), (.*)\]$/.exec(l)
    if (m === null) throw new Error(`not an insert: ${l}`)
    return `${m[1]}|${m[2]}|${m[3]}`
  }).sort()
  return { rows, reads: metrics!.sourceSubtaskRecordsRead?.['1-source'] }
}

describe('a source subtask with no split whose end comes after the others', () => {
  it('on this thread (its end held until the other subtask has ended): every window fires', async () => {
    const hook = lastEndFromTheIdleSubtask()
    const { rows, reads } = await windowCounts(hook)
    expect(hook.held, "the idle subtask's end was held").toBe(true)
    expect(reads, 'one subtask reads the file, the other has no split').toEqual([ROWS, 0])
    expect(rows).toEqual(expected)
  }, 60_000)

  it('driven in the order worker threads can give: the idle input ends last, after its final watermark, and every window fires', async () => {
    const catalog = new Catalog()
    const config = jobConfigOf({ 'parallelism.default': '2' })
    const [ddl, query] = parseSql(`
      CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');
      SELECT k, COUNT(*) AS n, window_end FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
        GROUP BY k, window_start, window_end`)
    if (ddl?.kind !== 'CreateTable' || query?.kind !== 'QueryStatement') throw new Error('expected a CREATE TABLE and a query')
    catalog.add(tableFromAst(ddl), false, ddl.span)
    const graph = planQuery(query, { catalog, config }).jobGraph('idle-end')
    const { byNode } = buildSubtasks(graph)
    const windows = byNode.get('2-window-aggregate')!
    expect(graph.nodes[0]!.id, 'the source reads [ts, k] into a window aggregate keyed by k').toBe('1-source')
    expect(graph.nodes[1]!.inputs[0]!.exchange).toEqual({ kind: 'hash', keys: [1] })
    // Subtask 0 of the window aggregate, its Calc and the SELECT's collector, as one thread runs them.
    const order = [windows[0]!, byNode.get('3-calc')![0]!, byNode.get('4-collect')![0]!]
    const dir = mkdtempSync(join(root, 'state-'))
    for (const task of order.slice(0, 2)) await openOperator(task, { graph, restore: undefined, stateDir: dir, tmpDir: async () => dir })
    const out: string[] = []
    const runner = new TaskRunner(graph, order, { barrierArrived: async () => {}, channelEnded: async () => {}, taskFinished: async () => {} }, {
      aborted: () => false,
      onTimerDue: () => {},
      onCollect: (_schema, batch) => {
        for (const r of batch.rows) out.push(`${String(r[0])}|${String(r[1])}|${formatTimestamp(Number(r[2]))}`)
      },
    })
    // The rows of the keys subtask 0 owns, on channel 0 (source subtask 0, which read the file).
    const rows: Row[] = []
    for (let i = 0; i < ROWS; i++) {
      const k = KEYS[(i * 7) % KEYS.length]!
      if (subtaskOf(makeKey([k]).group, 2) === 0) rows.push([BASE + i * 37, k])
    }
    expect(rows.length).toBeGreaterThan(0)
    const items: Item[] = [
      { t: 'batch', ch: 0, batch: { rows, kinds: null } },
      { t: 'wm', ch: 0, wm: BASE + ROWS * 37 - 1000 },
      { t: 'wm', ch: 0, wm: Infinity },
      { t: 'end', ch: 0 },
      // Channel 1 (source subtask 1, no split): idle, its final watermark, its end.
      { t: 'idle', ch: 1, idle: true },
      { t: 'wm', ch: 1, wm: Infinity },
      { t: 'end', ch: 1 },
    ]
    windows[0]!.queue.push(...items)
    await runner.pump()
    const owned = expected.filter(e => subtaskOf(makeKey([e.split('|')[0]]).group, 2) === 0)
    expect(out.sort()).toEqual(owned)
    expect(windows[0]!.finished).toBe(true)
    expect(windows[0]!.watermark).toBe(Infinity)
  }, 60_000)
})
