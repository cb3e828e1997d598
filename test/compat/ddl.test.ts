// The DDL and statement examples of Flink's documentation, run on Weir (see compat-case.ts). A case marked
// `fails` is expected to fail: when Weir learns it, its test fails until the mark is removed.
import { describe, expect, it } from 'vitest'
import { judge, runCase } from './compat-case.js'
import { DDL } from './pages/index.js'

for (const page of DDL) {
  describe(page.page, () => {
    for (const c of page.cases) {
      const test = async () => {
        const verdict = judge(c, await runCase(page, c))
        expect(verdict.pass, verdict.why).toBe(true)
      }
      if (c.fails !== undefined) it.fails(`${c.name} (not yet: ${c.fails})`, test)
      else it(c.name, test)
    }
  })
}
