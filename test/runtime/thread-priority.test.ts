// The processing threads first (runtime/thread-priority.ts): once its state is open, a job lowers every
// other thread of the process to 'execution.helper-threads.nice', never its own thread or its workers'.
// A lowered thread cannot be raised back, so the tests run in order, each asking for a higher value than
// the one before. Linux only: elsewhere nothing changes, and the tests are skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { getPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import { currentThreadId, lowerHelperThreads, markProcessing } from '../../runtime/thread-priority.js'

const linux = process.platform === 'linux'

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-thread-priority-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

interface ThreadInfo {
  readonly tid: number
  readonly name: string
  readonly nice: number
}

/** Every thread of this process now, with its name and nice value (read from /proc, not through the module). */
function threads(): ThreadInfo[] {
  const out: ThreadInfo[] = []
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8')
      // Fields after the name's closing parenthesis: state is the 3rd field, nice the 19th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.push({ tid: Number(t), name: readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim(), nice: Number(fields[16]) })
    } catch {
      // Ended meanwhile.
    }
  }
  return out
}

const JOB = `
  CREATE TABLE ev (k BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.k.min' = '1', 'fields.k.max' = '100');
  CREATE TABLE sink (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
  INSERT INTO sink SELECT k, COUNT(*) FROM ev GROUP BY k;`

/** Starts an endless RocksDB GROUP BY at parallelism 2 on worker threads; stop() cancels it. */
async function startJob(nice: string): Promise<{ stop: () => Promise<void> }> {
  const abort = new AbortController()
  const session = new Session({
    println: () => undefined,
    signal: abort.signal,
    options: {
      'state.backend': 'rocksdb',
      'state.dir': mkdtempSync(join(root, 'state-')),
      'parallelism.default': '2',
      'execution.worker-threads': 'true',
      'execution.helper-threads.nice': nice,
    },
  })
  await session.executeSql(JOB)
  return {
    stop: async () => {
      abort.abort()
      await session.awaitJobs().catch(() => undefined)
    },
  }
}

/** Waits until `ok` holds of the process's threads (the test's timeout bounds it on a loaded host). */
async function until(ok: (ts: ThreadInfo[]) => boolean): Promise<ThreadInfo[]> {
  for (;;) {
    const ts = threads()
    if (ok(ts)) return ts
    await new Promise(resolve => setTimeout(resolve, 25))
  }
}

describe.skipIf(!linux)("'execution.helper-threads.nice'", () => {
  it('at 0 leaves every thread as it was', async () => {
    const job = await startJob('0')
    // RocksDB's threads start with the first database, which opens before the job would lower anything.
    await until(ts => ts.some(t => t.name.startsWith('rocksdb')))
    await new Promise(resolve => setTimeout(resolve, 200))
    const ts = threads()
    await job.stop()
    expect(ts.filter(t => t.nice !== 0)).toEqual([])
  })

  it("lowers V8's, libuv's and RocksDB's threads once the state is open, and neither the job's thread nor its worker", async () => {
    const job = await startJob('7')
    const ts = await until(ts => ts.some(t => t.name.startsWith('rocksdb') && t.nice === 7))
    await job.stop()
    const me = currentThreadId()!
    expect(ts.find(t => t.tid === me)?.nice).toBe(0)
    // RocksDB's flush and compaction threads (both exist: the job's databases are open).
    const rocks = ts.filter(t => t.name.startsWith('rocksdb'))
    expect(rocks.length).toBeGreaterThanOrEqual(2)
    expect(rocks.every(t => t.nice === 7)).toBe(true)
    // Of the rest, only the worker that runs subtask 2 is left as it was (V8's helpers and libuv's pool
    // are several threads more, all lowered).
    const others = ts.filter(t => t.tid !== me && !t.name.startsWith('rocksdb'))
    expect(others.filter(t => t.nice === 0)).toHaveLength(1)
    expect(others.filter(t => t.nice === 7).length).toBeGreaterThanOrEqual(4)
    expect(others.every(t => t.nice === 0 || t.nice === 7)).toBe(true)
  })

  it('leaves a thread marked as processing, until it is unmarked', async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads'); const fs = require('node:fs');
       const l = fs.readlinkSync('/proc/thread-self'); parentPort.postMessage(Number(l.slice(l.lastIndexOf('/') + 1)));
       setInterval(() => {}, 1000);`,
      { eval: true },
    )
    try {
      const tid = await new Promise<number>(resolve => worker.once('message', resolve))
      const unmarkMe = markProcessing(currentThreadId())
      const unmark = markProcessing(tid)
      expect(lowerHelperThreads(9)).toBeGreaterThan(0)
      expect(getPriority(tid)).toBe(0)
      expect(getPriority(currentThreadId()!)).toBe(0)
      // Already at 9: nothing more to lower.
      expect(lowerHelperThreads(9)).toBe(0)
      unmark()
      // A processing thread whose id is unknown could be any of them: nothing is lowered meanwhile.
      const unmarkUnknown = markProcessing(undefined)
      expect(lowerHelperThreads(9)).toBe(0)
      expect(getPriority(tid)).toBe(0)
      unmarkUnknown()
      expect(lowerHelperThreads(9)).toBe(1)
      expect(getPriority(tid)).toBe(9)
      unmarkMe()
    } finally {
      await worker.terminate()
    }
  })
})

describe("SET 'execution.helper-threads.nice'", () => {
  it.each([
    ['20', "invalid value '20' for option 'execution.helper-threads.nice': a nice value is at most 19"],
    ['-1', "invalid value '-1' for option 'execution.helper-threads.nice': expected a whole number (0, 1, 2 …)"],
  ])('refuses %s, saying why', async (value, message) => {
    const session = new Session({ println: () => undefined })
    const e = await session.executeSql(`SET 'execution.helper-threads.nice' = '${value}'`).then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toBe(message)
  })
})
