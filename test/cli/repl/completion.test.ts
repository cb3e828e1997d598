// Tab completion: what the word before the cursor becomes, from the names a real session knows —
// keywords from the grammar, functions as SHOW FUNCTIONS lists them, option keys after SET, the
// session's tables, views and columns, each where it fits; and how a long list is laid out.
import { beforeAll, describe, expect, it } from 'vitest'
import { complete, listLines } from '../../../cli/repl/completion.js'
import { completionNames, Session, type CompletionNames } from '../../../index.js'

let names: CompletionNames

beforeAll(async () => {
  const session = new Session()
  await session.executeSql(`
    CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3)) WITH ('connector' = 'nexmark');
    CREATE TABLE person (id BIGINT, name STRING, city STRING, \`key\` STRING) WITH ('connector' = 'datagen');
    CREATE VIEW expensive AS SELECT auction, price * 2 AS doubled FROM bid WHERE price > 100;
  `)
  names = completionNames(session)
})

/** The text after Tab at the '|' of `at` (the cursor), and the candidates. */
function tab(at: string): { text: string; candidates: readonly string[] } {
  const cursor = at.indexOf('|')
  const text = at.replace('|', '')
  const c = complete(text, cursor, names)
  return { text: text.slice(0, c.from) + c.insert + '|' + text.slice(cursor), candidates: c.candidates }
}

describe('completion', () => {
  it('completes a keyword with a space after it, in the case it was typed in', () => {
    expect(tab('SEL|')).toEqual({ text: 'SELECT |', candidates: ['SELECT'] })
    expect(tab('sel|').text).toBe('select |')
    expect(tab('Sel|').text).toBe('SELECT |')
    expect(tab('SELECT * FROM bid GROUP BY auction HAV|').text).toBe('SELECT * FROM bid GROUP BY auction HAVING |')
  })

  it('takes its keywords from the grammar, type names and interval units included', () => {
    expect(names.keywords).toEqual(expect.arrayContaining(['SELECT', 'WATERMARK', 'DESCRIBE', 'BIGINT', 'VARCHAR', 'MINUTE']))
    expect(tab("SELECT INTERVAL '1' MINU|").candidates).toEqual(['MINUTE', 'MINUTES'])
  })

  it('completes the common prefix of several candidates, and lists them all', () => {
    const r = tab('SELECT * FROM bid WHERE price > 1 OR|')
    expect(r.candidates).toEqual(['OR', 'ORDER'])
    expect(r.text).toBe('SELECT * FROM bid WHERE price > 1 OR|')
    expect(tab('SELECT CURRENT_T|').text).toBe('SELECT CURRENT_TIME|')
    expect(tab('SELECT CURRENT_T|').candidates).toEqual(['CURRENT_TIME', 'CURRENT_TIMESTAMP'])
  })

  it('offers nothing for a word nothing starts with', () => {
    expect(tab('SELECT zzz|')).toEqual({ text: 'SELECT zzz|', candidates: [] })
  })

  it('completes functions as SHOW FUNCTIONS lists them, with their parenthesis, and never internal names', () => {
    expect(tab('SELECT UPP|').text).toBe('SELECT UPPER(|')
    expect(tab('SELECT upp|').text).toBe('SELECT upper(|')
    expect(tab('SELECT DATE_F|').text).toBe('SELECT DATE_FORMAT(|')
    expect(names.functions).toEqual(expect.arrayContaining(['COUNT', 'TUMBLE', 'DATE_FORMAT', 'CEIL', 'FLOOR']))
    expect(names.functions).not.toContain('CEIL_TO')
    expect(names.functions).not.toContain('FLOOR_TO')
    expect(tab('SELECT CEIL|').candidates).toEqual(['CEIL', 'CEILING'])
  })

  it('completes a column of any table when the statement reads none yet', () => {
    expect(tab('SELECT au|').text).toBe('SELECT auction|')
    expect(tab('SELECT ci|').text).toBe('SELECT city|')
  })

  it('completes the columns of the tables the statement reads, by name or alias', () => {
    // `name` is person's only: with FROM bid it is not offered, `nation`-like keywords may be.
    expect(tab('SELECT na| FROM bid').candidates).not.toContain('name')
    expect(tab('SELECT na| FROM person').candidates).toContain('name')
    expect(tab('SELECT b.pr| FROM bid AS b').text).toBe('SELECT b.price| FROM bid AS b')
    expect(tab('SELECT p.| FROM bid b JOIN person p ON b.bidder = p.id').candidates).toEqual(['city', 'id', 'key', 'name'])
    expect(tab('SELECT bid.da| FROM bid').text).toBe('SELECT bid.dateTime| FROM bid')
    expect(tab('SELECT x FROM bid, person WHERE na|').text).toBe('SELECT x FROM bid, person WHERE name|')
    expect(tab('SELECT e.d| FROM expensive e').text).toBe('SELECT e.doubled| FROM expensive e')
    expect(tab('SELECT nope.| FROM bid').candidates).toEqual([])
  })

  it('completes a table or view name after FROM, JOIN, INTO and DESCRIBE, with a space', () => {
    expect(tab('SELECT * FROM bi|').text).toBe('SELECT * FROM bid |')
    expect(tab('SELECT * FROM bid JOIN pe|').text).toBe('SELECT * FROM bid JOIN person |')
    expect(tab('INSERT INTO ex|').text).toBe('INSERT INTO expensive |')
    expect(tab('DESCRIBE |').candidates).toEqual(['bid', 'expensive', 'person'])
    expect(tab('CREATE TABLE bi|').candidates).toEqual([])
  })

  it('prefers a name the session defined to a keyword spelled the same', () => {
    // KEY is a keyword too: the column is completed as a name, with nothing after it.
    expect(tab('SELECT ke| FROM person')).toEqual({ text: 'SELECT key| FROM person', candidates: ['key'] })
  })

  it('completes option keys after SET and RESET, quoted', () => {
    expect(tab("SET 'state.b|").candidates).toEqual(['state.backend', 'state.backend.incremental', 'state.backend.rocksdb.writebuffer.size',
      'state.backend.type'])
    expect(tab("SET 'state.b|").text).toBe("SET 'state.backend|")
    expect(tab("SET 'parall|").text).toBe("SET 'parallelism.default' |")
    expect(tab("SET 'sql-client.execution.r|").text).toBe("SET 'sql-client.execution.result-mode' |")
    expect(tab('SET parall|').text).toBe("SET 'parallelism.default' |")
    expect(tab("RESET 'pipeline.n|';").text).toBe("RESET 'pipeline.name|';")
    expect(tab('SET |').candidates).toContain('execution.checkpointing.interval')
    expect(tab("SET 'nothing.like.it|").candidates).toEqual([])
    // Past the key: the value is not an option key.
    expect(tab("SET 'state.backend' = 'he|").candidates).toEqual([])
    expect(tab('RES|').text).toBe('RESET |')
  })

  it('looks only at the statement under the cursor', () => {
    expect(tab("SELECT * FROM person; SET 'parall|").text).toBe("SELECT * FROM person; SET 'parallelism.default' |")
    expect(tab('SELECT na| FROM bid; SELECT * FROM person;').candidates).not.toContain('name')
  })

  it('offers nothing inside a string or a comment', () => {
    expect(tab("SELECT * FROM bid WHERE 'SEL|").candidates).toEqual([])
    expect(tab('SELECT 1 -- SEL|').candidates).toEqual([])
  })
})

describe('the list of candidates', () => {
  it('lays the candidates out down columns that fit the width', () => {
    expect(listLines(['a', 'bb', 'ccc', 'dddd', 'e'], 14, 10)).toEqual(['a     dddd', 'bb    e', 'ccc'])
  })

  it('shows as many as fit the lines it may take, and says how many more there are', () => {
    const many = Array.from({ length: 100 }, (_, i) => `name_${String(i).padStart(3, '0')}`)
    const lines = listLines(many, 40, 4)
    expect(lines).toHaveLength(4)
    expect(lines[0]).toBe('name_000  name_003  name_006  name_009')
    expect(lines[3]).toBe('… and 88 more')
    expect(lines.every(l => l.length <= 40)).toBe(true)
  })
})
