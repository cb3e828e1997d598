// The compatibility suite's shape: for each page of Flink's documentation a table of its SQL examples,
// written for Weir, each with the result the page documents; and the runner that runs one case in a
// fresh session and compares. Used by the vitest files beside it and by bench/compat-count.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { Session } from '../../engine/session.js'
import type { StatementResult } from '../../engine/script.js'
import { formatValue } from '../../common/values.js'

/** A table a page's examples read: its columns (DDL) and rows, written to a JSON-lines file. */
export interface CompatTable {
  readonly name: string
  /** The column list of CREATE TABLE, WATERMARK and PRIMARY KEY included. */
  readonly columns: string
  readonly rows: readonly Readonly<Record<string, unknown>>[]
}

/**
 * One documented example. `sql` is one or more statements; the last one's result is compared:
 * a query's rows (its final rows, a changelog materialized), each as its cells joined by ' | ' in
 * Flink's print format; SHOW's rows likewise; with `contains`, EXPLAIN's text or a DDL's message.
 */
export interface CompatCase {
  readonly name: string
  /** `${dir}` stands for the case's own temporary folder (a sink's path). */
  readonly sql: string
  /** Statements run (and their jobs awaited) before `sql` is planned: a table `sql` reads once it is filled. */
  readonly before?: string
  readonly expect: readonly string[]
  /** The rows must come in this order (ORDER BY); otherwise they compare as a multiset. */
  readonly ordered?: boolean
  /** The output (EXPLAIN's or SHOW CREATE's text, a DDL's message) must contain each line of `expect`. */
  readonly contains?: boolean
  /** Weir cannot run it yet, and why: the test expects it to fail, so a fix flips it. */
  readonly fails?: string
}

/** The examples of one documentation page. */
export interface CompatPage {
  /** The page, as docs/content/docs/dev/table/<page> in Flink's repository. */
  readonly page: string
  readonly tables?: readonly CompatTable[]
  readonly cases: readonly CompatCase[]
}

/** A built-in function's documented example: `SELECT <expr>` gives the one value `value`. */
export interface FunctionExample {
  readonly fn: string
  readonly expr: string
  readonly value: string
  readonly fails?: string
}

/** What a case gave: its lines, or the error it failed with. */
export type CaseOutcome = { readonly ok: true; readonly lines: string[] } | { readonly ok: false; readonly error: string }

/** Functions pages as cases: one SELECT per example. */
export function functionCases(examples: readonly FunctionExample[]): CompatCase[] {
  return examples.map(e => ({
    name: `${e.fn}: ${e.expr}`,
    sql: `SELECT ${e.expr}`,
    expect: [e.value],
    ...(e.fails !== undefined ? { fails: e.fails } : {}),
  }))
}

function tableDdl(dir: string, t: CompatTable): string {
  const path = join(dir, `${t.name}.jsonl`)
  writeFileSync(path, t.rows.map(r => JSON.stringify(r)).join('\n') + '\n')
  return `CREATE TABLE ${t.name} (${t.columns}) WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');`
}

function linesOf(result: StatementResult): string[] {
  switch (result.kind) {
    case 'rows': {
      const schema = result.schema
      return materialize(result.changes).map(row => schema.map((f, i) => formatValue(row[i], f.type)).join(' | '))
    }
    case 'table':
      return result.rows.map(r => r.join(' | '))
    case 'explain':
      return result.text.split('\n')
    case 'ok':
      return result.message.split('\n')
    case 'failed':
      throw result.error
    case 'job':
      return [`job ${result.name}`]
  }
}

/** Runs a case in a fresh session over its page's tables (each in a temporary folder). */
export async function runCase(page: CompatPage, c: CompatCase): Promise<CaseOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-compat-'))
  try {
    const session = new Session({ println: () => undefined, log: () => undefined, warn: () => undefined })
    const ddl = (page.tables ?? []).map(t => tableDdl(dir, t)).join('\n')
    if (ddl !== '') await session.executeSql(ddl)
    if (c.before !== undefined) {
      await session.executeSql(c.before.replaceAll('${dir}', dir))
      await session.awaitJobs()
    }
    const results = await session.executeSql(c.sql.replaceAll('${dir}', dir))
    await session.awaitJobs()
    const last = results[results.length - 1]
    if (!last) return { ok: false, error: 'no statement' }
    return { ok: true, lines: linesOf(last) }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Whether a case's outcome is its documented result; otherwise what differs. */
export function judge(c: CompatCase, outcome: CaseOutcome): { readonly pass: boolean; readonly why: string } {
  if (!outcome.ok) return { pass: false, why: `failed: ${outcome.error}` }
  const got = outcome.lines
  if (c.contains) {
    const text = got.join('\n')
    const missing = c.expect.filter(l => !text.includes(l))
    return { pass: missing.length === 0, why: `missing ${JSON.stringify(missing)} in:\n${text}` }
  }
  const want = c.ordered ? [...c.expect] : [...c.expect].sort()
  const have = c.ordered ? [...got] : [...got].sort()
  const pass = want.length === have.length && want.every((w, i) => w === have[i])
  return { pass, why: `expected ${JSON.stringify(want)}, got ${JSON.stringify(have)}` }
}

/** The final rows of a changelog: inserts and update-afters add a row, retractions remove one equal to it. */
function materialize(changes: readonly { kind: number; row: readonly unknown[] }[]): (readonly unknown[])[] {
  const live = new Map<string, (readonly unknown[])[]>()
  const id = (row: readonly unknown[]) => JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))
  for (const { kind, row } of changes) {
    const same = live.get(id(row))
    if (kind === 0 || kind === 2) {
      if (same) same.push(row)
      else live.set(id(row), [row])
    } else if (same) {
      same.pop()
      if (same.length === 0) live.delete(id(row))
    } else {
      throw new Error(`a retraction of ${id(row)}, which is not in the result`)
    }
  }
  return [...live.values()].flat()
}
