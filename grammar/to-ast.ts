// CST → AST for scripts and statements (DDL, INSERT, SET/RESET, EXPLAIN, SHOW, DESCRIBE).
// Queries and expressions are in to-ast-query.ts and to-ast-expr.ts.
import { WeirError } from '../common/errors.js'
import type * as A from './ast.js'
import { child, has, ident, identFromToken, isToken, nameList, node, nodes, alt, qualifiedName, stringValue, token, tokens, type CstNode,
  type Spans } from './cst.js'
import { expression, typeName } from './to-ast-expr.js'
import { dottedText, query } from './to-ast-query.js'
import * as T from './tokens.js'

export { expression }

export function script(n: CstNode, s: Spans): A.Statement[] {
  return nodes(n, 'statement').map(st => statement(st, s))
}

function statement(n: CstNode, s: Spans): A.Statement {
  const c = alt(n) as CstNode
  switch (c.name) {
    case 'functionStatement':
      return functionStatement(c, s)
    case 'createStatement':
      return createStatement(c, s)
    case 'dropStatement':
      return dropStatement(c, s)
    case 'insertStatement':
      return insert(c, s)
    case 'statementSet':
      return statementSet(c, s)
    case 'query':
      return { kind: 'QueryStatement', query: query(c, s), span: s.of(c) }
    case 'setStatement': {
      const key = node(c, 'optionKey')
      const value = node(c, 'optionValue')
      return { kind: 'SetOption', ...(key ? { key: optionText(key, s) } : {}), ...(value ? { value: optionText(value, s) } : {}), span: s.of(c) }
    }
    case 'resetStatement': {
      const key = node(c, 'optionKey')
      return { kind: 'ResetOption', ...(key ? { key: optionText(key, s) } : {}), span: s.of(c) }
    }
    case 'explainStatement':
      return explain(c, s)
    case 'showStatement':
      if (has(c, 'JOBS')) return { kind: 'ShowJobs', span: s.of(c) }
      if (has(c, 'showCreate')) {
        const sc = child(c, 'showCreate')
        return { kind: 'ShowCreate', object: has(sc, 'VIEW') ? 'VIEW' : 'TABLE', name: qualifiedName(child(sc, 'qualifiedName'), s), span: s.of(c) }
      }
      if (has(c, 'COLUMNS')) return { kind: 'ShowColumns', table: qualifiedName(child(c, 'qualifiedName'), s), ...showLike(c, s), span: s.of(c) }
      return { kind: 'ShowTables', what: showWhat(c), ...(has(c, 'fromOrIn') ? { from: qualifiedName(child(c, 'qualifiedName'), s) } : {}), ...showLike(c, s),
        span: s.of(c) }
    case 'useStatement':
      return { kind: 'Use', catalog: has(c, 'CATALOG'), name: qualifiedName(child(c, 'qualifiedName'), s), span: s.of(c) }
    case 'stopJobStatement': {
      const id = token(c, 'StringLit')!
      return { kind: 'StopJob', id: stringValue(id), idSpan: s.ofToken(id), withSavepoint: has(c, 'SAVEPOINT'), span: s.of(c) }
    }
    case 'describeStatement':
      return { kind: 'Describe', name: qualifiedName(child(c, 'qualifiedName'), s), span: s.of(c) }
    case 'alterStatement':
      return alter(c, s)
    default:
      throw WeirError.internal(`unhandled statement ${c.name}`)
  }
}

function optionText(n: CstNode, s: Spans): string {
  const c = alt(n)
  if (!isToken(c)) return dottedText(c, s)
  return c.tokenType === T.StringLit ? stringValue(c) : c.image
}

function createStatement(n: CstNode, s: Spans): A.CreateTable | A.CreateView | A.CreateCatalog | A.CreateDatabase {
  const temporary = has(n, 'TEMPORARY')
  const catalog = node(n, 'createCatalogBody')
  if (catalog) {
    const list = node(catalog, 'optionList')
    return { kind: 'CreateCatalog', name: ident(catalog, s), ifNotExists: has(catalog, 'ifNotExists'), options: list ? options(list, s) : [], span: s.of(n) }
  }
  const database = node(n, 'createDatabaseBody')
  if (database) {
    return { kind: 'CreateDatabase', name: qualifiedName(child(database, 'qualifiedName'), s), ifNotExists: has(database, 'ifNotExists'),
      ...commentOf(node(database, 'commentClause')), span: s.of(n) }
  }
  const view = node(n, 'createViewBody')
  if (view) {
    const cols = node(view, 'nameList')
    return {
      kind: 'CreateView',
      name: qualifiedName(child(view, 'qualifiedName'), s),
      temporary,
      ifNotExists: has(view, 'ifNotExists'),
      ...(cols ? { columns: nameList(cols, s) } : {}),
      query: query(child(view, 'query'), s),
      queryText: s.text(child(view, 'query')),
      ...commentOf(node(view, 'commentClause')),
      span: s.of(n),
    }
  }
  return createTable(child(n, 'createTableBody'), temporary, s.of(n), s)
}

/** The columns, watermark and primary key of CREATE TABLE's (or ALTER TABLE … ADD's) elements. */
function tableElements(elements: readonly CstNode[], s: Spans): { columns: A.ColumnDef[]; watermark?: A.WatermarkDef; primaryKey?: A.PrimaryKeyDef } {
  const columns: A.ColumnDef[] = []
  let watermark: A.WatermarkDef | undefined
  let primaryKey: A.PrimaryKeyDef | undefined
  const setPrimaryKey = (pk: A.PrimaryKeyDef): void => {
    if (primaryKey) throw WeirError.syntax('a table has at most one PRIMARY KEY', { span: pk.span, help: 'list all key columns in one PRIMARY KEY (a, b)' })
    primaryKey = pk
  }
  for (const element of elements) {
    const c = alt(element) as CstNode
    switch (c.name) {
      case 'watermarkDef': {
        const e = child(c, 'expression')
        const wm: A.WatermarkDef = { column: ident(c, s), expr: expression(e, s), exprText: s.text(e), span: s.of(c) }
        if (watermark) throw WeirError.syntax('a table has at most one WATERMARK', { span: wm.span })
        watermark = wm
        break
      }
      case 'primaryKeyDef':
        setPrimaryKey({ ...constraintName(c, s), columns: nameList(child(c, 'nameList'), s), enforced: enforced(c), span: s.of(c) })
        break
      case 'columnDef': {
        const col = columnDef(c, s)
        columns.push(col.column)
        if (col.primaryKey) setPrimaryKey(col.primaryKey)
        break
      }
      default:
        throw WeirError.internal(`unhandled table element ${c.name}`)
    }
  }
  return { columns, ...(watermark ? { watermark } : {}), ...(primaryKey ? { primaryKey } : {}) }
}

function createTable(n: CstNode, temporary: boolean, span: A.CreateTable['span'], s: Spans): A.CreateTable {
  const { columns, watermark, primaryKey } = tableElements(nodes(n, 'tableElement'), s)
  const optionList = node(n, 'optionList')
  const likeNode = node(n, 'likeClause')
  const asNode = node(n, 'query')
  if (!has(n, 'LParen') && likeNode === undefined && asNode === undefined) {
    throw WeirError.syntax('CREATE TABLE needs its columns', { span: s.of(child(n, 'qualifiedName')),
      help: 'list them after the name: CREATE TABLE t (a INT, …) WITH (…), copy another table with … LIKE other, or take them from a query with … AS SELECT' })
  }
  if (likeNode !== undefined && asNode !== undefined) {
    throw WeirError.syntax('CREATE TABLE takes its columns from LIKE or from AS SELECT, not both', { span: s.of(likeNode),
      help: 'drop the LIKE clause, or create the table with LIKE and fill it with INSERT INTO' })
  }
  return {
    kind: 'CreateTable',
    name: qualifiedName(child(n, 'qualifiedName'), s),
    ifNotExists: has(n, 'ifNotExists'),
    temporary,
    columns,
    ...(watermark ? { watermark } : {}),
    ...(primaryKey ? { primaryKey } : {}),
    options: optionList ? options(optionList, s) : [],
    ...commentOf(node(n, 'commentClause')),
    ...partitionedBy(n, s),
    ...(likeNode ? { like: likeClause(likeNode, s) } : {}),
    ...(asNode ? { asQuery: query(asNode, s) } : {}),
    span,
  }
}

const LIKE_STRATEGIES = ['INCLUDING', 'EXCLUDING', 'OVERWRITING']
const LIKE_FEATURES = ['ALL', 'CONSTRAINTS', 'GENERATED', 'OPTIONS', 'WATERMARKS', 'METADATA', 'PARTITIONS']

function likeClause(n: CstNode, s: Spans): A.LikeClause {
  const opts = nodes(n, 'likeOption').map(o => {
    const strategyToken = token(o, 'strategy')!
    const featureToken = token(o, 'feature')!
    const strategy = strategyToken.image.toUpperCase()
    const feature = featureToken.image.toUpperCase()
    if (!LIKE_STRATEGIES.includes(strategy)) {
      throw WeirError.syntax(`unknown LIKE option '${strategyToken.image}'`, { span: s.ofToken(strategyToken),
        help: 'use INCLUDING, EXCLUDING or OVERWRITING' })
    }
    if (!LIKE_FEATURES.includes(feature)) {
      throw WeirError.syntax(`unknown LIKE feature '${featureToken.image}'`, { span: s.ofToken(featureToken),
        help: `use ${LIKE_FEATURES.slice(0, -1).join(', ')} or ${LIKE_FEATURES.at(-1)}` })
    }
    return { strategy: strategy as A.LikeStrategy, feature: feature as A.LikeFeature, span: s.of(o) }
  })
  return { table: qualifiedName(child(n, 'qualifiedName'), s), options: opts, span: s.of(n) }
}

/** Without `NOT ENFORCED` a key is ENFORCED, which Flink (and the planner) reject. */
/** `CONSTRAINT name` before a primary key, when written. */
function constraintName(n: CstNode, s: Spans): { name?: A.Ident } {
  const c = node(n, 'constraintName')
  return c === undefined ? {} : { name: ident(c, s) }
}

function enforced(n: CstNode): boolean {
  const e = node(n, 'enforcement')
  return e === undefined || !has(e, 'NOT')
}

function columnDef(n: CstNode, s: Spans): { column: A.ColumnDef; primaryKey?: A.PrimaryKeyDef } {
  const name = ident(n, s)
  const span = s.of(n)
  const computed = node(n, 'expression')
  if (computed) {
    return { column: { kind: 'ComputedColumn', name, expr: expression(computed, s), exprText: s.text(computed), ...commentOf(node(n, 'commentClause')), span } }
  }
  const type = typeName(child(n, 'typeName'), s)
  let metadata: CstNode | undefined
  let primaryKey: A.PrimaryKeyDef | undefined
  let comment: CstNode | undefined
  for (const attr of nodes(n, 'columnAttribute')) {
    const a = alt(attr) as CstNode
    const seen = a.name === 'metadataAttribute' ? metadata : a.name === 'columnPrimaryKey' ? primaryKey : comment
    if (seen) throw WeirError.syntax(`column '${name.value}' repeats ${s.text(a).split(/\s/)[0]!.toUpperCase()}`, { span: s.of(a) })
    if (a.name === 'metadataAttribute') metadata = a
    else if (a.name === 'columnPrimaryKey') primaryKey = { ...constraintName(a, s), columns: [name], enforced: enforced(a), span: s.of(a) }
    else comment = a
  }
  if (metadata) {
    const from = token(metadata, 'StringLit')
    const column: A.MetadataColumn = {
      kind: 'MetadataColumn',
      name,
      type,
      ...(from ? { from: stringValue(from) } : {}),
      virtual: has(metadata, 'VIRTUAL'),
      ...commentOf(comment),
      span,
    }
    return { column, ...(primaryKey ? { primaryKey } : {}) }
  }
  return { column: { kind: 'PhysicalColumn', name, type, ...commentOf(comment), span }, ...(primaryKey ? { primaryKey } : {}) }
}

/** `{ comment }` of a COMMENT clause, or nothing. */
function commentOf(n: CstNode | undefined): { comment?: string } {
  return n ? { comment: stringValue(token(n, 'StringLit')!) } : {}
}

function alter(n: CstNode, s: Spans): A.AlterObject {
  const names = nodes(n, 'qualifiedName')
  const list = node(n, 'optionList')
  const newName = node(n, 'newName')
  const action: A.AlterAction = list
    ? { kind: 'SetOptions', options: options(list, s) }
    : newName
    ? { kind: 'Rename', to: qualifiedName(newName, s) }
    : has(n, 'RENAME')
    ? { kind: 'RenameColumn', from: identFromToken(token(n, 'oldColumn')!, s), to: identFromToken(token(n, 'newColumn')!, s) }
    : has(n, 'ADD') || has(n, 'MODIFY')
    ? alterSchema(n, s)
    : has(n, 'DROP')
    ? alterDrop(n, s)
    : { kind: 'ResetOptions', keys: tokens(n, 'StringLit').map(t => ({ key: stringValue(t), span: s.ofToken(t) })) }
  return { kind: 'AlterObject', object: has(n, 'VIEW') ? 'VIEW' : 'TABLE', name: qualifiedName(names[0]!, s), ifExists: has(n, 'IF'), action, span: s.of(n) }
}

/** ALTER TABLE … ADD / MODIFY: its elements, and where each column goes (FIRST, AFTER c). */
function alterSchema(n: CstNode, s: Spans): A.AlterAction {
  const elements = nodes(n, 'alterElement')
  const positions = new Map<A.ColumnDef, A.ColumnPosition>()
  const { columns, watermark, primaryKey } = tableElements(elements.map(e => child(e, 'tableElement')), s)
  let next = 0
  for (const e of elements) {
    const isColumn = (alt(child(e, 'tableElement')) as CstNode).name === 'columnDef'
    const after = token(e, 'after')
    const first = token(e, 'FIRST')
    if ((after || first) && !isColumn) {
      throw WeirError.syntax(`${first ? 'FIRST' : 'AFTER'} places a column; a watermark or primary key has no place`, {
        span: s.ofToken((first ?? token(e, 'AFTER'))!),
        help: 'remove FIRST / AFTER from this element',
      })
    }
    if (!isColumn) continue
    const col = columns[next++]!
    if (first) positions.set(col, { kind: 'First', span: s.ofToken(first) })
    else if (after) positions.set(col, { kind: 'After', column: identFromToken(after, s), span: s.of(e) })
  }
  return {
    kind: has(n, 'ADD') ? 'AddSchema' : 'ModifySchema',
    columns: columns.map(c => ({ column: c, ...(positions.has(c) ? { position: positions.get(c)! } : {}) })),
    ...(watermark ? { watermark } : {}),
    ...(primaryKey ? { primaryKey } : {}),
  }
}

/** ALTER TABLE … DROP PRIMARY KEY | WATERMARK | CONSTRAINT name | c | (c, …). */
function alterDrop(n: CstNode, s: Spans): A.AlterAction {
  if (has(n, 'PRIMARY')) return { kind: 'DropPrimaryKey', span: s.ofToken(token(n, 'PRIMARY')!) }
  const constraint = node(n, 'constraintName')
  if (constraint) return { kind: 'DropConstraint', name: ident(constraint, s) }
  if (has(n, 'WATERMARK')) return { kind: 'DropWatermark', span: s.ofToken(token(n, 'WATERMARK')!) }
  const list = node(n, 'nameList')
  return { kind: 'DropColumns', columns: list ? nameList(list, s) : [identFromToken(token(n, 'dropColumn')!, s)] }
}

function options(n: CstNode, s: Spans): A.OptionPair[] {
  const seen = new Map<string, A.OptionPair>()
  return nodes(n, 'optionPair').map(p => {
    const k = token(p, 'key')!
    const v = token(p, 'value')!
    const pair: A.OptionPair = { key: stringValue(k), value: stringValue(v), keySpan: s.ofToken(k), valueSpan: s.ofToken(v) }
    if (seen.has(pair.key)) throw WeirError.syntax(`option '${pair.key}' is given twice`, { span: pair.keySpan })
    seen.set(pair.key, pair)
    return pair
  })
}

function functionStatement(n: CstNode, s: Spans): A.CreateFunction | A.DropFunction {
  const name = qualifiedName(child(n, 'qualifiedName'), s)
  const path = token(n, 'StringLit')
  const notExists = has(n, 'NOT')
  if (has(n, 'DROP')) {
    if (path) {
      throw WeirError.syntax('DROP FUNCTION takes no AS clause', { span: s.ofToken(path), help: `DROP FUNCTION ${name.parts.map(p => p.value).join('.')}` })
    }
    if (notExists) throw WeirError.syntax('write DROP FUNCTION IF EXISTS, not IF NOT EXISTS', { span: s.ofToken(token(n, 'NOT')!) })
    return { kind: 'DropFunction', name, ifExists: has(n, 'IF'), span: s.of(n) }
  }
  if (has(n, 'IF') && !notExists) throw WeirError.syntax('write CREATE FUNCTION IF NOT EXISTS', { span: s.ofToken(token(n, 'IF')!) })
  if (!path) {
    throw WeirError.syntax('CREATE FUNCTION needs the module that defines it', { span: s.of(n), help: `CREATE FUNCTION ${
      name.parts.map(p => p.value).join('.')
    } AS './path/to/module.ts' LANGUAGE TYPESCRIPT` })
  }
  const word = token(n, 'languageWord')
  if (word && word.image.toUpperCase() !== 'LANGUAGE') {
    throw WeirError.syntax(`unexpected '${word.image}', expected LANGUAGE`, { span: s.ofToken(word) })
  }
  const lang = token(n, 'language')
  let language: A.CreateFunction['language']
  if (lang) {
    const value = lang.image.toUpperCase()
    if (value !== 'TYPESCRIPT' && value !== 'JAVASCRIPT') {
      throw WeirError.unsupported(`functions in LANGUAGE ${lang.image} are not supported`, { span: s.ofToken(lang),
        help: 'Weir runs process functions written in TypeScript (LANGUAGE TYPESCRIPT) or JavaScript (LANGUAGE JAVASCRIPT)' })
    }
    language = { value, span: s.ofToken(lang) }
  }
  return { kind: 'CreateFunction', name, path: stringValue(path), pathSpan: s.ofToken(path), ...(language ? { language } : {}), ifNotExists: notExists,
    temporary: has(n, 'TEMPORARY'), span: s.of(n) }
}

function dropStatement(n: CstNode, s: Spans): A.DropObject {
  const behavior = token(n, 'Name')
  const word = behavior?.image.toUpperCase()
  if (behavior !== undefined && word !== 'RESTRICT' && word !== 'CASCADE') {
    throw WeirError.syntax(`unexpected '${behavior.image}', expected RESTRICT or CASCADE`, { span: s.ofToken(behavior) })
  }
  return {
    kind: 'DropObject',
    object: has(n, 'VIEW') ? 'VIEW' : has(n, 'DATABASE') ? 'DATABASE' : has(n, 'CATALOG') ? 'CATALOG' : 'TABLE',
    temporary: has(n, 'TEMPORARY'),
    name: qualifiedName(child(n, 'qualifiedName'), s),
    ifExists: has(n, 'IF'),
    cascade: word === 'CASCADE',
    span: s.of(n),
  }
}

function showLike(n: CstNode, s: Spans): { like?: A.ShowLike } {
  const like = node(n, 'showLike')
  return like ? { like: { pattern: stringValue(token(like, 'StringLit')!), not: has(like, 'NOT'), span: s.of(like) } } : {}
}

function showWhat(n: CstNode): A.ShowTables['what'] {
  if (has(n, 'CURRENT')) return has(n, 'CATALOG') ? 'CURRENT CATALOG' : 'CURRENT DATABASE'
  for (const w of ['VIEWS', 'FUNCTIONS', 'CATALOGS', 'DATABASES'] as const) if (has(n, w)) return w
  return 'TABLES'
}

/** A statement set's INSERTs; any other statement inside it is refused where it is. */
function statementSet(n: CstNode, s: Spans): A.StatementSet {
  const inserts: A.Insert[] = []
  for (const st of nodes(child(n, 'statementSetBody'), 'statement')) {
    const stmt = statement(st, s)
    if (stmt.kind !== 'Insert') {
      throw WeirError.syntax(`a statement set holds INSERT statements only, not ${describeStatement(stmt)}`, {
        span: stmt.span,
        help: 'move it before BEGIN STATEMENT SET or after END',
      })
    }
    inserts.push(stmt)
  }
  if (inserts.length === 0) {
    throw WeirError.syntax('a statement set needs at least one INSERT', { span: s.of(n), help: 'put INSERT INTO … statements between BEGIN and END' })
  }
  return { kind: 'StatementSet', inserts, span: s.of(n) }
}

const STATEMENT_NAMES: Record<Exclude<A.Statement['kind'], 'Insert'>, string> = {
  QueryStatement: 'a SELECT (its rows would have nowhere to go)',
  StatementSet: 'another statement set',
  CreateTable: 'CREATE TABLE',
  CreateView: 'CREATE VIEW',
  CreateFunction: 'CREATE FUNCTION',
  DropFunction: 'DROP FUNCTION',
  DropObject: 'DROP',
  SetOption: 'SET',
  ResetOption: 'RESET',
  Explain: 'EXPLAIN',
  ShowTables: 'SHOW',
  ShowColumns: 'SHOW COLUMNS',
  ShowJobs: 'SHOW JOBS',
  StopJob: 'STOP JOB',
  Describe: 'DESCRIBE',
  ShowCreate: 'SHOW CREATE',
  AlterObject: 'ALTER',
  CreateCatalog: 'CREATE CATALOG',
  CreateDatabase: 'CREATE DATABASE',
  Use: 'USE',
}

function describeStatement(stmt: Exclude<A.Statement, A.Insert>): string {
  return STATEMENT_NAMES[stmt.kind]
}

function partitionedBy(n: CstNode, s: Spans): Pick<A.CreateTable, 'partitionedBy'> {
  if (!has(n, 'PARTITIONED')) return {}
  const list = child(n, 'nameList')
  return { partitionedBy: { columns: nameList(list, s), span: s.of(list) } }
}

function partitionSpec(n: CstNode, s: Spans): A.PartitionValue[] {
  return nodes(n, 'partitionValue').map(v => {
    const str = token(v, 'StringLit')
    const sign = token(v, 'AddOp')?.image ?? ''
    return {
      column: ident(v, s),
      value: str ? stringValue(str) : sign + token(v, 'NumberLit')!.image,
      isString: str !== undefined,
      span: s.of(v),
    }
  })
}

function insert(n: CstNode, s: Spans): A.Insert {
  const cols = node(n, 'nameList')
  const partition = node(n, 'partitionSpec')
  return {
    kind: 'Insert',
    table: qualifiedName(child(n, 'qualifiedName'), s),
    overwrite: has(n, 'OVERWRITE'),
    ...(partition ? { partition: partitionSpec(partition, s) } : {}),
    ...(cols ? { columns: nameList(cols, s) } : {}),
    query: query(child(n, 'query'), s),
    span: s.of(n),
  }
}

const EXPLAIN_DETAILS = ['ESTIMATED_COST', 'CHANGELOG_MODE', 'PLAN_ADVICE', 'JSON_EXECUTION_PLAN'] as const

function explain(n: CstNode, s: Spans): A.Explain {
  const details = new Set<string>()
  for (const id of nameList(n, s)) {
    const detail = id.value.toUpperCase()
    if (!(EXPLAIN_DETAILS as readonly string[]).includes(detail)) {
      throw WeirError.unsupported(`EXPLAIN ${id.value} is not supported`, {
        span: id.span,
        help: `EXPLAIN takes ${EXPLAIN_DETAILS.join(', ')}, comma-separated, or none`,
      })
    }
    details.add(detail)
  }
  const ins = node(n, 'insertStatement')
  const set = node(n, 'explainedStatementSet')
  const q = node(n, 'query')
  const statement: A.Explain['statement'] = ins
    ? insert(ins, s)
    : set
    ? statementSet(set, s)
    : { kind: 'QueryStatement', query: query(q!, s), span: s.of(q!) }
  return {
    kind: 'Explain',
    changelogMode: details.has('CHANGELOG_MODE'),
    estimatedCost: details.has('ESTIMATED_COST'),
    planAdvice: details.has('PLAN_ADVICE'),
    jsonExecutionPlan: details.has('JSON_EXECUTION_PLAN'),
    statement,
    span: s.of(n),
  }
}
