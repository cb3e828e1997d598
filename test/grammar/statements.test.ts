// Where statements end for the REPL: at ';' outside strings, quoted names, comments and hints.
import { describe, expect, it } from 'vitest'
import { padTo, splitStatements } from '../../grammar/index.js'

const texts = (t: string): string[] => splitStatements(t).statements.map(s => s.text.trim())

describe('splitStatements', () => {
  it('ends statements at semicolons and keeps the unfinished rest', () => {
    const s = splitStatements('SET a;\nSELECT 1;  SELECT\n  2')
    expect(s.statements.map(x => x.text)).toEqual(['SET a;', '\nSELECT 1;'])
    expect(s.rest).toBe('  SELECT\n  2')
    expect(s.restIsBlank).toBe(false)
  })

  it("ignores ';' inside strings (with doubled quotes), quoted names, comments and hints", () => {
    expect(texts("SELECT 'a;''b;';")).toEqual(["SELECT 'a;''b;';"])
    expect(texts('SELECT `x;y` FROM t;')).toEqual(['SELECT `x;y` FROM t;'])
    expect(texts('SELECT 1 -- no; end\n;')).toEqual(['SELECT 1 -- no; end\n;'])
    expect(texts('SELECT /* ; */ 1;')).toEqual(['SELECT /* ; */ 1;'])
    expect(texts("SELECT /*+ STATE_TTL('t' = '1;d') */ 1;")).toEqual(["SELECT /*+ STATE_TTL('t' = '1;d') */ 1;"])
  })

  it('is unfinished inside an open string or comment', () => {
    expect(splitStatements("SELECT 'a;").statements).toEqual([])
    expect(splitStatements("SELECT 'a;").restIsBlank).toBe(false)
    expect(splitStatements('SELECT 1; /* ; ').restIsBlank).toBe(false)
  })

  it('skips empty statements and sees comments after the last one as blank', () => {
    const s = splitStatements(';; SELECT 1; -- done\n /* really */ ')
    expect(s.statements.map(x => x.text.trim())).toEqual(['SELECT 1;'])
    expect(s.restIsBlank).toBe(true)
  })

  it('pads a statement so its positions are those of the whole text', () => {
    const whole = 'SET a;\n  SELECT x;'
    const [, second] = splitStatements(whole).statements
    const padded = padTo(whole, second!)
    expect(padded.length).toBe(whole.length)
    expect(padded.indexOf('SELECT')).toBe(whole.indexOf('SELECT'))
    expect(padded.split('\n')).toHaveLength(2)
  })
})
