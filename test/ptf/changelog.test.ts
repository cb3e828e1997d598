// A process function declared changelog: 'retract' emits changes of its rows: its output is an
// updating stream, so a debezium sink applies them and a GROUP BY over it retracts (a SUM of each
// card's best payment is right only if the '-U's are honoured). Straight on heap and RocksDB, and
// checkpointed then restored at another parallelism; an insert-only function emitting a change fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import { harness } from '../../testing/index.js'
import { loadProcessFunction } from '../../ptf/load.js'
import { debeziumRows } from '../support/debezium-files.js'
import { checkpointedThenRestored, RESTORE_BACKENDS, runInsertJob } from '../support/restore-runs.js'

const MODULES = resolve(import.meta.dirname, 'modules')
const ROWS = 6000
const payments = Array.from({ length: ROWS }, (_, i) => ({ card_id: `c${(i * 7) % 13}`, amount: ((i * 7919) % 1000) / 4 }))

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-ptf-changelog-'))
  writeFileSync(join(root, 'p.jsonl'), payments.map(p => JSON.stringify(p)).join('\n') + '\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const ddl = (out: string, columns: string): string => `
  CREATE TABLE p (card_id STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${join(root, 'p.jsonl')}', 'format' = 'json');
  CREATE TABLE out (${columns}) WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'debezium-json');
  CREATE FUNCTION best AS '${MODULES}/best.ts';`
const bestSql = (out: string): string =>
  `${ddl(out, 'card_id STRING, best DOUBLE')}
  INSERT INTO out SELECT * FROM best(input => TABLE p PARTITION BY card_id);`
// MIN over the bests is right only if the planner knows the input updates (an insert-only MIN keeps
// no values to fall back to, so a retracted early best would stay the minimum).
const sumSql = (out: string): string =>
  `${ddl(out, 'cards BIGINT, total DOUBLE, lowest DOUBLE')}
  INSERT INTO out SELECT COUNT(*) AS cards, SUM(best) AS total, MIN(best) AS lowest FROM best(input => TABLE p PARTITION BY card_id);`

function bests(): Map<string, number> {
  const m = new Map<string, number>()
  for (const p of payments) m.set(p.card_id, Math.max(m.get(p.card_id) ?? -Infinity, p.amount))
  return m
}
const sumOracle = (): string[] => {
  const b = bests()
  return [`${b.size}|${[...b.values()].reduce((a, x) => a + x, 0).toFixed(4)}|${Math.min(...b.values())}`]
}
const sumRows = (out: string): string[] =>
  debeziumRows(out).map(r => {
    const o = JSON.parse(r) as { cards: number; total: number; lowest: number }
    return `${o.cards}|${o.total.toFixed(4)}|${o.lowest}`
  })

describe.each(RESTORE_BACKENDS)("changelog: 'retract' on $name", b => {
  it('a changelog sink applies the changes: each card keeps its best payment', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(bestSql(out), b.options(root))
    expect(debeziumRows(out)).toEqual([...bests()].map(([card_id, best]) => JSON.stringify({ card_id, best })).sort())
  })

  it('a GROUP BY over it retracts the replaced rows', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    await runInsertJob(sumSql(out), b.options(root))
    expect(sumRows(out)).toEqual(sumOracle())
  })
})

describe('checkpointed and restored', () => {
  it.each([
    { b: RESTORE_BACKENDS[0]!, a: 1, z: 3 },
    { b: RESTORE_BACKENDS[1]!, a: 2, z: 1 },
  ])('on $b.name from parallelism $a to $z, the GROUP BY over it gives the oracle', async ({ b, a, z }) => {
    const out = mkdtempSync(join(root, 'out-'))
    await checkpointedThenRestored({ root, out, sql: sumSql(out), options: b.options(root), a, z, sourceRows: ROWS })
    expect(sumRows(out)).toEqual(sumOracle())
  })
})

describe('the declared changelog', () => {
  it('EXPLAIN shows the function output as updating', async () => {
    const session = new Session({ println: () => undefined })
    const results = await session.executeSql(`${ddl(join(root, 'x'), 'card_id STRING, best DOUBLE')}
      EXPLAIN SELECT * FROM best(input => TABLE p PARTITION BY card_id);`)
    const text = (results.at(-1) as { text: string }).text
    expect(text).toMatch(/ProcessFunction\(function=\[best\], partitionBy=\[card_id\], output=\[best\], changelog=\[updating\]\)/)
  })

  it('an append-only sink is refused for its updates, naming the function', async () => {
    const session = new Session({ println: () => undefined })
    const e = await session.executeSql(`
      CREATE TABLE p (card_id STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${join(root, 'p.jsonl')}', 'format' = 'json');
      CREATE TABLE plain (card_id STRING, best DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${join(root, 'plain')}', 'format' = 'json');
      CREATE FUNCTION best AS '${MODULES}/best.ts';
      INSERT INTO plain SELECT * FROM best(input => TABLE p PARTITION BY card_id);`).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toContain("process table function 'best' at line 5")
  })

  it('an insert-only function that emits a change fails, naming the function and what to declare', async () => {
    const out = mkdtempSync(join(root, 'out-'))
    const e = await runInsertJob(`${ddl(out, 'card_id STRING, amount DOUBLE')}
      CREATE FUNCTION retracting AS '${MODULES}/retracting.ts';
      INSERT INTO out SELECT * FROM retracting(input => TABLE p PARTITION BY card_id);`, { 'state.backend': 'heap' }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toMatch(
      /process function 'retracting' failed on key \[c\d+\] .*: emitted a '-D' row, but the function's output is insert-only/,
    )
    expect((e as WeirError).help).toContain("changelog: 'retract'")
  })

  it("the harness records each row's kind", async () => {
    const h = await harness(await loadProcessFunction(`${MODULES}/best.ts`, 'TYPESCRIPT'), { partitionBy: ['card_id'] })
    for (const amount of [3, 1, 5]) h.processElement({ card_id: 'a', amount })
    expect(h.take()).toEqual([{ card_id: 'a', best: 3 }, { card_id: 'a', best: 3 }, { card_id: 'a', best: 5 }])
    expect(h.kinds).toEqual(['+I', '-U', '+U'])
  })
})
