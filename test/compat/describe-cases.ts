// One vitest `describe` of compatibility cases (kept apart from compat-case.ts, which the count
// command in bench/ imports without vitest): each case runs and is judged; a case marked `fails`
// runs as `it.fails`, so that a fix flips it until the mark is removed.
import { describe, expect, it } from 'vitest'
import { type CompatCase, type CompatPage, judge, runCase } from './compat-case.js'

export function describeCases(title: string, page: CompatPage, cases: readonly CompatCase[]): void {
  describe(title, () => {
    for (const c of cases) {
      const test = async () => {
        const verdict = judge(c, await runCase(page, c))
        expect(verdict.pass, verdict.why).toBe(true)
      }
      if (c.fails !== undefined) it.fails(`${c.name} (not yet: ${c.fails})`, test)
      else it(c.name, test)
    }
  })
}
