// Golden tests: every test/golden/*.sql runs through a session; its print-sink lines and SELECT
// changes must equal the .out file beside it. Error cases carry `-- error:` (and `-- at: line:col`)
// headers instead, and must fail with that message at that position.
import { describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { mkdtempSync } from 'node:fs'
import { Session } from '../../engine/session.js'
import { renderError, WeirError } from '../../common/errors.js'
import { formatValue } from '../../common/values.js'
import { ROW_KIND_SHORT } from '../../core/batch.js'

const dir = join(process.cwd(), 'test/golden')
const files = readdirSync(dir).filter(f => f.endsWith('.sql')).sort()

/** Every golden file runs on both state backends; RocksDB with a 1 MB cache, so state is evicted and reloaded. */
const BACKENDS: Record<string, () => Record<string, string>> = {
  heap: () => ({ 'state.backend': 'heap' }),
  rocksdb: () => ({ 'state.backend': 'rocksdb', 'state.cache.size': '1 mb', 'state.dir': mkdtempSync(join(tmpdir(), 'weir-golden-')) }),
}

async function run(sql: string, options: Record<string, string> = {}): Promise<string[]> {
  const lines: string[] = []
  const session = new Session({ println: l => lines.push(l), options })
  for (const r of await session.executeSql(sql)) {
    if (r.kind === 'rows') {
      for (const c of r.changes) lines.push(`${ROW_KIND_SHORT[c.kind]}[${r.schema.map((f, i) => formatValue(c.row[i], f.type)).join(', ')}]`)
    } else if (r.kind === 'explain') {
      lines.push(...r.text.split('\n'))
    } else if (r.kind === 'table') {
      lines.push(r.columns.join(' | '), ...r.rows.map(x => x.join(' | ')))
    }
  }
  await session.awaitJobs()
  return lines
}

describe('golden SQL files', () => {
  it('finds golden files', () => {
    expect(files.length).toBeGreaterThan(5)
  })
  for (const [backend, options] of Object.entries(BACKENDS)) {
    for (const file of files) {
      it(`${file} (${backend})`, async () => {
        const sql = readFileSync(join(dir, file), 'utf8')
        const expectedError = /^-- error: (.*)$/m.exec(sql)?.[1]
        const expectedAt = /^-- at: (\d+):(\d+)$/m.exec(sql)
        if (expectedError !== undefined) {
          let caught: unknown
          try {
            await run(sql, options())
          } catch (e) {
            caught = e
          }
          expect(caught, 'the statement should fail').toBeInstanceOf(WeirError)
          const err = caught as WeirError
          expect(renderError(err, sql, file)).toContain(expectedError)
          if (expectedAt) {
            expect(err.span?.start.line).toBe(Number(expectedAt[1]))
            expect(err.span?.start.column).toBe(Number(expectedAt[2]))
          }
          return
        }
        const out = join(dir, file.replace(/\.sql$/, '.out'))
        // `-- unordered`: several sources race, so only the multiset of lines is defined.
        const unordered = /^-- unordered$/m.test(sql)
        const actual = unordered ? (await run(sql, options())).sort() : await run(sql, options())
        if (process.env['UPDATE_GOLDEN'] === '1' && !existsSync(out)) writeFileSync(out, actual.join('\n') + '\n')
        const lines = readFileSync(out, 'utf8').replace(/\n$/, '').split('\n')
        const expected = unordered ? lines.sort() : lines
        expect(actual).toEqual(expected)
      })
    }
  }
})
