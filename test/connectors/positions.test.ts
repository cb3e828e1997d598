// Source positions: every chunk carries its split's position, and a reader restored from the positions
// after chunk k gives exactly the rows an uninterrupted run gives after chunk k — for files (by byte
// offset), datagen (row count and generator state) and nexmark (event number), at any chunk boundary.
import { appendFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import type { SourceChunk, SourceReader, SplitPosition } from '../../connectors/api.js'
import { datagenConnector } from '../../connectors/datagen.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import { LineReader } from '../../connectors/filesystem/line-reader.js'
import { nexmarkConnector } from '../../connectors/nexmark/index.js'
import type { Row } from '../../core/batch.js'
import { AUCTION, BID, drain, errorOf, PERSON, sourceCtx, tempDir } from './helpers.js'

type Restored = readonly (SplitPosition | null)[]
type Make = (restored?: Restored) => Promise<SourceReader>

/** The position of each split after `chunks` (null for a split they do not include), as a checkpoint stores it. */
function positionsAfter(chunks: readonly SourceChunk[], splitCount: number): Restored {
  const positions: (SplitPosition | null)[] = Array.from({ length: splitCount }, () => null)
  for (const c of chunks) positions[c.split] = c.position
  // Through JSON, as in a checkpoint: positions must be plain data.
  return JSON.parse(JSON.stringify(positions)) as Restored
}

function rowsBySplit(chunks: readonly SourceChunk[], splitCount: number): Row[][] {
  const out: Row[][] = Array.from({ length: splitCount }, () => [])
  for (const c of chunks) out[c.split]!.push(...c.rows)
  return out
}

/** The last position each split reported. */
function lastPositions(chunks: readonly SourceChunk[], splitCount: number): unknown[] {
  return [...positionsAfter(chunks, splitCount)]
}

/**
 * Reads `k` chunks with one reader, restores a second from their positions and reads the rest; checks
 * that the two together give exactly what `straight` gave, split by split and in all, that every
 * split reports its end after the restore (without rows if it had ended before), and that the final
 * positions agree. `prefix` may give the k chunks instead (e.g. those of the straight run itself).
 */
async function checkResume(make: Make, straight: readonly SourceChunk[], k: number, prefix?: readonly SourceChunk[]): Promise<void> {
  let before: SourceChunk[]
  let splitCount: number
  if (prefix === undefined) {
    const first = await make()
    splitCount = first.splitCount
    before = []
    for (let i = 0; i < k; i++) {
      const c = await first.next()
      if (c === null) break
      before.push(c)
    }
    await first.close()
  } else {
    splitCount = (await make()).splitCount
    before = prefix.slice(0, k)
  }
  const reader = await make(positionsAfter(before, splitCount))
  expect(reader.splitCount).toBe(splitCount)
  const after = await drain(reader)
  const where = `resumed after chunk ${k}`
  expect([...before, ...after].flatMap(c => c.rows), where).toEqual(straight.flatMap(c => c.rows))
  const want = rowsBySplit(straight, splitCount)
  const got = rowsBySplit([...before, ...after], splitCount)
  for (let s = 0; s < splitCount; s++) expect(got[s], `${where}, split ${s}`).toEqual(want[s])
  for (let s = 0; s < splitCount; s++) {
    const ended = after.filter(c => c.split === s && c.splitEnded === true)
    expect(ended, `${where}: split ${s} reports its end once`).toHaveLength(1)
    if (before.some(c => c.split === s && c.splitEnded === true)) {
      expect(after.filter(c => c.split === s).flatMap(c => c.rows), `${where}: split ${s} had ended`).toEqual([])
    }
  }
  expect(lastPositions(after, splitCount), where).toEqual(lastPositions(straight, splitCount).map((p, s) => (after.some(c => c.split === s) ? p : null)))
}

/** Every k from 0 to the number of chunks, or `samples` of them spread over the run (with the ends). */
function ks(chunks: number, samples = Infinity): number[] {
  if (chunks + 1 <= samples) return Array.from({ length: chunks + 1 }, (_, i) => i)
  const out = new Set([0, 1, chunks - 1, chunks])
  for (let i = 0; i < samples; i++) out.add(Math.floor(((i + 0.5) * chunks) / samples))
  return [...out].sort((a, b) => a - b)
}

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ dir, cleanup } = tempDir())
})
afterEach(() => cleanup())

const fs = filesystemConnector.source!
const ID_S: Field[] = [{ name: 'id', type: T.int() }, { name: 's', type: T.string() }]

function fileSource(options: Record<string, string>, schema: readonly Field[], batchSize: number): Make {
  return restored => fs.create(sourceCtx(options, schema, batchSize, undefined, restored))
}

describe('filesystem source positions', () => {
  function writeJsonDir(): void {
    // Multi-byte characters, CRLF endings, blank lines, a BOM, an empty file and a last line without a newline.
    const a: string[] = []
    for (let i = 0; i < 23; i++) a.push(i % 5 === 4 ? '' : JSON.stringify({ id: i, s: `é${'€'.repeat(i % 3)}🦀 ${i}` }))
    writeFileSync(join(dir, 'a.json'), a.join('\r\n') + '\r\n')
    writeFileSync(join(dir, 'b.json'), '\uFEFF' + Array.from({ length: 9 }, (_, i) => JSON.stringify({ id: 100 + i, s: 'b' })).join('\n'))
    writeFileSync(join(dir, 'c.json'), '')
    writeFileSync(join(dir, 'd.json'), '{"id": 300, "s": "last"}\n\n')
  }

  it('report file, byte offset after the last consumed line, line number and end', async () => {
    writeJsonDir()
    const chunks = await drain(await fs.create(sourceCtx({ path: dir }, ID_S, 5)))
    const file = (name: string): string => join(dir, name)
    const sizes = (name: string): number => readFileSync(file(name)).length
    expect(chunks.map(c => c.position)).toEqual([
      // Lines 1-4 are rows, 5 is blank; the fifth row is line 6.
      { file: file('a.json'), offset: expect.any(Number), line: 6, ended: false },
      { file: file('a.json'), offset: expect.any(Number), line: 12, ended: false },
      { file: file('a.json'), offset: expect.any(Number), line: 18, ended: false },
      { file: file('a.json'), offset: sizes('a.json'), line: 23, ended: true },
      { file: file('b.json'), offset: expect.any(Number), line: 5, ended: false },
      { file: file('b.json'), offset: sizes('b.json'), line: 9, ended: true },
      { file: file('c.json'), offset: 0, line: 0, ended: true },
      { file: file('d.json'), offset: sizes('d.json'), line: 2, ended: true },
    ])
    // The offset is just after the line's '\r\n': the text before it has exactly `line` line breaks.
    const first = chunks[0]!.position as { offset: number }
    const text = readFileSync(file('a.json')).subarray(0, first.offset).toString('utf8')
    expect(text.endsWith('\r\n')).toBe(true)
    expect(text.split('\n')).toHaveLength(7)
  })

  for (const batchSize of [1, 2, 5, 1000]) {
    it(`resume after any chunk of a directory of JSON files gives the same rows (batch size ${batchSize})`, async () => {
      writeJsonDir()
      const make = fileSource({ path: dir }, ID_S, batchSize)
      const straight = await drain(await make())
      expect(straight.flatMap(c => c.rows)).toHaveLength(19 + 9 + 1)
      for (const k of ks(straight.length)) await checkResume(make, straight, k)
    })
  }

  it('resumes CSV with comments, quoted multi-line records, a null literal and no final newline', async () => {
    const lines = ['# id;s  (a header, as a comment)']
    for (let i = 0; i < 30; i++) {
      if (i % 7 === 3) lines.push(`${i};"two\nlines ${i}; ""q"""`)
      else if (i % 7 === 5) lines.push(`${i};NULL`)
      else if (i % 11 === 0) lines.push('# comment', `${i};plain ${i}`)
      else lines.push(`${i};ä ${i}`)
    }
    writeFileSync(join(dir, 'a.csv'), lines.join('\n'))
    writeFileSync(join(dir, 'b.csv'), '"open\nquote";1\n2;x\n')
    const options = { path: dir, format: 'csv', 'csv.field-delimiter': ';', 'csv.null-literal': 'NULL', 'csv.allow-comments': 'true' }
    for (const batchSize of [1, 4, 1000]) {
      const make = fileSource(options, [{ name: 'id', type: T.string() }, { name: 's', type: T.string() }], batchSize)
      const straight = await drain(await make())
      expect(straight.flatMap(c => c.rows)).toHaveLength(32)
      expect(straight.flatMap(c => c.rows)).toContainEqual(['3', 'two\nlines 3; "q"'])
      for (const k of ks(straight.length)) await checkResume(make, straight, k)
    }
  })

  it('resumes within a file of several read blocks with multi-byte characters', async () => {
    const lines: string[] = []
    // ~2.6 MB: three 1 MB blocks, with lines crossing the block boundaries.
    for (let i = 0; i < 40_000; i++) lines.push(JSON.stringify({ id: i, s: `ü${'ß'.repeat(i % 40)}` }))
    writeFileSync(join(dir, 'big.json'), lines.join('\n') + '\n')
    const make = fileSource({ path: dir }, ID_S, 3_000)
    const straight = await drain(await make())
    expect(straight.flatMap(c => c.rows)).toHaveLength(40_000)
    for (const k of ks(straight.length, 5)) await checkResume(make, straight, k)
  })

  it('positions of the straight run itself restore the same way (they do not depend on the reader)', async () => {
    writeJsonDir()
    const make = fileSource({ path: dir }, ID_S, 3)
    const straight = await drain(await make())
    for (const k of [1, 4, 9]) await checkResume(make, straight, k, straight)
  })

  it('matches positions to files by path: a file added before the others is read whole, the others resume', async () => {
    writeFileSync(join(dir, 'b.json'), '{"id": 1}\n{"id": 2}\n{"id": 3}\n')
    writeFileSync(join(dir, 'c.json'), '{"id": 4}\n')
    const schema = [{ name: 'id', type: T.int() }]
    const first = await fs.create(sourceCtx({ path: dir }, schema, 2))
    const c1 = (await first.next())!
    await first.close()
    expect(c1.rows).toEqual([[1], [2]])
    writeFileSync(join(dir, 'a.json'), '{"id": 0}\n')
    const resumed = await drain(await fs.create(sourceCtx({ path: dir }, schema, 2, undefined, [c1.position, null])))
    // Split numbers moved: an empty chunk first carries b.json's position to its new number.
    expect(resumed.map(c => [c.split, c.rows.map(r => r[0]), c.splitEnded ?? false])).toEqual([
      [1, [], false],
      [0, [0], true],
      [1, [3], true],
      [2, [4], true],
    ])
    expect(resumed[0]!.position).toEqual(c1.position)
  })

  it('stays exactly-once across restores when files are added, with positions kept per split number', async () => {
    // As the runtime keeps them: per split number, seeded from the restored array by index, then
    // overwritten by each chunk's position.
    const schema = [{ name: 'id', type: T.int() }]
    const open = async (restored?: Restored): Promise<{ reader: SourceReader; positions: (SplitPosition | null)[] }> => {
      const reader = await fs.create(sourceCtx({ path: dir }, schema, 2, undefined, restored))
      return { reader, positions: Array.from({ length: reader.splitCount }, (_, i) => restored?.[i] ?? null) }
    }
    const step = async (run: { reader: SourceReader; positions: (SplitPosition | null)[] }, out: number[]): Promise<boolean> => {
      const c = await run.reader.next()
      if (c === null) return false
      run.positions[c.split] = c.position
      out.push(...c.rows.map(r => r[0] as number))
      return true
    }
    const ids = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `{"id": ${from + i}}\n`).join('')
    for (let k2 = 0; k2 < 12; k2++) {
      rmSync(join(dir, 'a.json'), { force: true })
      writeFileSync(join(dir, 'c.json'), ids(20, 5))
      writeFileSync(join(dir, 'e.json'), ids(40, 3))
      const out: number[] = []
      const run1 = await open()
      await step(run1, out)
      await step(run1, out)
      const cp1 = JSON.parse(JSON.stringify(run1.positions)) as Restored
      await run1.reader.close()
      expect(out).toEqual([20, 21, 22, 23])
      // Files appear before and between the ones being read.
      writeFileSync(join(dir, 'a.json'), ids(0, 3))
      writeFileSync(join(dir, 'd.json'), ids(30, 2))
      const run2 = await open(cp1)
      const seen2: number[] = []
      for (let i = 0; i < k2; i++) await step(run2, seen2)
      const cp2 = JSON.parse(JSON.stringify(run2.positions)) as Restored
      await run2.reader.close()
      // Rows up to checkpoint 2 count; the rest is replayed from it.
      const run3 = await open(cp2)
      const seen3: number[] = []
      while (await step(run3, seen3));
      const all = [...out, ...seen2, ...seen3].sort((x, y) => x - y)
      expect(all, `checkpoint 2 after ${k2} chunks`).toEqual([0, 1, 2, 20, 21, 22, 23, 24, 30, 31, 40, 41, 42])
    }
  })

  it('names the right file and line in an error after a restore', async () => {
    const file = join(dir, 'bad.json')
    writeFileSync(file, '{"id": 1}\n{"id": 2}\n{"id": 3}\n{"id": oops}\n')
    const schema = [{ name: 'id', type: T.int() }]
    const first = await fs.create(sourceCtx({ path: dir }, schema, 2))
    const c1 = (await first.next())!
    await first.close()
    const reader = await fs.create(sourceCtx({ path: dir }, schema, 2, undefined, [c1.position]))
    const e = await errorOf(() => drain(reader))
    expect(e.message).toContain(`${file}:4`)
    expect(e.record).toMatchObject({ source: file, line: 4, record: '{"id": oops}' })
  })

  it('fails naming file and offset when a file the checkpoint was reading is missing, shorter or rewritten', async () => {
    const file = join(dir, 'a.json')
    writeFileSync(file, '{"id": 1}\n{"id": 2}\n{"id": 3}\n')
    writeFileSync(join(dir, 'b.json'), '{"id": 4}\n')
    const schema = [{ name: 'id', type: T.int() }]
    const first = await fs.create(sourceCtx({ path: dir }, schema, 2))
    const c1 = (await first.next())!
    await first.close()
    expect(c1.position).toEqual({ file, offset: 20, line: 2, ended: false })
    const restore = (): Promise<SourceReader> => fs.create(sourceCtx({ path: dir }, schema, 2, undefined, [c1.position, null]))

    truncateSync(file, 15)
    const shorter = await errorOf(restore)
    expect(shorter.kind).toBe('connector')
    expect(shorter.message).toBe(`cannot resume table 't': file '${file}' has 15 bytes, but the checkpoint read it up to byte 20 (line 2)`)
    expect(shorter.help).toContain('truncated or replaced')
    expect(shorter.record).toMatchObject({ source: file, line: 2 })

    writeFileSync(file, '{"id": 10}\n{"id": 20}\n{"id": 30}\n')
    const rewritten = await errorOf(restore)
    expect(rewritten.message).toContain(`file '${file}' changed since the checkpoint (byte 20 no longer follows a line break)`)

    rmSync(file)
    const missing = await errorOf(restore)
    expect(missing.kind).toBe('connector')
    expect(missing.message).toBe(`cannot resume table 't': file '${file}' is missing; the checkpoint read it up to byte 20 (line 2)`)
    expect(missing.help).toContain('put the file back')

    // A file that grew is fine: the job reads on, into the new lines.
    writeFileSync(file, '{"id": 1}\n{"id": 2}\n{"id": 3}\n')
    appendFileSync(file, '{"id": 5}\n')
    expect((await drain(await restore())).flatMap(c => c.rows)).toEqual([[3], [5], [4]])
  })

  it('rejects a position that is not a filesystem position', async () => {
    writeFileSync(join(dir, 'a.json'), '{"id": 1}\n')
    const e = await errorOf(() => fs.create(sourceCtx({ path: dir }, [{ name: 'id', type: T.int() }], 2, undefined, [{ event: 3 }])))
    expect(e.kind).toBe('checkpoint')
    expect(e.message).toBe(`the checkpoint holds an invalid position for split 0 of table 't': {"event":3}`)
  })

  it('an ended split stays ended, also when its file grew', async () => {
    writeFileSync(join(dir, 'a.json'), '{"id": 1}\n')
    const schema = [{ name: 'id', type: T.int() }]
    const chunks = await drain(await fs.create(sourceCtx({ path: dir }, schema, 10)))
    appendFileSync(join(dir, 'a.json'), '{"id": 2}\n')
    const after = await drain(await fs.create(sourceCtx({ path: dir }, schema, 10, undefined, positionsAfter(chunks, 1))))
    expect(after).toEqual([{ rows: [], split: 0, splitEnded: true, position: chunks[0]!.position }])
  })
})

describe('LineReader offsets', () => {
  it('starting at the offset after any line gives the remaining lines, across small blocks', async () => {
    const file = join(dir, 'lines.txt')
    const lines = Array.from({ length: 200 }, (_, i) => (i % 9 === 0 ? '' : `${i}:${[...'ä€😀x'].slice(0, i % 5).join('')}${'y'.repeat(i % 37)}`))
    // A BOM, mixed endings, a line longer than a block, and no final newline.
    lines[50] = 'z'.repeat(100)
    writeFileSync(file, '\uFEFF' + lines.map((l, i) => l + (i % 4 === 0 ? '\r\n' : '\n')).join('').replace(/\r?\n$/, ''))
    const all = async (start?: { offset: number; line: number }): Promise<{ line: string; offset: number; lineNo: number }[]> => {
      const r = new LineReader(file, start, { blockBytes: 16 })
      const out = []
      for (;;) {
        const line = r.nextLine()
        if (line === null) {
          if (await r.fill()) continue
          break
        }
        out.push({ line, offset: r.offset, lineNo: r.lineNo })
      }
      return out
    }
    const straight = await all()
    expect(straight.map(l => l.line)).toEqual(lines)
    expect(straight.at(-1)!.offset).toBe(readFileSync(file).length)
    for (let i = 0; i < straight.length; i++) {
      const rest = await all({ offset: straight[i]!.offset, line: straight[i]!.lineNo })
      expect(rest, `after line ${i + 1}`).toEqual(straight.slice(i + 1))
    }
  })
})

describe('datagen positions', () => {
  const dg = datagenConnector.source!
  const SCHEMA: Field[] = [
    { name: 'id', type: T.bigint() },
    { name: 'v', type: T.int() },
    { name: 's', type: T.string() },
    { name: 'd', type: T.double() },
    { name: 'amount', type: T.decimal(6, 2) },
    { name: 'ts', type: T.timestamp(3) },
  ]
  const OPTIONS = {
    'rows-per-second': '100000000',
    'number-of-rows': '300',
    'fields.id.kind': 'sequence',
    'fields.id.start': '1000',
    'fields.id.end': '100000',
    'fields.s.length': '9',
    'fields.s.var-len': 'true',
    'fields.v.null-rate': '0.3',
    'fields.ts.max-past': '1 h',
  }
  const make = (options: Record<string, string>, batchSize: number): Make => restored => dg.create(sourceCtx(options, SCHEMA, batchSize, undefined, restored))

  it('carry the row count, the generator state and the clock', async () => {
    const before = Date.now()
    const chunks = await drain(await make({ ...OPTIONS, seed: '7' }, 128)())
    const clock = (chunks[0]!.position as { clock: number }).clock
    expect(clock).toBeGreaterThanOrEqual(before)
    expect(clock).toBeLessThanOrEqual(Date.now())
    expect(chunks.map(c => c.position)).toEqual([128, 256, 300].map(rows => ({ rows, rng: expect.any(Number), clock })))
  })

  for (const batchSize of [1, 7, 100]) {
    it(`resume after any chunk gives the same rows, with and without 'seed' (batch size ${batchSize})`, async () => {
      for (const options of [{ ...OPTIONS, seed: '42' }, OPTIONS]) {
        const m = make(options, batchSize)
        const straight = await drain(await m())
        expect(straight.flatMap(c => c.rows)).toHaveLength(300)
        // Positions from the straight run itself: without a seed (and for timestamps, which count from
        // the run's clock) another run gives other values, but a restore continues this run's. So
        // k = 0 (no position: a fresh start) is no test here.
        for (const k of ks(straight.length, 25).filter(k => k > 0)) await checkResume(m, straight, k, straight)
      }
    })
  }

  it('resumes a sequence-bounded source, also after its last chunk', async () => {
    const options = { 'rows-per-second': '100000000', 'fields.id.kind': 'sequence', 'fields.id.start': '5', 'fields.id.end': '54', seed: '1' }
    const m = make(options, 8)
    const straight = await drain(await m())
    expect(straight.flatMap(c => c.rows.map(r => r[0]))).toEqual(Array.from({ length: 50 }, (_, i) => 5 + i))
    for (const k of ks(straight.length).filter(k => k > 0)) await checkResume(m, straight, k, straight)
  })

  it('rejects a position that is not a datagen position', async () => {
    const e = await errorOf(() => make(OPTIONS, 8)([{ rows: -1, rng: 0, clock: 0 }]))
    expect(e.kind).toBe('checkpoint')
    expect(e.message).toBe(`the checkpoint holds an invalid position for table 't': {"rows":-1,"rng":0,"clock":0}`)
    // A datagen source has a split per subtask now, so two positions may be right; but a split's
    // position is never null (a reader gives every split's start, SourceReader.startPositions).
    const two = await errorOf(() => make(OPTIONS, 8)([null, null]))
    expect(two.message).toBe(`the checkpoint holds an invalid position for split 1 of 2 of table 't': null`)
  })
})

describe('nexmark positions', () => {
  const nx = nexmarkConnector.source!
  const make = (table: string, schema: Field[], batchSize: number, options: Record<string, string> = {}): Make => restored =>
    nx.create(sourceCtx({ 'nexmark.table': table, 'nexmark.events.num': '3000', 'nexmark.seed': '9', ...options }, schema, batchSize, undefined, restored))

  it('carry the number of the next event', async () => {
    const chunks = await drain(await make('auction', AUCTION, 50)())
    // Auctions are events 1-3 of every 50: the 50th is event 16·50 + 2, so the next is 803.
    expect(chunks.map(c => c.position)).toEqual([{ event: 803 }, { event: 1652 }, { event: 2454 }, { event: 3000 }])
  })

  for (const [table, schema] of [['bid', BID], ['auction', AUCTION], ['person', PERSON]] as const) {
    for (const batchSize of [1, 13, 1000]) {
      it(`resume of table ${table} after any chunk gives the same events (batch size ${batchSize})`, async () => {
        const m = make(table, [...schema], batchSize)
        const straight = await drain(await m())
        for (const k of ks(straight.length, 12)) await checkResume(m, straight, k)
      })
    }
  }

  it('resumes a column subset, and a table with no events of its kind', async () => {
    const m = make('bid', [BID[6]!, BID[0]!], 100)
    const straight = await drain(await m())
    for (const k of ks(straight.length, 6)) await checkResume(m, straight, k)
    const none = make('person', PERSON, 10, { 'person.proportion': '0' })
    const chunks = await drain(await none())
    expect(chunks).toEqual([{ rows: [], split: 0, splitEnded: true, position: { event: 0 } }])
    expect(JSON.parse(JSON.stringify(chunks[0]!.position))).toEqual({ event: 0 })
    await checkResume(none, chunks, 1)
  })

  it('an unbounded stream resumes at its event, and a position past events.num has ended', async () => {
    const unbounded = (restored?: Restored): Promise<SourceReader> => nx.create(sourceCtx({ 'nexmark.table': 'bid' }, BID, 100, undefined, restored))
    const r1 = await unbounded()
    const first = [(await r1.next())!, (await r1.next())!, (await r1.next())!]
    const r2 = await unbounded([first[0]!.position])
    expect([(await r2.next())!.rows, (await r2.next())!.rows]).toEqual([first[1]!.rows, first[2]!.rows])
    const past = await drain(await make('bid', BID, 100)([{ event: 5000 }]))
    expect(past).toEqual([{ rows: [], split: 0, splitEnded: true, position: { event: 3000 } }])
  })

  it('rejects a position that is not a nexmark position', async () => {
    const e = await errorOf(() => make('bid', BID, 10)([{ file: 'x', offset: 0 }]))
    expect(e.kind).toBe('checkpoint')
    expect(e.message).toBe(`the checkpoint holds an invalid position for table 't': {"file":"x","offset":0}`)
  })
})
