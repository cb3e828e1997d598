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

it('two generators whose chunks are always ready take turns chunk by chunk from the start', async () => {
  const rows = await unionOf(name =>
    `CREATE TABLE ${name} (id INT, s AS '${name}') WITH ('connector' = 'datagen', 'rows-per-second' = '1000000000',
       'number-of-rows' = '${ROWS}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '${ROWS - 1}')`
  )
  // Both are ready at every turn, so in the first fifth of the output each has about half (served one
  // after the other, b's first row would come after all of a's).
  const firstFifth = rows.slice(0, (2 * ROWS) / 5)
  const fromA = firstFifth.filter(l => l.startsWith('+I[a')).length
  expect(fromA).toBeGreaterThan(ROWS / 10)
  expect(firstFifth.length - fromA).toBeGreaterThan(ROWS / 10)
})

it('two file sources into a UNION ALL are not read one after the other', async () => {
  // A file's first block takes a read from disk, whose time the host decides, so how early the
  // second source starts is not fixed; that it starts before the first one ends is.
  const rows = await unionOf(name => `CREATE TABLE ${name} (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '${file(name)}', 'format' = 'json')`)
  const first = rows[0]!.slice(0, 4)
  const otherStarts = rows.findIndex(l => !l.startsWith(first))
  expect(otherStarts).toBeLessThan(ROWS)
})
