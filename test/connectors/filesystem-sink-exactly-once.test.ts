// The filesystem sink with checkpoints: rows of checkpoint n stay in hidden pending files until
// commit(n); recovery publishes what the restored checkpoint promised and deletes this job's other
// hidden files, leaving other jobs' files alone; no empty files; a promised file that is gone is an error.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import type { SinkWriter } from '../../connectors/api.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import type { Row } from '../../core/batch.js'
import { errorOf, readAllRows, sinkCtx, sourceCtx, tempDir, type SinkJob } from './helpers.js'

const sink = filesystemConnector.sink!
const source = filesystemConnector.source!
const SCHEMA: Field[] = [{ name: 'id', type: T.int() }, { name: 's', type: T.string() }]
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ dir, cleanup } = tempDir())
})
afterEach(() => cleanup())

function rows(from: number, to: number): Row[] {
  return Array.from({ length: to - from }, (_, i) => [from + i, `row ${from + i}`])
}

/** Enough rows that the writer flushes them to its in-progress file at once (it buffers 1 MB). */
function manyRows(from: number): Row[] {
  return Array.from({ length: 40_000 }, (_, i) => [from + i, 'x'.repeat(30)])
}

function writer(job: SinkJob = {}, format = 'json'): Promise<SinkWriter> {
  return sink.create(
    sinkCtx({ connector: 'filesystem', path: dir, format }, SCHEMA, undefined, { jobName: 'job-a', operatorId: '4-sink', exactlyOnce: true, ...job }),
  )
}

/** What a filesystem source reading the directory sees, sorted by id. */
async function visibleRows(format = 'json'): Promise<Row[]> {
  const read = await readAllRows(await source.create(sourceCtx({ path: dir, format }, SCHEMA)))
  return read.sort((a, b) => (a[0] as number) - (b[0] as number))
}

/** The sink directory's files, but for the sink's commit log (see the commit-log tests). */
function files(): string[] {
  return readdirSync(dir).filter(f => !f.endsWith('-commits.jsonl')).sort()
}

const LOG = '.part-job-a-4-sink-commits.jsonl'

describe('filesystem sink, exactly-once', () => {
  it("keeps a checkpoint's rows in a hidden pending file, invisible to a source until commit", async () => {
    const w = await writer()
    await w.write({ rows: rows(0, 3), kinds: null })
    expect(files()).toEqual([]) // buffered
    const commit = await w.prepareCommit!(1) as { pending: { file: string; checkpoint: number }[] }
    expect(commit.pending).toHaveLength(1)
    const pending = commit.pending[0]!.file
    expect(pending).toMatch(new RegExp(`^\\.part-job-a-4-sink-${UUID}-0{10}\\.json\\.pending$`))
    expect(commit).toEqual({ pending: [{ file: pending, checkpoint: 1, rows: 3 }] })
    expect(JSON.parse(JSON.stringify(commit))).toEqual(commit)
    expect(files()).toEqual([pending])
    expect(await visibleRows()).toEqual([])

    await w.write({ rows: rows(3, 5), kinds: null })
    await w.commit!(1)
    const published = pending.slice(1, -'.pending'.length)
    expect(files()).toEqual([published])
    expect(published).toMatch(new RegExp(`^part-job-a-4-sink-${UUID}-0{10}\\.json$`))
    expect(await visibleRows()).toEqual(rows(0, 3))

    // The rows after checkpoint 1 go to the next part.
    const commit2 = await w.prepareCommit!(2) as { pending: { file: string }[] }
    expect(commit2.pending.map(p => p.file)).toEqual([pending.replace('-0000000000.json.pending', '-0000000001.json.pending')])
    await w.commit!(2)
    expect(await visibleRows()).toEqual(rows(0, 5))
    await w.close()
  })

  it('names parts so that they sort in the order they were written, across runs too', async () => {
    // A source reads a folder in name order; a changelog the sink wrote must replay in order.
    // Part 10 sorted before part 2, and each run's parts sorted by a random uuid.
    let next = 0
    for (const run of [1, 2]) {
      const w = await writer()
      for (let checkpoint = 1; checkpoint <= 12; checkpoint++) {
        await w.write({ rows: rows(next, next + 2), kinds: null })
        next += 2
        await w.prepareCommit!(checkpoint)
        await w.commit!(checkpoint)
      }
      await w.close()
      if (run === 1) await new Promise(r => setTimeout(r, 2)) // the next run starts in a later millisecond
    }
    expect(files().filter(f => !f.startsWith('.'))).toHaveLength(24)
    const inNameOrder = await readAllRows(await source.create(sourceCtx({ path: dir, format: 'json' }, SCHEMA)))
    expect(inNameOrder.map(r => r[0])).toEqual(rows(0, next).map(r => r[0]))
  })

  it('commit is idempotent, commits what earlier checkpoints sealed too, and only up to n', async () => {
    const w = await writer({}, 'csv')
    await w.write({ rows: rows(0, 2), kinds: null })
    const c1 = await w.prepareCommit!(1) as { pending: { file: string; checkpoint: number }[] }
    await w.write({ rows: rows(2, 4), kinds: null })
    const c2 = await w.prepareCommit!(2) as { pending: { file: string; checkpoint: number }[] }
    await w.write({ rows: rows(4, 6), kinds: null })
    const c3 = await w.prepareCommit!(3) as { pending: { file: string; checkpoint: number }[] }
    // Checkpoint 1's commit never came (say it was declined): its file is listed again by 2 and 3.
    expect(c2.pending.map(p => p.checkpoint)).toEqual([1, 2])
    expect(c3.pending.map(p => p.file)).toEqual([...c2.pending.map(p => p.file), expect.stringMatching(/-0{9}2\.csv\.pending$/)])
    await w.commit!(2)
    expect(await visibleRows('csv')).toEqual(rows(0, 4))
    await w.commit!(2)
    await w.commit!(1)
    expect(files().filter(f => f.startsWith('.'))).toHaveLength(1)
    await w.commit!(3)
    await w.commit!(3)
    expect(await visibleRows('csv')).toEqual(rows(0, 6))
    expect(files().every(f => /^part-job-a-4-sink-.*\.csv$/.test(f))).toBe(true)
    await w.close()
  })

  it('writes no file when no rows came between checkpoints', async () => {
    const w = await writer()
    expect(await w.prepareCommit!(1)).toEqual({ pending: [] })
    await w.commit!(1)
    await w.write({ rows: [], kinds: null })
    expect(await w.prepareCommit!(2)).toEqual({ pending: [] })
    await w.commit!(2)
    await w.write({ rows: rows(0, 1), kinds: null })
    await w.prepareCommit!(3)
    await w.commit!(3)
    expect(await w.prepareCommit!(4)).toEqual({ pending: [] })
    await w.finish()
    expect(await w.prepareCommit!(5)).toEqual({ pending: [] })
    await w.commit!(5)
    await w.close()
    expect(files()).toHaveLength(1)
    expect(await visibleRows()).toEqual(rows(0, 1))
  })

  it("finish() only flushes: the final checkpoint's commit makes the rows visible", async () => {
    const w = await writer()
    await w.write({ rows: rows(0, 4), kinds: null })
    await w.finish()
    expect(files()).toEqual([expect.stringMatching(/^\.part-job-a-4-sink-.*-0{10}\.json\.inprogress$/)])
    expect(await visibleRows()).toEqual([])
    await w.prepareCommit!(7)
    await w.commit!(7)
    await w.close()
    expect(await visibleRows()).toEqual(rows(0, 4))
  })

  it('close() removes the in-progress file but keeps pending files, which a checkpoint may promise', async () => {
    const w = await writer()
    await w.write({ rows: rows(0, 2), kinds: null })
    const c1 = await w.prepareCommit!(1) as { pending: { file: string }[] }
    await w.write({ rows: manyRows(100), kinds: null })
    expect(files()).toHaveLength(2)
    await w.close()
    expect(files()).toEqual([c1.pending[0]!.file])
  })

  it('recovers after a crash: publishes what checkpoint n promised and discards later output', async () => {
    const a = await writer()
    await a.write({ rows: rows(0, 3), kinds: null })
    const c1 = await a.prepareCommit!(1)
    await a.commit!(1)
    await a.write({ rows: rows(3, 6), kinds: null })
    const c2 = await a.prepareCommit!(2)
    // Checkpoint 2 completed, but the job died before its commit reached the sink…
    await a.write({ rows: rows(6, 8), kinds: null })
    await a.prepareCommit!(3)
    // …and checkpoint 3 never completed; rows after it are in progress. Then the crash: `a` is just dropped.
    await a.write({ rows: manyRows(100), kinds: null })
    expect(files().filter(f => f.startsWith('.'))).toHaveLength(3)
    expect(await visibleRows()).toEqual(rows(0, 3))

    // Restored from checkpoint 2: its files are published (checkpoint 1's already were), the rest is gone.
    const b = await writer({ restoredCommit: JSON.parse(JSON.stringify(c2)) })
    expect(files().filter(f => f.startsWith('.'))).toEqual([])
    expect(await visibleRows()).toEqual(rows(0, 6))
    // The replay writes the rows after checkpoint 2 again.
    await b.write({ rows: rows(6, 9), kinds: null })
    await b.prepareCommit!(3)
    await b.commit!(3)
    await b.close()
    expect(await visibleRows()).toEqual(rows(0, 9))

    // Restoring the same checkpoint again is fine: its files are already published.
    const c = await writer({ restoredCommit: c2 })
    await c.close()
    expect(await visibleRows()).toEqual(rows(0, 9))
    // Restoring checkpoint 1 (already published) discards nothing visible either.
    await (await writer({ restoredCommit: c1 })).close()
    expect(await visibleRows()).toEqual(rows(0, 9))
    // The crashed writer's open file went with its process; here it is closed by hand.
    await a.close()
  })

  it('a fresh start deletes leftovers of earlier runs of the same job and operator only', async () => {
    const a = await writer()
    await a.write({ rows: rows(0, 2), kinds: null })
    await a.prepareCommit!(1)
    await a.write({ rows: manyRows(100), kinds: null })
    const otherJob = await writer({ jobName: 'job-b' })
    await otherJob.write({ rows: rows(10, 12), kinds: null })
    const otherCommit = await otherJob.prepareCommit!(1) as { pending: { file: string }[] }
    await otherJob.write({ rows: manyRows(200), kinds: null })
    const otherOperator = await writer({ operatorId: '5-sink' })
    await otherOperator.write({ rows: rows(20, 22), kinds: null })
    await otherOperator.prepareCommit!(1)
    // A job whose name begins with ours, and files that only look alike.
    const longerName = await writer({ jobName: 'job-a-4-sink' })
    await longerName.write({ rows: rows(30, 31), kinds: null })
    await longerName.prepareCommit!(1)
    writeFileSync(join(dir, 'part-job-a-4-sink-visible.json'), '{"id": 99, "s": "theirs"}\n')
    writeFileSync(join(dir, '.part-job-a-4-sink-not-a-uuid-0.json.pending'), '')
    const before = files()
    expect(before.filter(f => f.startsWith('.part-job-a-4-sink-'))).toHaveLength(4)

    const fresh = await writer()
    const after = files()
    const ours = new RegExp(`^\\.part-job-a-4-sink-${UUID}-\\d+\\.json\\.(pending|inprogress)$`)
    expect(after).toEqual(before.filter(f => !ours.test(f)))
    expect(before.filter(f => ours.test(f))).toHaveLength(2)
    await fresh.close()
    // The other job still commits its own pending file.
    await otherJob.commit!(1)
    expect(existsSync(join(dir, otherCommit.pending[0]!.file.slice(1, -'.pending'.length)))).toBe(true)
    await otherJob.close()
    await otherOperator.close()
    await longerName.close()
    await a.close()
  })

  it("recovery keeps another job's pending files in the same directory", async () => {
    const a = await writer()
    await a.write({ rows: rows(0, 2), kinds: null })
    const c1 = await a.prepareCommit!(1)
    await a.write({ rows: rows(2, 4), kinds: null })
    await a.prepareCommit!(2)
    const b = await writer({ jobName: 'job-b' })
    await b.write({ rows: rows(10, 12), kinds: null })
    const b1 = await b.prepareCommit!(1) as { pending: { file: string }[] }
    await (await writer({ restoredCommit: c1 })).close()
    expect(files().filter(f => f.startsWith('.'))).toEqual([b1.pending[0]!.file])
    expect(await visibleRows()).toEqual(rows(0, 2))
    await b.commit!(1)
    expect(await visibleRows()).toEqual([...rows(0, 2), ...rows(10, 12)])
  })

  it('fails when output a completed checkpoint promised is missing, naming the file', async () => {
    const a = await writer()
    await a.write({ rows: rows(0, 2), kinds: null })
    const c1 = await a.prepareCommit!(1) as { pending: { file: string }[] }
    const pending = c1.pending[0]!.file
    rmSync(join(dir, pending))
    const e = await errorOf(() => writer({ restoredCommit: c1 }))
    expect(e.kind).toBe('connector')
    expect(e.message).toBe(
      `output of table 'out' promised by a completed checkpoint is missing: neither '${pending}' nor '${pending.slice(1, -'.pending'.length)}' is in '${dir}'`,
    )
    expect(e.help).toContain('cannot resume exactly-once')
    // The live writer's commit says the same.
    await expect(a.commit!(1)).rejects.toThrow(/promised by a completed checkpoint is missing/)
  })

  it("rejects a restored commit that is not a filesystem sink's", async () => {
    for (const bad of [{ pending: [{ file: '../../etc/passwd.pending', checkpoint: 1 }] }, { files: [] }, 'x']) {
      const e = await errorOf(() => writer({ restoredCommit: bad }))
      expect(e.kind).toBe('checkpoint')
      expect(e.message).toContain(`the checkpoint holds an invalid commit for the filesystem sink of table 'out'`)
    }
  })

  it('makes job names and operator ids safe in file names', async () => {
    const w = await writer({ jobName: 'my job/ä', operatorId: '4-sink' })
    await w.write({ rows: rows(0, 1), kinds: null })
    await w.prepareCommit!(1)
    await w.commit!(1)
    await w.close()
    expect(files()).toEqual([expect.stringMatching(new RegExp(`^part-my%20job%2F%C3%A4-4-sink-${UUID}-0{10}\\.json$`))])
  })

  it('without exactly-once, finish() publishes as before and there is no prepareCommit', async () => {
    const w = await writer({ exactlyOnce: false })
    expect(w.prepareCommit).toBeUndefined()
    await w.write({ rows: rows(0, 2), kinds: null })
    await w.finish()
    await w.close()
    expect(files()).toEqual([expect.stringMatching(new RegExp(`^part-${UUID}-0{10}\\.json$`))])
  })
})

describe('filesystem sink, exactly-once: the record of commits', () => {
  const committedAfter = (restoredCommit: unknown, checkpoint: number) =>
    sink.committedAfter!({
      table: 'out',
      options: { connector: 'filesystem', path: dir, format: 'json' },
      jobName: 'job-a',
      operatorId: '4-sink',
      restoredCommit,
    }, checkpoint)
  const published = (commit: unknown, n: number): string => (commit as { pending: { file: string }[] }).pending[n]!.file.slice(1, -'.pending'.length)
  /** Writes rows [from, to) and seals them for checkpoint `id`; commits them too unless told not to. */
  async function checkpointRows(w: SinkWriter, from: number, to: number, id: number, commit = true): Promise<unknown> {
    await w.write({ rows: rows(from, to), kinds: null })
    const sealed = await w.prepareCommit!(id)
    if (commit) await w.commit!(id)
    return sealed
  }
  const logLines = (): { checkpoint: number; files: string[] }[] =>
    readFileSync(join(dir, LOG), 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l))

  it('names what commits after a checkpoint made visible, which a restore of that checkpoint would write again', async () => {
    const w = await writer()
    const c1 = await checkpointRows(w, 0, 3, 1)
    const c2 = await checkpointRows(w, 3, 6, 2)
    const c3 = await checkpointRows(w, 6, 8, 3, false)
    // The record is kept beside the output, one line per commit.
    expect(logLines()).toEqual([{ checkpoint: 1, files: [published(c1, 0)] }, { checkpoint: 2, files: [published(c2, 0)] }])
    expect(await committedAfter(c1, 1)).toEqual({
      checkpoints: [2],
      description: `rows in 1 file in '${dir}' ('${published(c2, 0)}')`,
      remedy: `delete the files that '${join(dir, LOG)}' lists for checkpoint 2`,
    })
    expect(await committedAfter(c2, 2)).toBeUndefined()
    // Checkpoint 3 was never committed: restoring it writes nothing twice.
    expect(await committedAfter(c3, 3)).toBeUndefined()
    expect((await committedAfter(undefined, 0))?.description).toBe(`rows in 2 files in '${dir}' ('${published(c1, 0)}', '${published(c2, 0)}')`)
    // Deleted committed files are not visible any more: nothing would be doubled.
    rmSync(join(dir, published(c2, 0)))
    expect(await committedAfter(c1, 1)).toBeUndefined()
    await w.close()
  })

  it('a commit recorded but not renamed (a crash between the two) made nothing visible', async () => {
    const w = await writer()
    const c1 = await checkpointRows(w, 0, 3, 1)
    const c2 = await checkpointRows(w, 3, 6, 2, false)
    appendFileSync(join(dir, LOG), JSON.stringify({ checkpoint: 2, files: [published(c2, 0)] }) + '\n')
    expect(await committedAfter(c1, 1)).toBeUndefined()
    await w.commit!(2)
    expect((await committedAfter(c1, 1))?.checkpoints).toEqual([2])
    await w.close()
  })

  it('a restore records what it publishes, so a fall back past it knows; a start from scratch forgets earlier runs', async () => {
    const a = await writer()
    const c1 = await checkpointRows(a, 0, 3, 1, false)
    const c2 = await checkpointRows(a, 3, 6, 2, false)
    // The job died before either commit; restored from checkpoint 2, which promised both files.
    expect(await committedAfter(c1, 1)).toBeUndefined()
    await (await writer({ restoredCommit: c2 })).close()
    expect(await visibleRows()).toEqual(rows(0, 6))
    expect(await committedAfter(c1, 1)).toMatchObject({ checkpoints: [2], description: `rows in 1 file in '${dir}' ('${published(c2, 1)}')` })
    await (await writer()).close()
    expect(existsSync(join(dir, LOG))).toBe(false)
    expect(await committedAfter(undefined, 0)).toBeUndefined()
  })

  it('drops a line torn by a crash, and appends after it from a whole line', async () => {
    const c1 = await checkpointRows(await writer(), 0, 3, 1)
    appendFileSync(join(dir, LOG), '{"checkpoint":2,"fi')
    const b = await writer({ restoredCommit: c1 })
    const c2 = await checkpointRows(b, 3, 5, 2)
    expect(logLines().map(l => l.checkpoint)).toEqual([1, 1, 2])
    expect(await committedAfter(c1, 1)).toMatchObject({ checkpoints: [2], description: `rows in 1 file in '${dir}' ('${published(c2, 0)}')` })
    await b.close()
  })

  it('a record it cannot write is an error naming it, and nothing is published without it', async () => {
    const w = await writer()
    mkdirSync(join(dir, LOG))
    await w.write({ rows: rows(0, 3), kinds: null })
    await w.prepareCommit!(1)
    const e = await errorOf(() => w.commit!(1))
    expect(e.kind).toBe('connector')
    expect(e.message).toBe(`cannot write the sink's record of commits '${join(dir, LOG)}': it is a folder, not a file (EISDIR)`)
    expect(await visibleRows()).toEqual([])
    await w.close()
  })
})
