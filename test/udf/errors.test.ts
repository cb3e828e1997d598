// What user-defined functions refuse, each at its SQL line and column with a caret and what to do (a
// missing or unusable export, a Java class, a built-in's name, wrong arity or types, an aggregate where
// it cannot go, one without retract over an updating input), and what a failing function does at run
// time: the job fails naming the function and the row, or under 'weir.udf.on-error' = 'skip' the call
// gives NULL (scalar) or the row is left out (aggregate).
import { describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Session } from '../../engine/session.js'
import { renderError } from '../../common/errors.js'
import { fails } from '../engine/helpers.js'

const M = resolve(import.meta.dirname, 'modules')
const dir = mkdtempSync(join(tmpdir(), 'weir-udf-errors-'))
const data = join(dir, 't.jsonl')
// v: 1..100, so picky (over 90) and unlucky (13) fail on some rows.
writeFileSync(data, Array.from({ length: 100 }, (_, i) => JSON.stringify({ k: `k${i % 3}`, v: i + 1, s: 'abcabc'.slice(i % 6) })).join('\n') + '\n')
const TABLE = `CREATE TABLE t (k STRING, v INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '${data}', 'format' = 'json');
CREATE FUNCTION count_char AS '${M}/strings.ts#countChar';
`

async function refused(sql: string): Promise<string> {
  return renderError(await fails(sql), sql)
}

async function rows(sql: string, options: Record<string, string> = {}): Promise<unknown[][]> {
  return (await rowsAndSkipped(sql, options)).rows
}

/** The inserted rows and the job's JobMetrics.skippedRecords. */
async function rowsAndSkipped(sql: string, options: Record<string, string> = {}): Promise<{ rows: unknown[][]; skipped: number }> {
  const session = new Session({ println: () => undefined, options })
  const results = await session.executeSql(sql)
  const last = results.at(-1)
  if (last?.kind !== 'rows') throw new Error(`expected rows, got ${last?.kind}`)
  return { rows: last.changes.filter(c => c.kind === 0 || c.kind === 2).map(c => [...c.row]), skipped: last.metrics.skippedRecords }
}

describe('refusals at CREATE FUNCTION', () => {
  it('an export the module does not have, listing those it has', async () => {
    const text = await refused(`CREATE FUNCTION f AS '${M}/strings.ts#countchar'`)
    expect(text).toContain("has no export 'countchar'")
    expect(text).toContain('<sql>:1:22')
    expect(text).toContain('^^^^')
    expect(text).toContain('help: its functions are: countChar, weighted, picky, liar')
  })

  it('an export that is not a function definition', async () => {
    const file = join(dir, 'not-def.ts')
    writeFileSync(file, "export const half = { args: ['INT'], returns: 'DOUBLE', eval: (v: number) => v / 2 }\n")
    const text = await refused(`CREATE FUNCTION f AS '${file}#half'`)
    expect(text).toContain("export 'half': the export was not made by defineScalarFunction or defineAggregateFunction")
  })

  it('a definition with an unknown SQL type', async () => {
    const file = join(dir, 'bad-type.mjs')
    writeFileSync(file, "export const f = { __weir: 'scalar-function', args: { x: 'VARCHAR(3)' }, returns: 'INT', eval: () => 1 }\n")
    const text = await refused(`CREATE FUNCTION f AS '${file}#f' LANGUAGE JAVASCRIPT`)
    expect(text).toContain(`argument 'x' has type "VARCHAR(3)"; the types are STRING, BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, TIMESTAMP(3)`)
  })

  it("Nexmark's published q14 names a Java class", async () => {
    const text = await refused(`CREATE FUNCTION count_char AS 'com.github.nexmark.flink.udf.CountChar';`)
    expect(text).toContain('is neither TypeScript nor JavaScript')
    expect(text).toContain('looks like a Java class')
  })

  it("a built-in function's name", async () => {
    const text = await refused(`CREATE FUNCTION upper AS '${M}/strings.ts#countChar'`)
    expect(text).toContain("'upper' is a built-in function")
    expect(text).toContain('<sql>:1:17')
  })

  it("a module with two functions and no '#export'", async () => {
    expect(await refused(`CREATE FUNCTION f AS '${M}/strings.ts'`)).toContain('exports 4 functions (countChar, weighted, picky, liar); which one is meant?')
  })
})

describe('refusals where a call is planned', () => {
  it('too few arguments, at the call, with the signature', async () => {
    const text = await refused(`${TABLE}SELECT k,\n  count_char(s) FROM t`)
    expect(text).toContain("'count_char' takes 2 arguments but was given 1")
    expect(text).toContain('<sql>:4:3')
    expect(text).toContain(`  |   ${'^'.repeat('count_char(s)'.length)}\n`)
    expect(text).toContain('help: call it as count_char(s STRING, c STRING) → INT')
  })

  it('an argument of the wrong type', async () => {
    const text = await refused(`${TABLE}SELECT count_char(v, 'a') FROM t`)
    expect(text).toContain("cannot apply 'count_char' to (INT, CHAR(1)): argument 1 ('s') is STRING")
    expect(text).toContain('<sql>:3:8')
    expect(text).toContain('CAST the argument')
  })

  it('an aggregate in WHERE', async () => {
    const text = await refused(`${TABLE}CREATE FUNCTION wavg AS '${M}/aggregates.ts#weightedAvg';\nSELECT k FROM t WHERE wavg(v, 1.0) > 2`)
    expect(text).toContain('aggregate function WAVG is not allowed in WHERE')
    expect(text).toContain('<sql>:4:23')
  })

  it('an aggregate without retract over an updating input, naming it', async () => {
    const text = await refused(`${TABLE}CREATE FUNCTION spread AS '${M}/aggregates.ts#spread';
SELECT spread(n) FROM (SELECT k, CAST(COUNT(*) AS INT) AS n FROM t GROUP BY k)`)
    expect(text).toContain("the user aggregate 'spread' cannot consume an updating input: it defines no retract")
    expect(text).toContain('help: add retract(acc, …args)')
  })

  it('an aggregate without retract over a bounded OVER frame, at the call', async () => {
    const text = await refused(`CREATE TABLE w (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE FUNCTION spread AS '${M}/aggregates.ts#spread';
SELECT spread(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM w`)
    expect(text).toContain("the user aggregate 'spread' defines no retract, which a bounded OVER frame needs to take rows out")
    expect(text).toContain('<sql>:3:8')
    expect(text).toContain('or use a frame from UNBOUNDED PRECEDING')
  })

  it('a scalar function called as a table function', async () => {
    const text = await refused(`${TABLE}SELECT * FROM count_char(input => TABLE t PARTITION BY k)`)
    expect(text).toContain("'count_char' is a scalar function, not a table function")
  })
})

describe('a function that fails at run time', () => {
  it('an exception in eval fails the job naming the function, its arguments and the row', async () => {
    const e = await fails(`${TABLE}CREATE FUNCTION picky AS '${M}/strings.ts#picky';
      CREATE TABLE out (v BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT picky(v) FROM t;`)
    expect(e.message).toContain("user function 'picky' failed in eval on picky(91): too big: 91")
    // The call runs in the source's projection, which reads only v.
    expect(e.notes.join('\n')).toMatch(/input row: .*v=91/)
    expect(e.help).toContain("SET 'weir.udf.on-error' = 'skip'")
  })

  it("under 'weir.udf.on-error' = 'skip' a failing scalar call gives NULL", async () => {
    const { rows: got, skipped } = await rowsAndSkipped(`${TABLE}CREATE FUNCTION picky AS '${M}/strings.ts#picky';
      SET 'weir.udf.on-error' = 'skip';
      SELECT v, picky(v) FROM t`)
    expect(got).toHaveLength(100)
    // The job counts the calls it skipped (v = 91 … 100), as it counts a process function's skipped rows.
    expect(skipped).toBe(got.filter(r => (r[0] as number) > 90).length)
    expect(skipped).toBeGreaterThan(0)
    // On two worker threads, the calls skipped in each are summed; a GROUP BY's call runs in the aggregate.
    const parallel = await rowsAndSkipped(
      `${TABLE}CREATE FUNCTION picky AS '${M}/strings.ts#picky';
      SELECT k, SUM(picky(v)) FROM t GROUP BY k`,
      { 'weir.udf.on-error': 'skip', 'parallelism.default': '2' },
    )
    expect(parallel.skipped).toBe(skipped)
    for (const [v, p] of got) expect(p).toBe((v as number) > 90 ? null : (v as number) * 1000)
  })

  it('a value of the wrong type returned fails the job saying what came back', async () => {
    const e = await fails(`${TABLE}CREATE FUNCTION liar AS '${M}/strings.ts#liar';
      CREATE TABLE out (v INT) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT liar(v) FROM t;`)
    expect(e.message).toContain("user function 'liar' returned '1' (string) for its declared type INT, on liar(1)")
  })

  it("an exception in accumulate fails the job; under 'skip' the row is left out", async () => {
    const sql = `${TABLE}CREATE FUNCTION unlucky AS '${M}/aggregates.ts#unlucky';\n`
    const e = await fails(`${sql}CREATE TABLE out (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO out SELECT k, unlucky(v) FROM t GROUP BY k;`)
    expect(e.message).toContain("user function 'unlucky' failed in accumulate on unlucky(13): thirteen")
    const { rows: got, skipped } = await rowsAndSkipped(`${sql}SELECT k, unlucky(v), COUNT(*) FROM t GROUP BY k`, { 'weir.udf.on-error': 'skip' })
    expect(skipped).toBe(1)
    const byKey = new Map(got.map(r => [r[0], r]))
    // v = 13 is row 13, key k0 (i = 12): one row fewer there.
    expect(byKey.get('k0')).toEqual(['k0', 33, 34])
    expect(byKey.get('k1')).toEqual(['k1', 33, 33])
  })
})

describe('SHOW FUNCTIONS', () => {
  it('lists the user functions with their kinds', async () => {
    const session = new Session({ println: () => undefined })
    await session.executeSql(`CREATE FUNCTION count_char AS '${M}/strings.ts#countChar';
      CREATE FUNCTION wavg AS '${M}/aggregates.ts#weightedAvg'`)
    const [result] = await session.executeSql('SHOW FUNCTIONS')
    const listed = (result as unknown as { rows: string[][] }).rows
    expect(listed).toContainEqual(['count_char', 'user scalar'])
    expect(listed).toContainEqual(['wavg', 'user aggregate'])
    expect(listed).toContainEqual(['UPPER', 'scalar'])
    expect(listed).toContainEqual(['SUM', 'aggregate'])
  })
})
