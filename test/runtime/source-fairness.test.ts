// Two sources of one job are read in turn: a source whose chunks are always ready at once (a file
// once its block is read, a generator) must not keep the others waiting until it ends — a join or
// union over them would then take one whole side before the other (a join buffering all of it in
// state).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { Session } from '../../index.js'

const ROWS = 20_000
const dir = mkdtempSync(join(tmpdir(), 'weir-fairness-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string): string {
  const path = join(dir, `${name}.json`)
  writeFileSync(path, Array.from({ length: ROWS }, (_, i) => JSON.stringify({ id: i, s: name })).join('\n') + '\n')
  return path
}

async function unionOf(ddl: (name: string) => string): Promise<string[]> {
  const lines: string[] = []
  const session = new Session({ println: l => lines.push(l), options: { 'execution.batch-size': '100' } })
  await session.executeSql(`
    ${ddl('a')};
    ${ddl('b')};
    CREATE TABLE p (s STRING, id INT) WITH ('connector' = 'print');
    INSERT INTO p SELECT s, id FROM a UNION ALL SELECT s, id FROM b;`)
  await session.awaitJobs()
  const rows = lines.filter(l => /^\+I\[[ab], \d+\]$/.test(l))
  expect(rows).toHaveLength(2 * ROWS)
  // Each source's rows keep their order.
  for (const s of ['a', 'b']) {
    const ids = rows.filter(l => l.startsWith(`+I[${s}`)).map(l => Number(/(\d+)\]$/.exec(l)![1]))
    expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i))
  }
  return rows
}

it('two generators whose chunks are always ready take turns chunk by chunk', async () => {
  const rows = await unionOf(name =>
    `CREATE TABLE ${name} (id INT, s AS '${name}') WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000',
       'number-of-rows' = '${ROWS}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '${ROWS - 1}')`
  )
  // Both are ready at every turn (neither reader waits for anything: the loop, not the reader, gives
  // the event loop its turns), so they alternate one 100-row chunk each from the first to the last.
  // (When each reader took a turn of the event loop every 20 ms, the other's ready chunks went on
  // meanwhile: on a loaded host one source's run reached 19,700 rows.)
  expect(longestRun(rows)).toBe(100)
})

/** The most rows in a row from one source. */
function longestRun(rows: readonly string[]): number {
  let longest = 0, run = 0, last = ''
  for (const row of rows) {
    const source = row.slice(0, 4)
    run = source === last ? run + 1 : 1
    last = source
    longest = Math.max(longest, run)
  }
  return longest
}

it('two file sources into a UNION ALL are not read one after the other', async () => {
  // A file's first block takes a read from disk, whose time the host decides, so how early the
  // second source starts is not fixed; that it starts before the first one ends is.
  const rows = await unionOf(name => `CREATE TABLE ${name} (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '${file(name)}', 'format' = 'json')`)
  const first = rows[0]!.slice(0, 4)
  const otherStarts = rows.findIndex(l => !l.startsWith(first))
  expect(otherStarts).toBeLessThan(ROWS)
})
