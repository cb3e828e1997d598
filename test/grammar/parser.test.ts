// Statement and query parsing: every statement kind, query form and FROM item, compared as span-free AST shapes.
import { describe, expect, it } from 'vitest'
import { parseSql } from '../../grammar/index.js'
import type { CreateTable, Join, Select, WindowTvf } from '../../grammar/ast.js'
import { col, id, num, one, queryOf, show, str, strip } from './helpers.js'
import { Q5_PUBLISHED } from '../../bench/nexmark/join-queries.js'

function selectOf(sql: string): Select {
  const q = queryOf(sql)
  if (q.kind !== 'Select') throw new Error(`expected a Select, got ${q.kind}`)
  return q
}

describe('scripts', () => {
  it('splits statements on ; and ignores empty ones', () => {
    const statements = parseSql(';; SELECT 1 ;\n;  SHOW TABLES; -- done\n')
    expect(statements.map(s => s.kind)).toEqual(['QueryStatement', 'ShowTables'])
  })

  it('accepts an empty script and a script of comments only', () => {
    expect(parseSql('')).toEqual([])
    expect(parseSql('  -- nothing\n /* here */ ')).toEqual([])
  })

  it('does not need a trailing semicolon', () => {
    expect(parseSql('SELECT 1; SELECT 2')).toHaveLength(2)
  })

  it('treats keywords case-insensitively', () => {
    expect(strip(parseSql('select A from T where B'))).toEqual(strip(parseSql('SELECT A FROM T WHERE B')))
  })
})

describe('CREATE TABLE', () => {
  const ddl = `
    CREATE TEMPORARY TABLE IF NOT EXISTS cat.db.orders (
      id BIGINT NOT NULL COMMENT 'the id',
      \`user name\` VARCHAR(20),
      price DECIMAL(10, 2),
      ratio DOUBLE PRECISION,
      ts TIMESTAMP(3),
      ltz TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL,
      pt AS PROCTIME(),
      ingest TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
      part INT METADATA,
      WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
      CONSTRAINT pk PRIMARY KEY (id, price) NOT ENFORCED
    ) COMMENT 'orders' WITH ('connector' = 'kafka', 'topic' = 'it''s')`

  it('parses columns, computed and metadata columns, watermark, key and options', () => {
    const t = one(ddl) as CreateTable
    expect(strip(t)).toEqual({
      kind: 'CreateTable',
      name: { parts: [id('cat'), id('db'), id('orders')] },
      ifNotExists: true,
      temporary: true,
      columns: [
        { kind: 'PhysicalColumn', name: id('id'), type: { kind: 'TypeName', name: 'BIGINT', params: [], notNull: true }, comment: 'the id' },
        { kind: 'PhysicalColumn', name: id('user name', true), type: { kind: 'TypeName', name: 'STRING', params: [20], notNull: false } },
        { kind: 'PhysicalColumn', name: id('price'), type: { kind: 'TypeName', name: 'DECIMAL', params: [10, 2], notNull: false } },
        { kind: 'PhysicalColumn', name: id('ratio'), type: { kind: 'TypeName', name: 'DOUBLE', params: [], notNull: false } },
        { kind: 'PhysicalColumn', name: id('ts'), type: { kind: 'TypeName', name: 'TIMESTAMP', params: [3], notNull: false } },
        { kind: 'PhysicalColumn', name: id('ltz'), type: { kind: 'TypeName', name: 'TIMESTAMP_LTZ', params: [3], notNull: true } },
        {
          kind: 'ComputedColumn',
          name: id('pt'),
          expr: { kind: 'FunctionCall', name: id('PROCTIME'), args: [], distinct: false, star: false },
          exprText: 'PROCTIME()',
        },
        {
          kind: 'MetadataColumn',
          name: id('ingest'),
          type: { kind: 'TypeName', name: 'TIMESTAMP_LTZ', params: [3], notNull: false },
          from: 'timestamp',
          virtual: true,
        },
        { kind: 'MetadataColumn', name: id('part'), type: { kind: 'TypeName', name: 'INT', params: [], notNull: false }, virtual: false },
      ],
      watermark: {
        column: id('ts'),
        expr: { kind: 'BinaryOp', op: '-', left: col('ts'), right: { kind: 'IntervalLiteral', text: '5', negative: false, unit: 'SECOND' } },
        exprText: "ts - INTERVAL '5' SECOND",
      },
      primaryKey: { name: id('pk'), columns: [id('id'), id('price')], enforced: false },
      options: [{ key: 'connector', value: 'kafka' }, { key: 'topic', value: "it's" }],
      comment: 'orders',
    })
  })

  it('keeps option key and value spans', () => {
    const t = one("CREATE TABLE t (a INT) WITH (\n  'connector' = 'datagen')") as CreateTable
    expect(t.options[0]!.keySpan.start).toMatchObject({ line: 2, column: 3 })
    expect(t.options[0]!.valueSpan.start).toMatchObject({ line: 2, column: 17 })
  })

  it('accepts a column-level primary key and no WITH clause', () => {
    const t = one('CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, v STRING)') as CreateTable
    expect(strip(t.primaryKey)).toEqual({ columns: [id('id')], enforced: false })
    expect(t.options).toEqual([])
    expect(t.temporary).toBe(false)
    expect(t.ifNotExists).toBe(false)
  })

  it('marks a key without NOT ENFORCED as enforced (the planner rejects it)', () => {
    const t = one('CREATE TABLE t (id INT, PRIMARY KEY (id))') as CreateTable
    expect(t.primaryKey?.enforced).toBe(true)
  })

  it('normalizes type synonyms', () => {
    const t = one(`CREATE TABLE t (
      a TINYINT, b SMALLINT, c INTEGER, d INT, e BIGINT, f FLOAT, g REAL, h DOUBLE,
      i DEC(5), j NUMERIC(7, 3), k STRING, l VARCHAR, m CHAR(3), n BOOLEAN, o DATE,
      p TIMESTAMP, q TIMESTAMP_LTZ(6), r TIMESTAMP WITHOUT TIME ZONE, s BIGINT NULL
    )`) as CreateTable
    const types = t.columns.map(c => (c.kind === 'ComputedColumn' ? '' : `${c.type.name}${c.type.params.length ? `(${c.type.params.join(',')})` : ''}`))
    expect(types).toEqual([
      'TINYINT',
      'SMALLINT',
      'INT',
      'INT',
      'BIGINT',
      'FLOAT',
      'FLOAT',
      'DOUBLE',
      'DECIMAL(5)',
      'DECIMAL(7,3)',
      'STRING',
      'STRING',
      'STRING(3)',
      'BOOLEAN',
      'DATE',
      'TIMESTAMP',
      'TIMESTAMP_LTZ(6)',
      'TIMESTAMP',
      'BIGINT',
    ])
  })

  it('accepts keywords as column names (Nexmark and common schemas)', () => {
    const names = ['date', 'value', 'name', 'type', 'url', 'channel', 'extra', 'window_start', 'window_end', 'window_time', 'timestamp', 'comment', 'key',
      'time', 'year', 'dateTime', 'date_time', 'price', 'auction', 'first', 'last', 'zone', 'local']
    const t = one(`CREATE TABLE t (${names.map(n => `${n} STRING`).join(', ')})`) as CreateTable
    expect(t.columns.map(c => c.name.value)).toEqual(names)
  })
})

describe('CREATE VIEW, DROP, INSERT', () => {
  it('parses CREATE TEMPORARY VIEW IF NOT EXISTS with columns', () => {
    expect(strip(one('CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) AS SELECT a, b FROM t'))).toMatchObject({
      kind: 'CreateView',
      name: { parts: [id('v')] },
      temporary: true,
      ifNotExists: true,
      columns: [id('x'), id('y')],
      query: { kind: 'Select', items: [{ kind: 'ExprItem', expr: col('a') }, { kind: 'ExprItem', expr: col('b') }] },
    })
  })

  it('parses a plain CREATE VIEW', () => {
    const v = strip(one('CREATE VIEW v AS VALUES (1)'))
    expect(v).toMatchObject({ kind: 'CreateView', temporary: false, ifNotExists: false, query: { kind: 'ValuesQuery' } })
    expect(v).not.toHaveProperty('columns')
  })

  it('parses DROP TABLE and DROP TEMPORARY VIEW IF EXISTS', () => {
    expect(strip(parseSql('DROP TABLE db.t; DROP TEMPORARY VIEW IF EXISTS v'))).toEqual([
      { kind: 'DropObject', object: 'TABLE', temporary: false, name: { parts: [id('db'), id('t')] }, ifExists: false, cascade: false },
      { kind: 'DropObject', object: 'VIEW', temporary: true, name: { parts: [id('v')] }, ifExists: true, cascade: false },
    ])
  })

  it('parses INSERT INTO with a column list and INSERT OVERWRITE', () => {
    expect(strip(one('INSERT INTO sink (a, b) SELECT x, y FROM src'))).toMatchObject({
      kind: 'Insert',
      table: { parts: [id('sink')] },
      overwrite: false,
      columns: [id('a'), id('b')],
      query: { kind: 'Select' },
    })
    const ow = strip(one('INSERT OVERWRITE sink (SELECT 1)'))
    expect(ow).toMatchObject({ kind: 'Insert', overwrite: true, query: { kind: 'Select' } })
    expect(ow).not.toHaveProperty('columns')
  })

  it('accepts INSERT INTO TABLE name', () => {
    expect(one('INSERT INTO TABLE sink VALUES (1)')).toMatchObject({ kind: 'Insert', table: { parts: [{ value: 'sink' }] } })
  })
})

describe('SET, RESET, EXPLAIN, SHOW, DESCRIBE', () => {
  it('parses SET with quoted and unquoted keys', () => {
    expect(strip(parseSql(`SET; SET 'a.b' = 'c'; SET table.exec.state.ttl = '1 h'; SET pipeline.max-parallelism = 4; SET x = true`))).toEqual([
      { kind: 'SetOption' },
      { kind: 'SetOption', key: 'a.b', value: 'c' },
      { kind: 'SetOption', key: 'table.exec.state.ttl', value: '1 h' },
      { kind: 'SetOption', key: 'pipeline.max-parallelism', value: '4' },
      { kind: 'SetOption', key: 'x', value: 'true' },
    ])
  })

  it('parses RESET with and without a key', () => {
    expect(strip(parseSql(`RESET; RESET 'k'; RESET table.exec.mini-batch.enabled`))).toEqual([
      { kind: 'ResetOption' },
      { kind: 'ResetOption', key: 'k' },
      { kind: 'ResetOption', key: 'table.exec.mini-batch.enabled' },
    ])
  })

  it('parses EXPLAIN forms', () => {
    const [a, b, c, d] = parseSql(
      'EXPLAIN SELECT 1; EXPLAIN CHANGELOG_MODE SELECT 1; EXPLAIN PLAN FOR INSERT INTO t SELECT 1; explain changelog_mode insert into t select 1',
    )
    expect(strip(a)).toMatchObject({ kind: 'Explain', changelogMode: false, statement: { kind: 'QueryStatement', query: { kind: 'Select' } } })
    expect(strip(b)).toMatchObject({ kind: 'Explain', changelogMode: true, statement: { kind: 'QueryStatement' } })
    expect(strip(c)).toMatchObject({ kind: 'Explain', changelogMode: false, statement: { kind: 'Insert', table: { parts: [id('t')] } } })
    expect(strip(d)).toMatchObject({ kind: 'Explain', changelogMode: true, statement: { kind: 'Insert' } })
  })

  it('parses SHOW TABLES / VIEWS / FUNCTIONS and DESCRIBE / DESC', () => {
    expect(strip(parseSql('SHOW TABLES; show views; SHOW FUNCTIONS; DESCRIBE t; DESC db.t'))).toEqual([
      { kind: 'ShowTables', what: 'TABLES' },
      { kind: 'ShowTables', what: 'VIEWS' },
      { kind: 'ShowTables', what: 'FUNCTIONS' },
      { kind: 'Describe', name: { parts: [id('t')] } },
      { kind: 'Describe', name: { parts: [id('db'), id('t')] } },
    ])
  })

  it("parses SHOW JOBS and STOP JOB 'id' [WITH SAVEPOINT], the id's span on the literal", () => {
    const [show, stop, savepoint] = parseSql("SHOW JOBS; STOP JOB 'a1b2c3d4'; stop job 'x' with savepoint")
    expect(strip(show)).toEqual({ kind: 'ShowJobs' })
    expect(strip(stop)).toMatchObject({ kind: 'StopJob', id: 'a1b2c3d4', withSavepoint: false })
    expect(strip(savepoint)).toMatchObject({ kind: 'StopJob', id: 'x', withSavepoint: true })
    expect(stop!.kind === 'StopJob' && stop.idSpan.start.column).toBe(21)
    // The words stay names elsewhere.
    expect(parseSql('SELECT jobs, job, stop, savepoint FROM t')[0]!.kind).toBe('QueryStatement')
  })
})

describe('SELECT', () => {
  it('parses select items: *, t.*, expressions with and without AS', () => {
    const s = selectOf('SELECT *, t.*, a, b AS x, c y, a + 1 `z z` FROM t')
    expect(strip(s.items)).toEqual([
      { kind: 'StarItem' },
      { kind: 'StarItem', qualifier: id('t') },
      { kind: 'ExprItem', expr: col('a') },
      { kind: 'ExprItem', expr: col('b'), alias: id('x') },
      { kind: 'ExprItem', expr: col('c'), alias: id('y') },
      { kind: 'ExprItem', expr: { kind: 'BinaryOp', op: '+', left: col('a'), right: num('1') }, alias: id('z z', true) },
    ])
  })

  it('parses DISTINCT / ALL, WHERE, GROUP BY and HAVING', () => {
    const s = selectOf('SELECT DISTINCT a, COUNT(*) FROM t WHERE b > 1 GROUP BY a, c HAVING COUNT(*) > 2')
    expect(s.distinct).toBe(true)
    expect(show(s.where!)).toBe('(b > 1)')
    expect(s.groupBy!.map(show)).toEqual(['a', 'c'])
    expect(show(s.having!)).toBe('(COUNT(*) > 2)')
    expect(selectOf('SELECT ALL a FROM t').distinct).toBe(false)
  })

  it('allows SELECT without FROM', () => {
    const s = selectOf("SELECT 1, 'a'")
    expect(s.from).toBeUndefined()
    expect(strip(s.items.map(i => (i.kind === 'ExprItem' ? i.expr : undefined)))).toEqual([num('1'), str('a')])
  })

  it('attaches hints after SELECT', () => {
    const s = selectOf("SELECT /*+ STATE_TTL('o' = '1d', 'p' = '2h'), BROADCAST(a, b) */ a FROM t")
    expect(strip(s.hints)).toEqual([
      { name: id('STATE_TTL'), options: [['o', '1d'], ['p', '2h']], values: [] },
      { name: id('BROADCAST'), options: [], values: ['a', 'b'] },
    ])
  })

  it('parses hints with plain string values and without arguments', () => {
    const s = selectOf("SELECT /*+ LOOKUP('D') NO_MINIBATCH */ 1")
    expect(strip(s.hints)).toEqual([
      { name: id('LOOKUP'), options: [], values: ['D'] },
      { name: id('NO_MINIBATCH'), options: [], values: [] },
    ])
  })
})

describe('set operations, WITH, ORDER BY, VALUES', () => {
  it('makes UNION / EXCEPT left-associative with INTERSECT binding tighter', () => {
    const q = queryOf('SELECT 1 UNION ALL SELECT 2 INTERSECT SELECT 3 EXCEPT SELECT 4')
    const shape = (x: typeof q): string =>
      x.kind === 'SetOperation' ?
        `(${shape(x.left)} ${x.op}${x.all ? ' ALL' : ''} ${shape(x.right)})`
        : x.kind === 'Select' && x.items[0]!.kind === 'ExprItem'
        ? show(x.items[0]!.expr)
        : x.kind
    expect(shape(q)).toBe('((1 UNION ALL (2 INTERSECT 3)) EXCEPT 4)')
  })

  it('parses UNION DISTINCT and parenthesized operands', () => {
    const q = queryOf('(SELECT a FROM t) UNION DISTINCT (SELECT b FROM u)')
    expect(q).toMatchObject({ kind: 'SetOperation', op: 'UNION', all: false, left: { kind: 'Select' }, right: { kind: 'Select' } })
  })

  it('parses WITH … AS with column lists', () => {
    const q = queryOf('WITH a (x) AS (SELECT 1), b AS (SELECT * FROM a) SELECT x FROM b')
    expect(strip(q)).toMatchObject({
      kind: 'WithQuery',
      ctes: [
        { name: id('a'), columns: [id('x')], query: { kind: 'Select' } },
        { name: id('b'), query: { kind: 'Select', from: { kind: 'TableRef', name: { parts: [id('a')] } } } },
      ],
      body: { kind: 'Select', items: [{ kind: 'ExprItem', expr: col('x') }] },
    })
  })

  it('wraps ORDER BY / LIMIT in OrderedQuery, inside WITH', () => {
    const q = queryOf('WITH c AS (SELECT 1) SELECT a FROM t ORDER BY a DESC NULLS LAST, b ASC NULLS FIRST, c LIMIT 10')
    expect(strip(q)).toMatchObject({
      kind: 'WithQuery',
      body: {
        kind: 'OrderedQuery',
        query: { kind: 'Select' },
        orderBy: [
          { expr: col('a'), descending: true, nullsFirst: false },
          { expr: col('b'), descending: false, nullsFirst: true },
          { expr: col('c'), descending: false },
        ],
        limit: num('10'),
      },
    })
  })

  it('applies ORDER BY to a whole UNION', () => {
    expect(queryOf('SELECT a FROM t UNION SELECT a FROM u ORDER BY a')).toMatchObject({ kind: 'OrderedQuery', query: { kind: 'SetOperation' } })
  })

  it('parses LIMIT without ORDER BY and FETCH FIRST … ROWS ONLY', () => {
    expect(strip(queryOf('SELECT a FROM t LIMIT 5'))).toMatchObject({ kind: 'OrderedQuery', orderBy: [], limit: num('5') })
    expect(strip(queryOf('SELECT a FROM t ORDER BY a FETCH FIRST 3 ROWS ONLY'))).toMatchObject({ kind: 'OrderedQuery', limit: num('3') })
    expect(strip(queryOf('SELECT a FROM t FETCH NEXT 1 ROW ONLY'))).toMatchObject({ kind: 'OrderedQuery', limit: num('1') })
  })

  it('parses VALUES rows', () => {
    expect(strip(queryOf("VALUES (1, 'a'), (2, NULL)"))).toEqual({
      kind: 'ValuesQuery',
      rows: [[num('1'), str('a')], [num('2'), { kind: 'Literal', type: 'null', text: 'NULL' }]],
    })
  })

  it('parses a parenthesized query statement', () => {
    expect(queryOf('((SELECT 1))')).toMatchObject({ kind: 'Select' })
  })
})

describe('FROM items', () => {
  it('parses a table with alias and OPTIONS hints before or after the alias', () => {
    const a = selectOf("SELECT * FROM db.t /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */ AS x")
    expect(strip(a.from)).toEqual({
      kind: 'TableRef',
      name: { parts: [id('db'), id('t')] },
      alias: id('x'),
      hints: [{ name: id('OPTIONS'), options: [['scan.startup.mode', 'earliest-offset']], values: [] }],
    })
    const b = selectOf("SELECT * FROM t x /*+ OPTIONS('k'='v') */")
    expect(strip(b.from)).toMatchObject({ alias: id('x'), hints: [{ name: id('OPTIONS'), options: [['k', 'v']] }] })
  })

  it('parses subqueries with and without AS', () => {
    expect(strip(selectOf('SELECT * FROM (SELECT 1) AS s').from)).toMatchObject({ kind: 'SubqueryRef', query: { kind: 'Select' }, alias: id('s') })
    expect(strip(selectOf('SELECT * FROM (SELECT 1) s').from)).toMatchObject({ kind: 'SubqueryRef', alias: id('s') })
    expect(strip(selectOf('SELECT * FROM (SELECT 1)').from)).not.toHaveProperty('alias')
  })

  it('parses column aliases after a subquery alias', () => {
    expect(strip(selectOf("SELECT x FROM (VALUES (1, 'a'), (2, 'b')) AS t(x, s)").from)).toMatchObject({
      kind: 'SubqueryRef',
      query: { kind: 'ValuesQuery' },
      alias: id('t'),
      columns: [id('x'), id('s')],
    })
    expect(strip(selectOf('SELECT x FROM (SELECT 1) t (x)').from)).toMatchObject({ alias: id('t'), columns: [id('x')] })
  })

  it('parses all join kinds left-associatively, commas as CROSS joins', () => {
    const s = selectOf(`SELECT * FROM a
      JOIN b ON a.x = b.x
      INNER JOIN c ON TRUE
      LEFT JOIN d ON a.x = d.x
      LEFT OUTER JOIN e ON 1 = 1
      RIGHT JOIN f ON 1 = 1
      RIGHT OUTER JOIN g ON 1 = 1
      FULL JOIN h ON 1 = 1
      FULL OUTER JOIN i ON 1 = 1
      CROSS JOIN j, k`)
    const kinds: string[] = []
    let f = s.from!
    while (f.kind === 'Join') {
      const right = f.right.kind === 'TableRef' ? f.right.name.parts[0]!.value : f.right.kind
      kinds.unshift(`${f.joinType}:${right}${f.on ? '+on' : ''}`)
      f = f.left
    }
    expect(f).toMatchObject({ kind: 'TableRef', name: { parts: [{ value: 'a' }] } })
    expect(kinds).toEqual(['INNER:b+on', 'INNER:c+on', 'LEFT:d+on', 'LEFT:e+on', 'RIGHT:f+on', 'RIGHT:g+on', 'FULL:h+on', 'FULL:i+on', 'CROSS:j', 'CROSS:k'])
  })

  it('parses join ON conditions', () => {
    const s = selectOf('SELECT * FROM a AS l LEFT JOIN b r ON l.id = r.id AND r.v > 0')
    expect(strip(s.from)).toMatchObject({
      kind: 'Join',
      joinType: 'LEFT',
      left: { kind: 'TableRef', alias: id('l') },
      right: { kind: 'TableRef', alias: id('r') },
    })
    expect(show((s.from as Join).on!)).toBe('((l.id = r.id) AND (r.v > 0))')
  })
})

describe('window table functions', () => {
  function tvf(sql: string): WindowTvf {
    const f = selectOf(sql).from!
    if (f.kind !== 'WindowTvf') throw new Error(`expected WindowTvf, got ${f.kind}`)
    return f
  }

  it('parses TUMBLE with positional arguments and an alias', () => {
    expect(strip(tvf("SELECT * FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) AS w"))).toEqual({
      kind: 'WindowTvf',
      fn: 'TUMBLE',
      input: { kind: 'TableRef', name: { parts: [id('bid')] }, hints: [] },
      partitionBy: [],
      timeCol: id('dateTime'),
      args: [{ value: { kind: 'IntervalLiteral', text: '10', negative: false, unit: 'SECOND' } }],
      alias: id('w'),
    })
  })

  it('parses named arguments in any case', () => {
    const t = tvf("SELECT * FROM TABLE(tumble(data => TABLE bid, TIMECOL => DESCRIPTOR(ts), size => INTERVAL '10' MINUTES, OFFSET => INTERVAL '1' MINUTE))")
    expect(t.fn).toBe('TUMBLE')
    expect(strip(t.inputName)).toEqual(id('data'))
    expect(strip(t.timeCol)).toEqual(id('ts'))
    expect(strip(t.args)).toEqual([
      { name: id('size'), value: { kind: 'IntervalLiteral', text: '10', negative: false, unit: 'MINUTES' } },
      { name: id('OFFSET'), value: { kind: 'IntervalLiteral', text: '1', negative: false, unit: 'MINUTE' } },
    ])
  })

  it('parses HOP and CUMULATE with an optional offset', () => {
    const hop = tvf("SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))")
    expect(hop.fn).toBe('HOP')
    expect(hop.args.map(a => show(a.value))).toEqual(['INTERVAL(5 MINUTE)', 'INTERVAL(10 MINUTE)'])
    const cum = tvf("SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR, INTERVAL '5' SECOND))")
    expect(cum.fn).toBe('CUMULATE')
    expect(cum.args).toHaveLength(3)
  })

  it('parses SESSION with PARTITION BY k, k2 and PARTITION BY (k, k2)', () => {
    for (const sql of [
      "SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, k2, DESCRIPTOR(ts), INTERVAL '5' MINUTE))",
      "SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY (k, k2), DESCRIPTOR(ts), INTERVAL '5' MINUTE))",
    ]) {
      const s = tvf(sql)
      expect(s.fn).toBe('SESSION')
      expect(s.partitionBy.map(show)).toEqual(['k', 'k2'])
      expect(strip(s.timeCol)).toEqual(id('ts'))
      expect(s.args.map(a => show(a.value))).toEqual(['INTERVAL(5 MINUTE)'])
    }
    expect(tvf("SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' MINUTE))").partitionBy.map(show)).toEqual(['k'])
  })

  it('accepts a subquery as the table argument', () => {
    for (const sql of [
      "SELECT * FROM TABLE(TUMBLE((SELECT * FROM t WHERE a > 0), DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
      "SELECT * FROM TABLE(TUMBLE(TABLE (SELECT * FROM t WHERE a > 0), DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
    ]) {
      expect(strip(tvf(sql).input)).toMatchObject({ kind: 'SubqueryRef', query: { kind: 'Select', where: {} } })
    }
  })

  it('joins a window TVF like any FROM item', () => {
    const s = selectOf("SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) l JOIN b ON l.x = b.x")
    expect(s.from).toMatchObject({ kind: 'Join', left: { kind: 'WindowTvf', alias: { value: 'l' } }, right: { kind: 'TableRef' } })
  })
})

describe('a Nexmark query end to end', () => {
  it('parses q5-style hot items with nested windowed subqueries', () => {
    const s = selectOf(Q5_PUBLISHED)
    expect(s.from).toMatchObject({ kind: 'Join', joinType: 'INNER', left: { kind: 'SubqueryRef' }, right: { kind: 'SubqueryRef' } })
  })
})
