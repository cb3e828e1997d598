// The REPL in Ink, driven as a user drives it (ink-testing-library: keys into stdin, frames out):
// editing and running statements, history kept in a file, errors with carets, the live table of a
// running SELECT with its retractions applied, the result modes, Esc stopping a query, Ctrl-D.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup } from 'ink-testing-library'
import { readFileSync } from 'node:fs'
import { ESC, lastLine, start, typeLine, until, UP } from './drive.js'

const TAB = '\t'
const CTRL_U = '\x15'

const GENERATED = (extra: string) =>
  `CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000', ${extra});`

afterEach(() => cleanup())

describe('the REPL', () => {
  it('adds a line on Enter until the statement ends with a semicolon, then runs it', async () => {
    const app = start()
    await until(app, f => lastLine(f).startsWith('weir>'))
    await typeLine(app, 'SHOW')
    await until(app, f => f.includes('   ->'))
    await typeLine(app, 'TABLES;')
    const f = await until(app, f => f.includes('table name'))
    expect(f).toContain('weir> SHOW\n   -> TABLES;')
    expect(f).toContain('0 rows in set')
    expect(lastLine(f)).toBe('weir>')
  })

  it('runs statements typed ahead, or pasted, while one runs, in order', async () => {
    const app = start()
    await until(app, f => lastLine(f).startsWith('weir>'))
    app.stdin.write("SET 'pipeline.name' = 'a';\rSHOW VIEWS;\rSHOW FUN")
    app.stdin.write('CTIONS;\r')
    const f = await until(app, f => f.includes('function name'))
    expect(f.indexOf("set 'pipeline.name' = 'a'")).toBeLessThan(f.indexOf('view name'))
    expect(f.indexOf('view name')).toBeLessThan(f.indexOf('function name'))
  })

  it('shows an error with its caret and help under the statement, which stays in the editor', async () => {
    const app = start()
    await until(app, f => lastLine(f).startsWith('weir>'))
    await typeLine(app, GENERATED("'number-of-rows' = '3'"))
    await until(app, f => f.includes("table 'g' created"))
    await typeLine(app, 'SELECT idd FROM g;')
    const f = await until(app, f => f.includes('help:'))
    expect(f).toContain(
      ["error: column 'idd' not found", ' --> <repl>:1:8', '  |', '1 | SELECT idd FROM g;', '  |        ^^^', "help: did you mean 'id'?"].join('\n'),
    )
    expect(lastLine(f)).toBe('weir> SELECT idd FROM g;')
  })

  it('keeps history in its file across sessions and recalls it with Up', async () => {
    const app = start(['SHOW TABLES;'])
    await until(app, f => lastLine(f).startsWith('weir>'))
    app.stdin.write(UP)
    await until(app, f => lastLine(f) === 'weir> SHOW TABLES;')
    app.stdin.write('\x15') // Ctrl-U
    await typeLine(app, "SET 'pipeline.name' = 'x';")
    await until(app, f => f.includes("set 'pipeline.name' = 'x'"))
    expect(readFileSync(app.historyFile, 'utf8')).toBe(`"SHOW TABLES;"\n${JSON.stringify("SET 'pipeline.name' = 'x';")}\n`)
  })

  it('shows a running SELECT as a table with retractions applied, and Esc stops it', async () => {
    const app = start()
    await until(app, f => lastLine(f).startsWith('weir>'))
    // Mini-batches off: every row is its own update (-U, +U) of its key's count.
    await typeLine(app, "SET 'table.exec.mini-batch.enabled' = 'false';")
    await typeLine(app, GENERATED("'rows-per-second' = '500'"))
    await typeLine(app, 'SELECT id % 3 AS k, COUNT(*) AS c FROM g GROUP BY id % 3;')
    // Counts past 20 mean dozens of updates arrived: the table still has one row per key.
    const live = await until(app, f => f.includes("running 'repl-select-1'") && /\| +\d +\| +([2-9]\d|\d{3,}) \|/.test(f))
    const rows = live.split('\n').filter(l => /^\| +\d +\| +\d+ \|$/.test(l))
    expect(rows).toHaveLength(3)
    expect(live).toContain('rows 1–3 of 3')
    app.stdin.write(ESC)
    const f = await until(app, f => f.includes("query 'repl-select-1' stopped"))
    expect(f).toContain('3 rows in set')
    expect(lastLine(f)).toBe('weir>')
  })

  it("switches between table, changelog and tableau with 'sql-client.execution.result-mode'", async () => {
    const app = start()
    await until(app, f => lastLine(f).startsWith('weir>'))
    await typeLine(app, "SET 'table.exec.mini-batch.enabled' = 'false';")
    await typeLine(app, GENERATED("'number-of-rows' = '4'"))
    const query = 'SELECT id % 2 AS k, COUNT(*) AS c FROM g GROUP BY id % 2;'
    await typeLine(app, query)
    let f = await until(app, f => f.includes("query 'repl-select-1' finished"))
    expect(f).toMatch(/\| k \| +c \|\n\+-+\+-+\+\n\| 1 \| +2 \|\n\| 0 \| +2 \|\n\+-+\+-+\+\n2 rows in set/)
    await typeLine(app, "SET 'sql-client.execution.result-mode' = 'changelog';")
    await typeLine(app, query)
    f = await until(app, f => f.includes("query 'repl-select-2' finished"))
    const ops = f.slice(f.lastIndexOf('| op |')).split('\n').filter(l => /^\| [+-][IUD] \|/.test(l)).map(l => l.slice(2, 4))
    expect(ops).toEqual(['+I', '+I', '-U', '+U', '-U', '+U'])
    await typeLine(app, "SET 'sql-client.execution.result-mode' = 'tableau';")
    await typeLine(app, query)
    f = await until(app, f => f.includes("query 'repl-select-3' finished"))
    expect(f).toContain('Received a total of 6 rows')
    await typeLine(app, "SET 'sql-client.execution.result-mode' = 'tables';")
    f = await until(app, f => f.includes("invalid value 'tables'"))
    expect(f).toMatch(/expected one of\s+'table', 'changelog', 'tableau'/)
  })

  it('completes keywords, columns and option keys on Tab, and lists the candidates on a second Tab', async () => {
    const app = start()
    await until(app, f => lastLine(f).startsWith('weir>'))
    await typeLine(app, "CREATE TABLE bid (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen');")
    await until(app, f => f.includes("table 'bid' created"))
    app.stdin.write('SEL')
    app.stdin.write(TAB)
    app.stdin.write('*')
    await until(app, f => lastLine(f) === 'weir> SELECT *')
    app.stdin.write(CTRL_U)
    app.stdin.write('select au')
    app.stdin.write(TAB)
    app.stdin.write(', ')
    await until(app, f => lastLine(f) === 'weir> select auction,')
    app.stdin.write(CTRL_U)
    app.stdin.write("SET 'state.b")
    app.stdin.write(TAB)
    await until(app, f => lastLine(f) === "weir> SET 'state.backend")
    app.stdin.write(TAB)
    let f = await until(app, f => f.includes('state.backend.incremental'))
    const lines = f.trimEnd().split('\n')
    const prompt = lines.findLastIndex(l => l.startsWith('weir>'))
    expect(lines[prompt]).toBe("weir> SET 'state.backend")
    expect(lines.slice(prompt + 1).join(' ').split(/ +/).sort()).toEqual(['state.backend', 'state.backend.incremental',
      'state.backend.rocksdb.writebuffer.size', 'state.backend.type'])
    // The next key takes the list away; one candidate left completes with its closing quote.
    app.stdin.write('.t')
    app.stdin.write(TAB)
    f = await until(app, f => lastLine(f) === "weir> SET 'state.backend.type'")
    expect(f).not.toContain('state.backend.incremental')
  })

  it('clears the line on Ctrl-C and quits on Ctrl-D on an empty line', async () => {
    const app = start()
    await until(app, f => lastLine(f).startsWith('weir>'))
    app.stdin.write('SELECT')
    await until(app, f => lastLine(f) === 'weir> SELECT')
    app.stdin.write('\x04') // Ctrl-D deletes under the cursor on a line with text
    app.stdin.write('\x03')
    await until(app, f => lastLine(f) === 'weir>')
    app.stdin.write('\x04')
    const f = await until(app, f => !lastLine(f).startsWith('weir>'))
    expect(lastLine(f)).not.toContain('weir>')
  })
})
