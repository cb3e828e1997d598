// Watermark alignment ('scan.watermark.alignment.group' / '.max-drift'): sources of one group are read
// so that none runs ahead of the group's slowest source by more than the drift; an ended source holds
// nobody back. The options are checked where they are written, and change no result.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Session } from '../../index.js'
import { pointed } from '../support/pointed.js'

const dir = mkdtempSync(join(tmpdir(), 'weir-alignment-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const BATCH = 100
// a: 20,000 rows a millisecond apart (20 s of event time); b: 2,000 rows a second apart (2,000 s):
// each of b's chunks spans 100 s, as much as all of a.
const A_ROWS = 20_000
const B_ROWS = 2_000
const B_STEP_MS = 1_000
const T0 = Date.UTC(2026, 0, 1)

function file(name: string, rows: number, stepMs: number): string {
  const path = join(dir, `${name}.json`)
  const iso = (i: number): string => new Date(T0 + i * stepMs).toISOString().replace('T', ' ').replace('Z', '')
  writeFileSync(path, Array.from({ length: rows }, (_, i) => JSON.stringify({ id: i, ts: iso(i) })).join('\n') + '\n')
  return path
}
const A = file('a', A_ROWS, 1)
const B = file('b', B_ROWS, B_STEP_MS)

const ddl = (name: string, path: string, extra: string): string => `
  CREATE TABLE ${name} (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json'${extra})`

/** What a job over tables a and b (their options `extra`) prints into `p` (`sink`'s columns) by `insert`. */
async function printed(extra: string, sink: string, insert: string): Promise<string[]> {
  const lines: string[] = []
  const session = new Session({ println: l => lines.push(l), options: { 'execution.batch-size': String(BATCH) } })
  await session.executeSql(`
    ${ddl('a', A, extra)};
    ${ddl('b', B, extra)};
    CREATE TABLE p (${sink}) WITH ('connector' = 'print');
    ${insert};`)
  await session.awaitJobs()
  return lines
}

/** The union's rows in the order the job wrote them, as [source, id]. */
async function unionRows(extra: string): Promise<[string, number][]> {
  const lines = await printed(extra, 's STRING, id INT', "INSERT INTO p SELECT 'a', id FROM a UNION ALL SELECT 'b', id FROM b")
  const rows = lines.flatMap(l => {
    const m = /^\+I\[([ab]), (\d+)\]$/.exec(l)
    return m ? [[m[1]!, Number(m[2])] as [string, number]] : []
  })
  // Every row once, each source's in its order.
  for (const [s, n] of [['a', A_ROWS], ['b', B_ROWS]] as const) {
    expect(rows.filter(r => r[0] === s).map(r => r[1])).toEqual(Array.from({ length: n }, (_, i) => i))
  }
  return rows
}

const ALIGNED = `, 'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '1 s'`

describe('sources of one alignment group', () => {
  it('do not run ahead of the slowest by more than the drift: b pauses after its first chunk until a ends', async () => {
    const rows = await unionRows(ALIGNED)
    const aEnds = rows.findLastIndex(r => r[0] === 'a')
    const bBefore = rows.slice(0, aEnds).filter(r => r[0] === 'b').length
    // b's first chunk takes its watermark 99 s ahead of anything a holds: nothing more of b until a ends.
    expect(bBefore).toBeLessThanOrEqual(BATCH)
  })

  it('with a drift wider than the run, hold nothing back: every row arrives', async () => {
    const rows = await unionRows(`, 'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '1 d'`)
    expect(rows).toHaveLength(A_ROWS + B_ROWS)
  })

  it('give the same join result as unaligned sources', async () => {
    const join = async (extra: string): Promise<string[]> =>
      (await printed(extra, 'id INT, n BIGINT', 'INSERT INTO p SELECT a.id, COUNT(*) FROM a JOIN b ON a.id = b.id * 10 GROUP BY a.id'))
        .filter(l => /^[+-][IUD]/.test(l)).sort()
    const aligned = await join(ALIGNED)
    expect(aligned).toEqual(await join(''))
    // a's ids 0, 10, …, 19,990 match b's 0 … 1,999.
    expect(aligned.filter(l => l.startsWith('+I'))).toHaveLength(A_ROWS / 10)
  })
})

describe('alignment options are checked where they are written', () => {
  const t = (watermark: string, options: string): string =>
    `CREATE TABLE t (id INT, ts TIMESTAMP(3)${watermark}) WITH ('connector' = 'filesystem', 'path' = '${A}', 'format' = 'json', ${options})`
  const WM = ', WATERMARK FOR ts AS ts'

  it.each([
    ['an alignment group without a drift', WM, `'scan.watermark.alignment.group' = 'g'`, `an alignment group needs 'scan.watermark.alignment.max-drift'`,
      `'scan.watermark.alignment.group'`],
    ['a drift without a group', WM, `'scan.watermark.alignment.max-drift' = '1 s'`,
      `option 'scan.watermark.alignment.max-drift' needs 'scan.watermark.alignment.group'`, `'scan.watermark.alignment.max-drift'`],
    ['a drift that is not a duration', WM, `'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = 'soon'`,
      `invalid value 'soon' for option 'scan.watermark.alignment.max-drift'`, `'soon'`],
    ['a table without a watermark', '', `'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '1 s'`,
      'watermark alignment needs a watermark', `'scan.watermark.alignment.group'`],
    ['an empty group name', WM, `'scan.watermark.alignment.group' = ' ', 'scan.watermark.alignment.max-drift' = '1 s'`, 'must name a group', `' '`],
  ])('%#: %s', async (_case, watermark, options, message, at) => {
    const e = await pointed(t(watermark, options))
    expect(e.message).toContain(message)
    expect(e.at).toBe(at)
  })

  it('a valid group is accepted by every source connector and shown by nothing else', async () => {
    const session = new Session({ println: () => undefined })
    await session.executeSql(t(WM, `'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '250 ms'`))
    await session.executeSql(`CREATE TABLE n (id BIGINT, dateTime TIMESTAMP(3), WATERMARK FOR dateTime AS dateTime)
      WITH ('connector' = 'nexmark', 'nexmark.table' = 'person', 'nexmark.events.num' = '10',
            'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '1 s')`)
  })
})
