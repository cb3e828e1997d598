// The built-in functions' documented examples (pages/functions.ts), each as `SELECT <expr>`: a case
// marked `fails` is expected to fail, so that a fix flips it.
import { describe, expect, it } from 'vitest'
import { functionCases, judge, runCase } from './compat-case.js'
import { FUNCTION_EXAMPLES } from './pages/functions.js'

const PAGE = { page: 'functions/systemFunctions.md', cases: [] }

for (const [family, examples] of Object.entries(FUNCTION_EXAMPLES)) {
  describe(`built-in functions: ${family}`, () => {
    for (const c of functionCases(examples)) {
      const test = async () => {
        const verdict = judge(c, await runCase(PAGE, c))
        expect(verdict.pass, verdict.why).toBe(true)
      }
      if (c.fails !== undefined) it.fails(`${c.name} (not yet: ${c.fails})`, test)
      else it(c.name, test)
    }
  })
}
