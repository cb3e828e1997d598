// Expression parsing: literals, precedence and associativity, predicates, and the special function syntaxes.
import { describe, expect, it } from 'vitest'
import { parseExpression } from '../../grammar/index.js'
import { col, errorOf, id, num, showExpr, str, strip } from './helpers.js'

describe('literals', () => {
  it('keeps numbers as written', () => {
    for (const n of ['1', '1.5', '.5', '1e3', '1.5E-2', '2E+10', '10.']) {
      expect(strip(parseExpression(n))).toEqual(num(n))
    }
  })

  it('unescapes strings', () => {
    expect(strip(parseExpression("'it''s'"))).toEqual(str("it's"))
    expect(strip(parseExpression("''"))).toEqual(str(''))
    expect(strip(parseExpression("'two\nlines'"))).toEqual(str('two\nlines'))
  })

  it('parses TRUE, FALSE and NULL', () => {
    expect(strip(parseExpression('true'))).toEqual({ kind: 'Literal', type: 'boolean', text: 'TRUE' })
    expect(strip(parseExpression('FALSE'))).toEqual({ kind: 'Literal', type: 'boolean', text: 'FALSE' })
    expect(strip(parseExpression('null'))).toEqual({ kind: 'Literal', type: 'null', text: 'NULL' })
  })

  it('parses typed timestamp and date literals', () => {
    expect(strip(parseExpression("TIMESTAMP '2024-01-01 00:00:00'"))).toEqual({ kind: 'Literal', type: 'timestamp', text: '2024-01-01 00:00:00' })
    expect(strip(parseExpression("TIMESTAMP_LTZ '2024-01-01 00:00:00.123'"))).toEqual({ kind: 'Literal', type: 'timestamp_ltz',
      text: '2024-01-01 00:00:00.123' })
    expect(strip(parseExpression("date '2024-01-01'"))).toEqual({ kind: 'Literal', type: 'date', text: '2024-01-01' })
  })

  it('still reads TIMESTAMP and DATE as column names without a string after them', () => {
    expect(strip(parseExpression('timestamp'))).toEqual(col('timestamp'))
    expect(showExpr('date + 1')).toBe('(date + 1)')
    // Subqueries: IN, NOT IN, EXISTS and a scalar one, a '(' followed by a query keyword.
    expect(showExpr('a NOT IN (SELECT b FROM u)')).toBe('IN NOT(a, query)')
    expect(showExpr('NOT EXISTS (WITH w AS (SELECT 1) SELECT * FROM w) AND x > (SELECT MAX(y) FROM u)')).toBe('((NOT EXISTS(query)) AND (x > SCALAR(query)))')
    expect(showExpr('a IN ((1), 2)')).toBe('(a IN [1, 2])')
  })

  it('parses intervals, plural units, ranges and signs', () => {
    expect(strip(parseExpression("INTERVAL '5' SECOND"))).toEqual({ kind: 'IntervalLiteral', text: '5', negative: false, unit: 'SECOND' })
    expect(showExpr("INTERVAL '10' MINUTES")).toBe('INTERVAL(10 MINUTES)')
    expect(showExpr("interval '2' hour")).toBe('INTERVAL(2 HOUR)')
    expect(showExpr("INTERVAL '1' DAY")).toBe('INTERVAL(1 DAY)')
    expect(showExpr("INTERVAL '3' MONTH")).toBe('INTERVAL(3 MONTH)')
    expect(showExpr("INTERVAL '1' YEAR")).toBe('INTERVAL(1 YEAR)')
    expect(showExpr("INTERVAL '100' MILLISECOND")).toBe('INTERVAL(100 MILLISECOND)')
    expect(strip(parseExpression("INTERVAL '1:30' HOUR TO MINUTE"))).toEqual({ kind: 'IntervalLiteral', text: '1:30', negative: false, unit: 'HOUR',
      toUnit: 'MINUTE' })
    expect(showExpr("INTERVAL '-5' SECOND")).toBe('INTERVAL(-5 SECOND)')
    expect(showExpr("INTERVAL -'5' SECOND")).toBe('INTERVAL(-5 SECOND)')
    expect(showExpr("INTERVAL - '-5' SECOND")).toBe('INTERVAL(5 SECOND)')
  })
})

describe('names', () => {
  it('parses plain, qualified and backquoted column references', () => {
    expect(strip(parseExpression('a'))).toEqual(col('a'))
    expect(strip(parseExpression('t.a'))).toEqual(col('t', 'a'))
    expect(strip(parseExpression('`a b`.`c``d`'))).toEqual({ kind: 'ColumnRef', name: { parts: [id('a b', true), id('c`d', true)] } })
  })

  it('keeps the case of unquoted names', () => {
    expect(strip(parseExpression('dateTime'))).toEqual(col('dateTime'))
  })

  it('accepts non-reserved keywords as column names', () => {
    expect(showExpr('value + key + name + type + url + channel + extra + comment + time + year + first')).toBe(
      '((((((((((value + key) + name) + type) + url) + channel) + extra) + comment) + time) + year) + first)',
    )
    expect(showExpr('t.window_start < t.window_end')).toBe('(t.window_start < t.window_end)')
  })
})

describe('precedence and associativity', () => {
  const cases: [string, string][] = [
    ['a OR b AND c', '(a OR (b AND c))'],
    ['a AND b OR c AND d', '((a AND b) OR (c AND d))'],
    ['NOT a AND b', '((NOT a) AND b)'],
    ['NOT a = b', '(NOT (a = b))'],
    ['NOT NOT a', '(NOT (NOT a))'],
    ['a OR b AND NOT c = d', '(a OR (b AND (NOT (c = d))))'],
    ['a = b AND c <> d', '((a = b) AND (c <> d))'],
    ['a || b = c || d', '((a || b) = (c || d))'],
    ['a + b || c', '((a + b) || c)'],
    ['a || b + c', '(a || (b + c))'],
    ['a + b * c', '(a + (b * c))'],
    ['a * b + c', '((a * b) + c)'],
    ['a - b - c', '((a - b) - c)'],
    ['a / b * c % d', '(((a / b) * c) % d)'],
    ['a + b * c - d / e % f', '((a + (b * c)) - ((d / e) % f))'],
    ['-a * -b', '((- a) * (- b))'],
    ['- - 5', '(- (- 5))'],
    ['+a', '(+ a)'],
    ['-a + b', '((- a) + b)'],
    ['(a + b) * c', '((a + b) * c)'],
    ['a * (b + c)', '(a * (b + c))'],
    ['a = 1 = TRUE', '((a = 1) = TRUE)'],
    ['a < b OR a <= b OR a > b OR a >= b', '((((a < b) OR (a <= b)) OR (a > b)) OR (a >= b))'],
    ['a != b', '(a <> b)'],
    ['a + b IS NULL', '((a + b) IS NULL)'],
    ['a = b IS NOT NULL', '((a = b) IS NOT NULL)'],
    ['a AND b IS NULL', '(a AND (b IS NULL))'],
    ['NOT a IS NULL', '(NOT (a IS NULL))'],
    ['a IS DISTINCT FROM b + 1 AND c', '(IS_DISTINCT_FROM(a, (b + 1)) AND c)'],
    ['a + 1 IS NOT DISTINCT FROM b', 'IS_NOT_DISTINCT_FROM((a + 1), b)'],
    ['x BETWEEN 1 AND 2 AND y', '((x BETWEEN 1 AND 2) AND y)'],
    ['x BETWEEN a + 1 AND b * 2', '(x BETWEEN (a + 1) AND (b * 2))'],
    ['x NOT BETWEEN 1 AND 2 OR z', '((x NOT BETWEEN 1 AND 2) OR z)'],
    ['a + 1 BETWEEN 0 AND 5', '((a + 1) BETWEEN 0 AND 5)'],
    ["s LIKE 'a' || '%' AND t", "((s LIKE ('a' || '%')) AND t)"],
    ['a IN (1, 2) OR b NOT IN (3)', '((a IN [1, 2]) OR (b NOT IN [3]))'],
    ['a + 1 IN (2)', '((a + 1) IN [2])'],
  ]
  for (const [sql, expected] of cases) {
    it(`${sql}  ⇒  ${expected}`, () => expect(showExpr(sql)).toBe(expected))
  }
})

describe('predicates', () => {
  it('parses IS [NOT] NULL / TRUE / FALSE / UNKNOWN', () => {
    expect(strip(parseExpression('a IS NULL'))).toEqual({ kind: 'IsNull', operand: col('a'), negated: false })
    expect(strip(parseExpression('a IS NOT NULL'))).toEqual({ kind: 'IsNull', operand: col('a'), negated: true })
    expect(strip(parseExpression('a IS TRUE'))).toEqual({ kind: 'IsBool', operand: col('a'), value: true, negated: false })
    expect(strip(parseExpression('a IS NOT FALSE'))).toEqual({ kind: 'IsBool', operand: col('a'), value: false, negated: true })
    expect(showExpr('a IS UNKNOWN')).toBe('(a IS NULL)')
  })

  it('parses [NOT] BETWEEN', () => {
    expect(strip(parseExpression('x NOT BETWEEN 1 AND 10'))).toEqual({ kind: 'Between', operand: col('x'), low: num('1'), high: num('10'), negated: true })
  })

  it('parses [NOT] IN lists', () => {
    expect(strip(parseExpression("c IN ('a', 'b')"))).toEqual({ kind: 'InList', operand: col('c'), list: [str('a'), str('b')], negated: false })
    expect(showExpr('c NOT IN (1 + 1, d)')).toBe('(c NOT IN [(1 + 1), d])')
  })

  it('parses [NOT] LIKE with ESCAPE', () => {
    expect(strip(parseExpression("s LIKE 'a%'"))).toEqual({ kind: 'Like', operand: col('s'), pattern: str('a%'), negated: false })
    expect(strip(parseExpression("s NOT LIKE 'a!%%' ESCAPE '!'"))).toEqual({ kind: 'Like', operand: col('s'), pattern: str('a!%%'), escape: str('!'),
      negated: true })
  })
})

describe('CASE and CAST', () => {
  it('parses searched and simple CASE', () => {
    expect(showExpr('CASE WHEN a > 1 THEN 1 WHEN b THEN 2 ELSE 3 END')).toBe('CASE((a > 1) -> 1; b -> 2; ELSE 3)')
    expect(strip(parseExpression("CASE x WHEN 1 THEN 'a' END"))).toEqual({ kind: 'CaseExpr', operand: col('x'), whens: [{ when: num('1'), then: str('a') }] })
  })

  it('reads a simple CASE with several values per WHEN as one WHEN per value (Flink), and refuses them without an operand', () => {
    expect(showExpr("CASE x WHEN 1, 2 THEN 'a' WHEN 3 THEN 'b' END")).toBe(showExpr("CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'a' WHEN 3 THEN 'b' END"))
    const e = errorOf(() => parseExpression("CASE WHEN a, b THEN 'a' END"))
    expect(e.message).toBe('a list of values after WHEN needs a CASE with an operand')
    expect(e.span?.start.column).toBe(14)
  })

  it('parses CAST and TRY_CAST with types', () => {
    expect(strip(parseExpression('CAST(a AS BIGINT NOT NULL)'))).toEqual({
      kind: 'Cast',
      operand: col('a'),
      type: { kind: 'TypeName', name: 'BIGINT', params: [], notNull: true },
      try: false,
    })
    expect(showExpr('TRY_CAST(b AS DECIMAL(10, 2))')).toBe('TRY_CAST(b AS DECIMAL(10, 2))')
    expect(showExpr('CAST(s AS TIMESTAMP(3) WITH LOCAL TIME ZONE)')).toBe('CAST(s AS TIMESTAMP_LTZ(3))')
    expect(showExpr('CAST(s AS VARCHAR(10))')).toBe('CAST(s AS STRING(10))')
    expect(showExpr('CAST(x AS TINYINT)')).toBe('CAST(x AS TINYINT)')
    expect(showExpr('CAST(x AS DOUBLE PRECISION)')).toBe('CAST(x AS DOUBLE)')
  })
})

describe('function calls', () => {
  it('parses plain calls, COUNT(*), DISTINCT and FILTER', () => {
    expect(strip(parseExpression('COUNT(*)'))).toEqual({ kind: 'FunctionCall', name: id('COUNT'), args: [], distinct: false, star: true })
    expect(strip(parseExpression('count(DISTINCT a)'))).toEqual({ kind: 'FunctionCall', name: id('count'), args: [col('a')], distinct: true, star: false })
    expect(showExpr('SUM(x) FILTER (WHERE y > 0)')).toBe('SUM(x) FILTER (y > 0)')
    expect(showExpr('COUNT(ALL x)')).toBe('COUNT(x)')
    expect(showExpr('f()')).toBe('f()')
    expect(showExpr('COALESCE(a, b, 0)')).toBe('COALESCE(a, b, 0)')
  })

  it('parses functions named by keywords', () => {
    expect(showExpr('LEFT(s, 2) || RIGHT(s, 3)')).toBe('(LEFT(s, 2) || RIGHT(s, 3))')
    expect(showExpr("IF(a > 1, 'x', 'y')")).toBe("IF((a > 1), 'x', 'y')")
    expect(showExpr("REPLACE(s, 'a', 'b')")).toBe("REPLACE(s, 'a', 'b')")
    expect(showExpr('TRUNCATE(x, 2)')).toBe('TRUNCATE(x, 2)')
    expect(showExpr('HOUR(ts) + MINUTE(ts) + SECOND(ts) + YEAR(ts) + MONTH(ts) + DAY(ts)')).toBe(
      '(((((HOUR(ts) + MINUTE(ts)) + SECOND(ts)) + YEAR(ts)) + MONTH(ts)) + DAY(ts))',
    )
    expect(showExpr("DATE_FORMAT(ts, 'yyyy-MM-dd')")).toBe("DATE_FORMAT(ts, 'yyyy-MM-dd')")
    expect(showExpr('PROCTIME()')).toBe('PROCTIME()')
    expect(showExpr('NOW()')).toBe('NOW()')
  })

  it('turns the unit of TIMESTAMPADD / TIMESTAMPDIFF into a string literal', () => {
    expect(strip(parseExpression('TIMESTAMPADD(HOUR, 1, ts)'))).toEqual({
      kind: 'FunctionCall',
      name: id('TIMESTAMPADD'),
      args: [str('HOUR'), num('1'), col('ts')],
      distinct: false,
      star: false,
    })
    expect(showExpr('timestampdiff(day, a, b)')).toBe("timestampdiff('DAY', a, b)")
  })

  it('parses CURRENT_TIMESTAMP and friends without parentheses', () => {
    for (const fn of ['CURRENT_TIMESTAMP', 'LOCALTIMESTAMP', 'CURRENT_DATE', 'CURRENT_TIME', 'LOCALTIME']) {
      expect(strip(parseExpression(fn.toLowerCase()))).toEqual({ kind: 'FunctionCall', name: id(fn), args: [], distinct: false, star: false })
    }
  })

  it('parses EXTRACT and FLOOR / CEIL … TO unit', () => {
    expect(strip(parseExpression('EXTRACT(hour FROM ts)'))).toEqual({ kind: 'Extract', unit: 'HOUR', operand: col('ts') })
    expect(strip(parseExpression('FLOOR(ts TO MINUTE)'))).toEqual({ kind: 'TimeFloorCeil', fn: 'FLOOR', operand: col('ts'), unit: 'MINUTE' })
    expect(showExpr('CEIL(ts TO DAY)')).toBe('CEIL(ts TO DAY)')
    expect(showExpr('CEILING(ts TO HOUR)')).toBe('CEIL(ts TO HOUR)')
  })

  it('parses plain FLOOR(x) / CEIL(x) as function calls', () => {
    expect(strip(parseExpression('FLOOR(x / 2)'))).toEqual({
      kind: 'FunctionCall',
      name: id('FLOOR'),
      args: [{ kind: 'BinaryOp', op: '/', left: col('x'), right: num('2') }],
      distinct: false,
      star: false,
    })
    expect(showExpr('CEILING(x)')).toBe('CEIL(x)')
  })

  it('parses both SUBSTRING syntaxes into SUBSTRING(s, start[, length])', () => {
    expect(showExpr('SUBSTRING(s FROM 2 FOR 3)')).toBe('SUBSTRING(s, 2, 3)')
    expect(showExpr('SUBSTRING(s FROM 2)')).toBe('SUBSTRING(s, 2)')
    expect(showExpr('SUBSTRING(s, 2, 3)')).toBe('SUBSTRING(s, 2, 3)')
    expect(showExpr('SUBSTRING(s, 2)')).toBe('SUBSTRING(s, 2)')
  })

  it('parses TRIM forms into TRIM / LTRIM / RTRIM(s[, chars])', () => {
    expect(showExpr('TRIM(s)')).toBe('TRIM(s)')
    expect(showExpr("TRIM(BOTH 'x' FROM s)")).toBe("TRIM(s, 'x')")
    expect(showExpr("TRIM('x' FROM s)")).toBe("TRIM(s, 'x')")
    expect(showExpr('TRIM(LEADING FROM s)')).toBe('LTRIM(s)')
    expect(showExpr("TRIM(TRAILING 'y' FROM s)")).toBe("RTRIM(s, 'y')")
  })

  it('parses POSITION(a IN b) as POSITION(a, b)', () => {
    expect(showExpr("POSITION('a' IN s)")).toBe("POSITION('a', s)")
    expect(showExpr("POSITION('a' || b IN c) > 0")).toBe("(POSITION(('a' || b), c) > 0)")
  })
})
