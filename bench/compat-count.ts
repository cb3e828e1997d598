// The compatibility figures of the README: of the SQL examples of Flink's documentation in
// test/compat (queries, DDL, built-in functions), how many Weir runs with the documented result;
// and of Flink's named built-in functions (test/compat/flink-functions.ts), how many SHOW FUNCTIONS
// lists, and which it lacks.
// Run from the repository root: npx tsc -p tsconfig.json && node dist/bench/compat-count.js [--json] [--failures]
import { Session } from '../engine/session.js'
import { type CompatCase, type CompatPage, functionCases, judge, runCase } from '../test/compat/compat-case.js'
import { compareFunctions, FLINK_FUNCTION_NAMES } from '../test/compat/flink-functions.js'
import { FUNCTION_EXAMPLES } from '../test/compat/pages/functions.js'
import { DDL, QUERY_PAGES } from '../test/compat/pages/index.js'

interface Tally {
  accepted: number
  total: number
  failures: { page: string; name: string; why: string; expected: boolean }[]
}

async function tally(pages: readonly CompatPage[]): Promise<Tally> {
  const t: Tally = { accepted: 0, total: 0, failures: [] }
  for (const page of pages) {
    for (const c of page.cases) {
      t.total++
      const verdict = judge(c, await runCase(page, c))
      if (verdict.pass) t.accepted++
      else t.failures.push({ page: page.page, name: c.name, why: c.fails ?? verdict.why.split('\n')[0]!, expected: c.fails !== undefined })
    }
  }
  return t
}

const functionPages: CompatPage[] = Object.entries(FUNCTION_EXAMPLES).map(([family, examples]) => ({
  page: `functions: ${family}`,
  cases: functionCases(examples) as CompatCase[],
}))

const parts = {
  queries: await tally(QUERY_PAGES),
  ddl: await tally(DDL),
  functions: await tally(functionPages),
}
const show = await new Session({ println: () => undefined }).executeSql('SHOW FUNCTIONS')
const listing = show[0]
const names = listing?.kind === 'table' ? listing.rows.map(r => r[0]!) : []
const { have, missing } = compareFunctions(names)

const accepted = Object.values(parts).reduce((n, p) => n + p.accepted, 0)
const total = Object.values(parts).reduce((n, p) => n + p.total, 0)
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({
    examples: { accepted, total, ...Object.fromEntries(Object.entries(parts).map(([k, p]) => [k, { accepted: p.accepted, total: p.total }])) },
    functions: { supported: have.length, total: FLINK_FUNCTION_NAMES.length, missing },
    failures: Object.values(parts).flatMap(p => p.failures),
  }))
} else {
  console.log(`examples accepted: ${accepted} / ${total} (${pct(accepted, total)})`)
  for (const [k, p] of Object.entries(parts)) console.log(`  ${k}: ${p.accepted} / ${p.total}`)
  console.log(`Flink functions in SHOW FUNCTIONS: ${have.length} / ${FLINK_FUNCTION_NAMES.length} (${pct(have.length, FLINK_FUNCTION_NAMES.length)})`)
  console.log(`  missing: ${missing.join(', ')}`)
  const unexpected = Object.values(parts).flatMap(p => p.failures.filter(f => !f.expected))
  if (unexpected.length > 0) console.log(`${unexpected.length} case(s) not marked as failing that fail: run the vitest files of test/compat`)
  if (process.argv.includes('--failures')) {
    for (const f of Object.values(parts).flatMap(p => p.failures)) console.log(`  ✗ [${f.page}] ${f.name}: ${f.why}`)
  }
}
