// Syntax errors: what the user sees (message, line:column, help), and that every failure is a WeirError.
import { describe, expect, it } from 'vitest'
import { WeirError, renderError } from '../../common/errors.js'
import { parseExpression, parseSql } from '../../grammar/index.js'
import { errorOf, syntaxErrorOf } from './helpers.js'

describe('syntax errors', () => {
  it('reports a misspelled keyword read as an alias at the word itself', () => {
    expect(syntaxErrorOf('SELECT a FORM t')).toEqual({
      at: '1:10',
      kind: 'syntax',
      message: "unexpected 'FORM', expected FROM, ',' or end of statement",
      help: 'did you mean FROM?',
    })
  })

  it('suggests the keyword for misspellings elsewhere', () => {
    expect(syntaxErrorOf('SELECT a FROM t WHER x > 1')).toMatchObject({ at: '1:17', help: 'did you mean WHERE?' })
    expect(syntaxErrorOf('SELECT a FROM t ORDR BY a')).toMatchObject({ at: '1:17', help: 'did you mean ORDER?' })
    expect(syntaxErrorOf('CREATE TABLEE t (a INT)')).toEqual({
      at: '1:8',
      kind: 'syntax',
      message: "unexpected 'TABLEE', expected TABLE, TEMPORARY, FUNCTION, VIEW, CATALOG or DATABASE",
      help: 'did you mean TABLE?',
    })
    expect(syntaxErrorOf('SELEC a FROM t')).toEqual({ at: '1:1', kind: 'syntax', message: "unexpected 'SELEC', expected a statement",
      help: 'did you mean SELECT?' })
  })

  it('reports the position in later statements and lines', () => {
    expect(syntaxErrorOf('SELECT 1;\nSELECT a\n  FORM t')).toMatchObject({ at: '3:3', help: 'did you mean FROM?' })
  })

  it('reports an unterminated string at its opening quote', () => {
    expect(syntaxErrorOf("SELECT a FROM t\nWHERE s = 'abc")).toEqual({
      at: '2:11',
      kind: 'syntax',
      message: 'unterminated string literal',
      help: "close the string with '",
    })
  })

  it('reports unterminated names, comments and hints', () => {
    expect(syntaxErrorOf('SELECT `a FROM t')).toMatchObject({ at: '1:8', message: 'unterminated quoted name' })
    expect(syntaxErrorOf('SELECT a /* FROM t')).toMatchObject({ at: '1:10', message: 'unterminated comment', help: 'close the comment with */' })
    expect(syntaxErrorOf("SELECT /*+ OPTIONS('a'='b') a FROM t")).toMatchObject({ at: '1:8', message: 'unterminated hint' })
  })

  it('reports a missing closing parenthesis at end of input, just past the last token', () => {
    expect(syntaxErrorOf('SELECT (a + 1')).toEqual({
      at: '1:14',
      kind: 'syntax',
      message: "unexpected end of input, expected ',' or ')'",
      help: "add ')' to close the '(' at line 1, column 8",
    })
    const e = errorOf(() => parseSql('SELECT COUNT(a\n'))
    expect(e.span?.start).toMatchObject({ line: 1, column: 15, offset: 14 })
  })

  it('reports a trailing comma in a column list', () => {
    expect(syntaxErrorOf('CREATE TABLE t (a INT,)')).toEqual({
      at: '1:23',
      kind: 'syntax',
      message: "unexpected ')', expected a column name, WATERMARK, CONSTRAINT or PRIMARY KEY",
      help: "remove the trailing ','",
    })
  })

  it('reports an unknown type name with a suggestion', () => {
    expect(syntaxErrorOf('CREATE TABLE t (a STRNG)')).toEqual({ at: '1:19', kind: 'syntax', message: "unknown type 'STRNG'", help: 'did you mean STRING?' })
    expect(syntaxErrorOf('CREATE TABLE t (a WIDGET)')).toMatchObject({ at: '1:19', message: "unknown type 'WIDGET'" })
    expect(syntaxErrorOf('SELECT CAST(a AS BIGINTT)')).toMatchObject({ at: '1:18', message: "unknown type 'BIGINTT'", help: 'did you mean BIGINT?' })
  })

  it('reports Flink types Weir lacks as unsupported', () => {
    expect(syntaxErrorOf('CREATE TABLE t (a RAW)')).toMatchObject({ at: '1:19', kind: 'unsupported', message: 'type RAW is not supported' })
    expect(syntaxErrorOf('CREATE TABLE t (a BOOL)')).toMatchObject({ at: '1:19', kind: 'unsupported', message: 'type BOOL is not supported' })
    expect(syntaxErrorOf('CREATE TABLE t (a MULTISET<INT, STRING>)')).toMatchObject({ at: '1:19', message: 'type MULTISET takes one element type in <…>' })
  })

  it('checks type parameters', () => {
    expect(syntaxErrorOf('CREATE TABLE t (a INT(3))')).toMatchObject({ at: '1:23', message: 'type INT takes no parameters' })
    expect(syntaxErrorOf('CREATE TABLE t (a VARCHAR(1.5))')).toMatchObject({ at: '1:27', message: 'type parameters are whole numbers, got 1.5' })
  })

  it('explains reserved words used as names', () => {
    expect(syntaxErrorOf('SELECT a FROM order')).toEqual({
      at: '1:15',
      kind: 'syntax',
      message: "unexpected 'order', expected a table name, TABLE or '('",
      help: 'ORDER is a reserved word; write `order` to use it as a name',
    })
    expect(syntaxErrorOf('CREATE TABLE t (from INT)')).toMatchObject({ at: '1:17', help: 'FROM is a reserved word; write `from` to use it as a name' })
  })

  it('lists what may follow in user terms', () => {
    expect(syntaxErrorOf('SELECT a FROM t WHERE')).toMatchObject({ at: '1:22', message: 'unexpected end of input, expected an expression' })
    expect(syntaxErrorOf('SELECT a FROM t GROUP a')).toMatchObject({ at: '1:23', message: "unexpected 'a', expected BY" })
    expect(syntaxErrorOf('SELECT a FROM t WHERE x BETWEEN 1 OR 2')).toMatchObject({ at: '1:35', message: "unexpected 'OR', expected AND" })
    expect(syntaxErrorOf('SELECT CAST(a AS) FROM t')).toMatchObject({ at: '1:17', message: "unexpected ')', expected a type" })
    expect(syntaxErrorOf('INSERT t SELECT 1')).toMatchObject({ at: '1:8', message: "unexpected 't', expected INTO or OVERWRITE" })
    expect(syntaxErrorOf('SELECT 1 2')).toMatchObject({ at: '1:10', message: "unexpected '2', expected FROM, ',' or end of statement" })
    expect(syntaxErrorOf('SELECT a FROM t x y')).toMatchObject({ at: '1:19',
      message: "unexpected 'y', expected JOIN, WHERE, GROUP BY, HAVING, WINDOW, ',' or end of statement" })
    expect(syntaxErrorOf('SELECT a FROM t;\nSELECT FROM u')).toMatchObject({ at: '2:8' })
  })

  it('describes hint and statement positions', () => {
    expect(syntaxErrorOf("SELECT /*+ OPTIONS('a' = ) */ 1")).toMatchObject({ at: '1:26', message: "unexpected ')', expected a value, a string or a number" })
    expect(syntaxErrorOf('SELECT a /*+ X */ FROM t')).toMatchObject({ at: '1:10', message: "unexpected hint '/*+', expected FROM, ',' or end of statement" })
    expect(syntaxErrorOf('EXPLAIN')).toMatchObject({ at: '1:8',
      message: 'unexpected end of input, expected a query, ESTIMATED_COST, CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN, PLAN, INSERT or STATEMENT' })
    expect(syntaxErrorOf('SELECT a FROM t JOIN u USING (a)')).toMatchObject({ at: '1:24',
      message: expect.stringContaining("unexpected 'USING', expected FOR, ON, JOIN") })
  })

  it('helps with WITH options that are not quoted', () => {
    expect(syntaxErrorOf("CREATE TABLE t (a INT) WITH (connector = 'kafka')")).toMatchObject({
      at: '1:30',
      help: "option keys and values are quoted strings, e.g. 'connector' = 'datagen'",
    })
  })

  it('says what is unsupported', () => {
    expect(syntaxErrorOf('SELECT x OVER (PARTITION BY y) FROM t')).toMatchObject({ at: '1:10', help: expect.stringContaining('OVER follows a function call') })
    expect(syntaxErrorOf('SELECT a FROM t WHERE a = SELECT b FROM u')).toMatchObject({ at: '1:27',
      help: 'a subquery in an expression goes in parentheses: (SELECT …)' })
    expect(syntaxErrorOf('EXPLAIN JSON_EXECUTION_PLAN, COST SELECT 1')).toMatchObject({ at: '1:30', kind: 'unsupported',
      message: 'EXPLAIN COST is not supported' })
  })

  it('reports bad characters from the lexer with a position', () => {
    expect(syntaxErrorOf('SELECT # FROM t')).toMatchObject({ at: '1:8', message: "unexpected character '#'" })
    expect(syntaxErrorOf('SELECT "a" FROM t')).toMatchObject({ at: '1:8', message: `unexpected character '"'`, help: expect.stringContaining('backquotes') })
    expect(syntaxErrorOf('SELECT a == b')).toMatchObject({ at: '1:10', message: "unexpected '=='" })
    expect(syntaxErrorOf('SELECT ``')).toMatchObject({ at: '1:8', message: 'empty quoted name' })
    expect(syntaxErrorOf('SELECT 1a FROM t')).toMatchObject({ at: '1:8', message: "invalid number '1a'" })
    expect(syntaxErrorOf('SELECT a | b')).toMatchObject({ at: '1:10', help: "concatenate strings with '||'" })
  })

  it('checks window TVFs, units and table definitions', () => {
    expect(syntaxErrorOf("SELECT * FROM TABLE(TUMBEL(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))")).toMatchObject({
      at: '1:21',
      message: "unknown window function 'TUMBEL'",
      help: 'did you mean TUMBLE?',
    })
    expect(syntaxErrorOf("SELECT * FROM TABLE(TUMBLE(TABLE t, INTERVAL '1' MINUTE))")).toMatchObject({
      message: 'TUMBLE needs a DESCRIPTOR(time column) argument',
    })
    expect(syntaxErrorOf("SELECT INTERVAL '1' FORTNIGHT")).toMatchObject({ at: '1:21', message: "unknown interval unit 'FORTNIGHT'" })
    expect(syntaxErrorOf("SELECT INTERVAL '1' SECCOND")).toMatchObject({ help: 'did you mean SECOND?' })
    expect(syntaxErrorOf('CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)')).toMatchObject({
      at: '1:54',
      message: 'a table has at most one PRIMARY KEY',
    })
    expect(syntaxErrorOf("CREATE TABLE t (a INT) WITH ('k' = 'v', 'k' = 'w')")).toMatchObject({ at: '1:41', message: "option 'k' is given twice" })
  })

  it('renders with a caret under the offending token', () => {
    const sql = 'SELECT a FORM t'
    expect(renderError(errorOf(() => parseSql(sql)), sql)).toBe([
      "error: unexpected 'FORM', expected FROM, ',' or end of statement",
      ' --> <sql>:1:10',
      '  |',
      '1 | SELECT a FORM t',
      '  |          ^^^^',
      'help: did you mean FROM?',
    ].join('\n'))
  })

  it('reports errors from parseExpression in terms of end of input', () => {
    const e = errorOf(() => parseExpression('a +'))
    expect(e.message).toBe('unexpected end of input, expected an expression')
    expect(errorOf(() => parseExpression('a b')).message).toBe("unexpected 'b', expected end of input")
    expect(errorOf(() => parseExpression('')).span?.start).toMatchObject({ line: 1, column: 1 })
  })

  it('throws only WeirErrors, even for hostile input', () => {
    const inputs = [
      '(',
      ')',
      ';(',
      'SELECT',
      'SELECT *',
      'SELECT * FROM',
      'CREATE',
      'CREATE TABLE',
      'CREATE TABLE t',
      'CREATE TABLE t (',
      'INSERT INTO',
      'WITH',
      'WITH a AS',
      'VALUES',
      'VALUES ()',
      'EXPLAIN',
      'SET =',
      "SET 'a' =",
      'RESET =',
      'SHOW',
      'DESCRIBE',
      "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(a, b), INTERVAL '1' SECOND))",
      'SELECT CASE END',
      'SELECT a.* AS x FROM t',
      'SELECT t.* + 1 FROM t',
      'SELECT db.f(x)',
      "SELECT /*+ A('k' = 'v', 'x') */ 1",
      'SELECT 1 FROM t /*+',
      '*/',
      '/*+ */',
      'SELECT ' + '('.repeat(5000) + '1' + ')'.repeat(5000),
      "SELECT TIMESTAMPADD('x', 1, ts)",
      'SET a b = c',
      '\u0000',
      'SELECT a FROM t WHERE a = ',
      'DROP',
      'DROP TABLE IF',
      'SELECT a FROM t LEFT',
      'SELECT a FROM t JOIN',
    ]
    for (const sql of inputs) {
      try {
        parseSql(sql)
      } catch (e) {
        expect(e, sql).toBeInstanceOf(WeirError)
        expect((e as WeirError).kind, sql).not.toBe('internal')
      }
    }
  })
})
