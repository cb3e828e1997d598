// The filesystem source cut into splits (splits.ts): a JSON file larger than 'source.split-size' is
// read as byte ranges, dealt to the source's subtasks. Whatever the split size and the parallelism,
// the subtasks' readers together give every line of the file exactly once (lines crossing range
// ends, a range inside one long line, CRLF, empty lines, a last line without newline), on the main
// thread and on the decode thread; stopped after any chunk and restored at another parallelism, the
// rest; and a bad line in a range that starts mid-file is named by its byte offset.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import type { SourceReader, SplitPosition } from '../../connectors/api.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import type { Row } from '../../core/batch.js'
import { drain, errorOf, sourceCtx, tempDir } from './helpers.js'

const source = filesystemConnector.source!
const SCHEMA: Field[] = [{ name: 'id', type: T.int() }, { name: 's', type: T.string() }]

/** Lines of every shape: short, one far longer than the split sizes, CRLF, empty, blank; the last without '\n'. */
function fileText(): string {
  const lines: string[] = []
  for (let id = 0; id < 60; id++) {
    const s = id === 7 ? 'x'.repeat(300) : id % 5 === 0 ? 'é€🦀' : `v${id}`
    lines.push(`{"id": ${id}, "s": "${s}"}${id % 4 === 1 ? '\r' : ''}`)
    if (id % 11 === 3) lines.push('')
  }
  return lines.join('\n') + '\n{"id": 60, "s": "last, no newline"}'
}

const ALL_IDS = Array.from({ length: 61 }, (_, i) => i)

async function open(path: string, extra: Record<string, string>, index: number, parallelism: number, restored?: readonly (SplitPosition | null)[],
  batchSize = 1024): Promise<SourceReader>
{
  const ctx = { ...sourceCtx({ connector: 'filesystem', path, format: 'json', ...extra }, SCHEMA, batchSize, undefined, restored),
    subtask: { index, parallelism } }
  return source.create(ctx)
}

const ids = (rows: readonly Row[]): number[] => rows.map(r => r[0] as number).sort((a, b) => a - b)

describe('filesystem source splits', () => {
  const { dir, cleanup } = tempDir()
  afterAll(cleanup)
  const path = join(dir, 'lines.json')
  writeFileSync(path, fileText())

  it.each(['false', 'true'])('every line once for any split size and parallelism (decode thread %s)', async thread => {
    const whole = (await drain(await open(path, { 'source.decode-thread': thread }, 0, 1))).flatMap(c => c.rows)
    expect(ids(whole)).toEqual(ALL_IDS)
    for (const size of [1, 2, 7, 64, 333, 4096]) {
      for (const p of [1, 2, 3]) {
        const rows: Row[] = []
        let splits = 0
        for (let k = 0; k < p; k++) {
          const reader = await open(path, { 'source.split-size': String(size), 'source.decode-thread': thread }, k, p)
          splits += reader.splitCount
          rows.push(...(await drain(reader)).flatMap(c => c.rows))
        }
        expect(splits, `size ${size}`).toBe(Math.ceil(Buffer.byteLength(fileText()) / size))
        expect(ids(rows), `split size ${size}, p = ${p}`).toEqual(ALL_IDS)
        expect(rows.map(r => JSON.stringify(r)).sort(), `split size ${size}, p = ${p}`).toEqual(whole.map(r => JSON.stringify(r)).sort())
      }
    }
  }, 60_000)

  it('stopped after any chunk at p = a and restored at p = z gives exactly the rest', async () => {
    for (const [a, z] of [[1, 2], [2, 1], [2, 3], [3, 2]] as const) {
      for (const stopAfter of [0, 1, 5, 17, 40]) {
        const before: Row[] = []
        const positions: (SplitPosition | null)[] = []
        for (let k = 0; k < a; k++) {
          const reader = await open(path, { 'source.split-size': '50' }, k, a, undefined, 1)
          // What the runtime records: every split's start, then each chunk's position.
          const own = [...reader.startPositions!]
          for (let i = 0; i < stopAfter; i++) {
            const chunk = await reader.next()
            if (chunk === null) break
            before.push(...chunk.rows)
            own[chunk.split] = chunk.position
          }
          await reader.close()
          positions.push(...own)
        }
        const after: Row[] = []
        for (let k = 0; k < z; k++) after.push(...(await drain(await open(path, { 'source.split-size': '50' }, k, z, positions))).flatMap(c => c.rows))
        expect(ids([...before, ...after]), `${a} → ${z} after ${stopAfter} chunks each`).toEqual(ALL_IDS)
      }
    }
  }, 60_000)

  it('restores a position of the format before splits (a whole file) and re-deals it as one split', async () => {
    const readers = await Promise.all([0, 1].map(k => open(path, { 'source.split-size': '50' }, k, 2, [{ file: path, offset: 0, line: 0, ended: false }])))
    const counts = readers.map(r => r.splitCount)
    expect(counts).toEqual([1, 0])
    expect(ids((await drain(readers[0]!)).flatMap(c => c.rows))).toEqual(ALL_IDS)
  })

  it('refuses restored ranges that do not cover the file once', async () => {
    const e = await errorOf(async () =>
      open(path, {}, 0, 1, [{ file: path, start: 0, end: 100, offset: 0, line: 0, ended: false }, {
        file: path,
        start: 120,
        end: null,
        offset: 120,
        line: 0,
        ended: false,
      }])
    )
    expect(e.message).toContain(`do not cover it once: ranges 0–100, 120–end`)
  })

  it('a bad line in a range that starts mid-file is named by its byte offset; in the first range by its line number', async () => {
    const text = Array.from({ length: 40 }, (_, i) => (i === 30 ? '{"id": 30, "s": broken}' : i === 2 ? '{"id": oops}' : `{"id": ${i}, "s": "ok"}`)).join('\n')
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, text)
    const offset = text.indexOf('{"id": 30,')
    for (const thread of ['false', 'true']) {
      // Split 0 (bytes 0–99) holds line 3's error; split 3 onwards the other.
      const first = await errorOf(async () => drain(await open(bad, { 'source.split-size': '100', 'source.decode-thread': thread }, 0, 3)))
      expect(first.message).toContain(`bad record at ${bad}:3 (table 't')`)
      // A subtask that does not hold split 0.
      const range = Math.floor(offset / 100)
      const p = [2, 3, 4, 5].find(n => range % n !== 0)!
      const later = await errorOf(async () => drain(await open(bad, { 'source.split-size': '100', 'source.decode-thread': thread }, range % p, p)))
      expect(later.message).toContain(`bad record at ${bad} byte ${offset} (table 't')`)
      expect(later.message).toContain(`line number unknown`)
      expect(later.record as unknown).toMatchObject({ source: bad, offset })
    }
  })
})
