// The SQL AST: frozen discriminated unions, each node with the span of SQL it came from.
// Nothing here knows about Chevrotain; the parser builds these plain objects.
import type { Span } from '../common/span.js'
import type { CreateFunction, DropFunction, TableFunctionCall } from './ast-functions.js'
export type { CreateFunction, DropFunction, TableFunctionArg, TableFunctionCall } from './ast-functions.js'
import type { AlterObject } from './ast-alter.js'
export type { AlterAction, AlterObject, AlterSchema, ColumnPosition } from './ast-alter.js'
import type { Describe, ShowColumns, ShowCreate, ShowJobs, ShowTables, StopJob } from './ast-show.js'
export type { Describe, ShowColumns, ShowCreate, ShowJobs, ShowLike, ShowTables, StopJob } from './ast-show.js'

/** A name as written, with its span. Unquoted names keep their case; lookups are case-insensitive. */
export interface Ident {
  readonly value: string
  readonly quoted: boolean
  readonly span: Span
}

/** A possibly-qualified name: `t`, `db.t`, `t.col`. */
export interface QualifiedName {
  readonly parts: readonly Ident[]
  readonly span: Span
}

// ---------------------------------------------------------------- types

export interface TypeName {
  readonly kind: 'TypeName'
  /**
   * BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DOUBLE, DECIMAL, STRING, TIMESTAMP, TIMESTAMP_LTZ, DATE (synonyms normalized: INTEGER → INT,
   * VARCHAR/CHAR → STRING, REAL → FLOAT, NUMERIC/DEC → DECIMAL, TIMESTAMP WITH LOCAL TIME ZONE → TIMESTAMP_LTZ).
   */
  readonly name: string
  /** Parameters as written, e.g. DECIMAL(10, 2) → [10, 2], VARCHAR(20) → [20]. */
  readonly params: readonly number[]
  /** ROW's fields (name ROW). */
  readonly fields?: readonly { readonly name: Ident; readonly type: TypeName }[]
  /** ARRAY's element type, MAP's key and value types (name ARRAY or MAP). */
  readonly elements?: readonly TypeName[]
  readonly notNull: boolean
  readonly span: Span
}

// ---------------------------------------------------------------- hints

/** `/*+ NAME('k' = 'v', …) * /` or `/*+ NAME(a, b) * /`. */
export interface Hint {
  readonly name: Ident
  /** Key-value options ('alias' = '1d'); empty when the hint lists plain values. */
  readonly options: readonly (readonly [string, string])[]
  readonly values: readonly string[]
  readonly span: Span
}

// ---------------------------------------------------------------- statements

export type Statement =
  | CreateFunction
  | DropFunction
  | CreateTable
  | CreateView
  | DropObject
  | Insert
  | StatementSet
  | QueryStatement
  | SetOption
  | ResetOption
  | Explain
  | ShowTables
  | ShowColumns
  | ShowJobs
  | StopJob
  | Describe
  | ShowCreate
  | AlterObject
  | CreateCatalog
  | CreateDatabase
  | Use

export interface CreateTable {
  readonly kind: 'CreateTable'
  readonly name: QualifiedName
  readonly ifNotExists: boolean
  readonly temporary: boolean
  readonly columns: readonly ColumnDef[]
  readonly watermark?: WatermarkDef
  readonly primaryKey?: PrimaryKeyDef
  readonly options: readonly OptionPair[]
  readonly comment?: string
  /** `PARTITIONED BY (a, b)`: the columns whose values name a filesystem table's folders. */
  readonly partitionedBy?: { readonly columns: readonly Ident[]; readonly span: Span }
  /** `LIKE base (…)`: the base table's schema and options merged in (planner/create-like.ts). */
  readonly like?: LikeClause
  /** `AS query`: the query's columns follow the declared ones, and the query fills the table (planner/create-as.ts). */
  readonly asQuery?: Query
  readonly span: Span
}

export type LikeFeature = 'ALL' | 'CONSTRAINTS' | 'GENERATED' | 'OPTIONS' | 'WATERMARKS' | 'METADATA' | 'PARTITIONS'
export type LikeStrategy = 'INCLUDING' | 'EXCLUDING' | 'OVERWRITING'

export interface LikeClause {
  readonly table: QualifiedName
  readonly options: readonly { readonly strategy: LikeStrategy; readonly feature: LikeFeature; readonly span: Span }[]
  readonly span: Span
}

export type ColumnDef = PhysicalColumn | ComputedColumn | MetadataColumn

export interface PhysicalColumn {
  readonly kind: 'PhysicalColumn'
  readonly name: Ident
  /** `COMMENT '…'` (SHOW CREATE TABLE prints it). */
  readonly comment?: string
  readonly type: TypeName
  readonly span: Span
}

/** `name AS expr` — e.g. `pt AS PROCTIME()`, `ts AS TO_TIMESTAMP(s)`. */
export interface ComputedColumn {
  readonly kind: 'ComputedColumn'
  readonly name: Ident
  /** `COMMENT '…'` (SHOW CREATE TABLE prints it). */
  readonly comment?: string
  readonly expr: Expr
  /** The expression as written (SHOW CREATE TABLE prints it). */
  readonly exprText: string
  readonly span: Span
}

/** `name TYPE METADATA [FROM 'key'] [VIRTUAL]`. */
export interface MetadataColumn {
  readonly kind: 'MetadataColumn'
  readonly name: Ident
  /** `COMMENT '…'` (SHOW CREATE TABLE prints it). */
  readonly comment?: string
  readonly type: TypeName
  readonly from?: string
  readonly virtual: boolean
  readonly span: Span
}

/** `WATERMARK FOR col AS expr`. */
export interface WatermarkDef {
  readonly column: Ident
  readonly expr: Expr
  /** The expression as written (SHOW CREATE TABLE prints it). */
  readonly exprText: string
  readonly span: Span
}

/** `PRIMARY KEY (a, b) NOT ENFORCED`. */
export interface PrimaryKeyDef {
  /** `CONSTRAINT name`: the name ALTER TABLE … DROP CONSTRAINT drops it by. */
  readonly name?: Ident
  readonly columns: readonly Ident[]
  readonly enforced: boolean
  readonly span: Span
}

export interface OptionPair {
  readonly key: string
  readonly value: string
  readonly keySpan: Span
  readonly valueSpan: Span
}

export interface CreateView {
  readonly kind: 'CreateView'
  readonly name: QualifiedName
  readonly temporary: boolean
  readonly ifNotExists: boolean
  readonly columns?: readonly Ident[]
  readonly query: Query
  /** The query as written (SHOW CREATE VIEW prints it). */
  readonly queryText: string
  readonly comment?: string
  readonly span: Span
}

export interface DropObject {
  readonly kind: 'DropObject'
  readonly object: 'TABLE' | 'VIEW' | 'DATABASE' | 'CATALOG'
  readonly temporary: boolean
  readonly name: QualifiedName
  readonly ifExists: boolean
  /** DROP DATABASE … CASCADE: its tables and views go too. */
  readonly cascade: boolean
  readonly span: Span
}

/** `CREATE CATALOG [IF NOT EXISTS] c [WITH (…)]`. */
export interface CreateCatalog {
  readonly kind: 'CreateCatalog'
  readonly name: Ident
  readonly ifNotExists: boolean
  readonly options: readonly OptionPair[]
  readonly span: Span
}

/** `CREATE DATABASE [IF NOT EXISTS] [c.]db [COMMENT '…'] [WITH (…)]`. */
export interface CreateDatabase {
  readonly kind: 'CreateDatabase'
  readonly name: QualifiedName
  readonly ifNotExists: boolean
  readonly comment?: string
  readonly span: Span
}

/** `USE CATALOG c` or `USE [c.]db`. */
export interface Use {
  readonly kind: 'Use'
  readonly catalog: boolean
  readonly name: QualifiedName
  readonly span: Span
}

export interface Insert {
  readonly kind: 'Insert'
  readonly table: QualifiedName
  readonly overwrite: boolean
  /** `PARTITION (k = 'v', …)`: static partition values; the query gives the other columns. */
  readonly partition?: readonly PartitionValue[]
  readonly columns?: readonly Ident[]
  readonly query: Query
  readonly span: Span
}

/** One `k = 'v'` of an INSERT's PARTITION clause: the value as written (a string or a number's text). */
export interface PartitionValue {
  readonly column: Ident
  readonly value: string
  readonly isString: boolean
  readonly span: Span
}

/**
 * `EXECUTE STATEMENT SET BEGIN INSERT …; INSERT …; END` (or `BEGIN STATEMENT SET; INSERT …; END`):
 * its INSERTs run as one job that reads each source table once.
 */
export interface StatementSet {
  readonly kind: 'StatementSet'
  readonly inserts: readonly Insert[]
  readonly span: Span
}

export interface QueryStatement {
  readonly kind: 'QueryStatement'
  readonly query: Query
  readonly span: Span
}

/** `SET 'k' = 'v'`, or bare `SET` (lists options). */
export interface SetOption {
  readonly kind: 'SetOption'
  readonly key?: string
  readonly value?: string
  readonly span: Span
}

/** `RESET 'k'`, or bare `RESET` (all options). */
export interface ResetOption {
  readonly kind: 'ResetOption'
  readonly key?: string
  readonly span: Span
}

export interface Explain {
  readonly kind: 'Explain'
  /** EXPLAIN CHANGELOG_MODE, ESTIMATED_COST, PLAN_ADVICE, JSON_EXECUTION_PLAN: which of them the statement names. */
  readonly changelogMode: boolean
  readonly estimatedCost: boolean
  readonly planAdvice: boolean
  readonly jsonExecutionPlan: boolean
  readonly statement: Insert | QueryStatement | StatementSet
  readonly span: Span
}

// ---------------------------------------------------------------- queries

export type Query = Select | SetOperation | WithQuery | OrderedQuery | ValuesQuery

/** `WITH a AS (…), b AS (…) body`. */
export interface WithQuery {
  readonly kind: 'WithQuery'
  readonly ctes: readonly { readonly name: Ident; readonly columns?: readonly Ident[]; readonly query: Query; readonly span: Span }[]
  readonly body: Query
  readonly span: Span
}

/** `left UNION [ALL] right` (also INTERSECT / EXCEPT so the planner can say it does not stream them). */
export interface SetOperation {
  readonly kind: 'SetOperation'
  readonly op: 'UNION' | 'INTERSECT' | 'EXCEPT'
  readonly all: boolean
  readonly left: Query
  readonly right: Query
  readonly span: Span
}

/** A query with ORDER BY and/or LIMIT / FETCH FIRST. */
export interface OrderedQuery {
  readonly kind: 'OrderedQuery'
  readonly query: Query
  readonly orderBy: readonly OrderItem[]
  readonly limit?: Expr
  /** The whole `LIMIT n` / `FETCH FIRST n ROWS ONLY` clause. */
  readonly limitSpan?: Span
  readonly span: Span
}

export interface OrderItem {
  readonly expr: Expr
  readonly descending: boolean
  readonly nullsFirst?: boolean
  readonly span: Span
}

/** `VALUES (1, 'a'), (2, 'b')`. */
export interface ValuesQuery {
  readonly kind: 'ValuesQuery'
  readonly rows: readonly (readonly Expr[])[]
  readonly span: Span
}

export interface Select {
  readonly kind: 'Select'
  readonly hints: readonly Hint[]
  readonly distinct: boolean
  readonly items: readonly SelectItem[]
  readonly from?: FromItem
  readonly where?: Expr
  readonly groupBy?: readonly Expr[]
  /** GROUPING SETS, ROLLUP or CUBE in GROUP BY: each set lists indexes into groupBy. Absent for a plain GROUP BY. */
  readonly groupingSets?: GroupingSets
  readonly having?: Expr
  /** The named windows of `WINDOW w AS (…)`. */
  readonly windows?: readonly NamedWindow[]
  readonly span: Span
}

/** The grouping sets of a GROUP BY, expanded (ROLLUP, CUBE and cross products resolved), duplicates kept. */
export interface GroupingSets {
  readonly sets: readonly (readonly number[])[]
  readonly span: Span
}

export type SelectItem =
  | { readonly kind: 'ExprItem'; readonly expr: Expr; readonly alias?: Ident; readonly span: Span }
  /** `*` or `t.*` */
  | { readonly kind: 'StarItem'; readonly qualifier?: Ident; readonly span: Span }

export type FromItem = TableRef | SubqueryRef | WindowTvf | Join | Unnest | TableFunctionCall

/**
 * `UNNEST(expr) [WITH ORDINALITY] [[AS] alias [(col, …)]]`: one row per element of an array (per
 * entry of a map), joined to the row of the FROM items before it that the expression reads.
 */
export interface Unnest {
  readonly kind: 'Unnest'
  readonly args: readonly Expr[]
  readonly ordinality: boolean
  readonly alias?: Ident
  readonly columns?: readonly Ident[]
  readonly span: Span
}

/** A table or view by name, with optional alias and `/*+ OPTIONS(…) * /` style hints. */
export interface TableRef {
  readonly kind: 'TableRef'
  readonly name: QualifiedName
  readonly alias?: Ident
  readonly hints: readonly Hint[]
  /** `FOR SYSTEM_TIME AS OF expr`: the table is the versioned side of a temporal join. */
  readonly asOf?: { readonly expr: Expr; readonly span: Span }
  readonly span: Span
}

export interface SubqueryRef {
  readonly kind: 'SubqueryRef'
  readonly query: Query
  readonly alias?: Ident
  /** Column aliases after the alias: `(VALUES (1, 'a')) AS t(x, s)`. */
  readonly columns?: readonly Ident[]
  readonly span: Span
}

/** An argument of a window TVF, positional or named (`SIZE => INTERVAL '10' MINUTES`). */
export interface TvfArg {
  readonly name?: Ident
  readonly value: Expr
  readonly span: Span
}

/**
 * `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))` and HOP, CUMULATE, SESSION.
 * The TABLE argument may be a name or a parenthesized subquery; SESSION takes `PARTITION BY k`.
 */
export interface WindowTvf {
  readonly kind: 'WindowTvf'
  readonly fn: 'TUMBLE' | 'HOP' | 'CUMULATE' | 'SESSION'
  readonly fnSpan: Span
  readonly input: TableRef | SubqueryRef
  readonly inputName?: Ident
  readonly partitionBy: readonly Expr[]
  /** The DESCRIPTOR(col) argument. */
  readonly timeCol: Ident
  /** The remaining arguments (sizes, slide, step, gap, offset) in order, each possibly named. */
  readonly args: readonly TvfArg[]
  readonly alias?: Ident
  readonly span: Span
}

export interface Join {
  readonly kind: 'Join'
  readonly joinType: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS'
  readonly left: FromItem
  readonly right: FromItem
  readonly on?: Expr
  readonly span: Span
}

// ---------------------------------------------------------------- expressions

export type Expr =
  | Literal
  | ColumnRef
  | BinaryOp
  | UnaryOp
  | IsNull
  | IsBool
  | Between
  | InList
  | Like
  | CaseExpr
  | Cast
  | FunctionCall
  | Extract
  | TimeFloorCeil
  | IntervalLiteral
  | SubqueryExpr

/** A subquery in an expression: `EXISTS (q)`, `x [NOT] IN (q)` or a scalar `(q)` (planner/bind/subquery-binder.ts). */
export interface SubqueryExpr {
  readonly kind: 'SubqueryExpr'
  readonly form: 'EXISTS' | 'IN' | 'SCALAR'
  /** The probe value of IN. */
  readonly operand?: Expr
  readonly query: Query
  readonly negated: boolean
  readonly span: Span
}

export interface Literal {
  readonly kind: 'Literal'
  /** 'number' keeps the text so DECIMAL literals stay exact; 'timestamp' and 'date' keep the quoted text. */
  readonly type: 'number' | 'string' | 'boolean' | 'null' | 'timestamp' | 'date' | 'timestamp_ltz' | 'time' | 'binary'
  readonly text: string
  readonly span: Span
}

/** `INTERVAL '10' SECOND`, `INTERVAL '1:30' HOUR TO MINUTE` (unit as written: SECOND, MINUTES, …). */
export interface IntervalLiteral {
  readonly kind: 'IntervalLiteral'
  readonly text: string
  readonly negative: boolean
  readonly unit: string
  readonly toUnit?: string
  readonly span: Span
}

/** `col` or `t.col`. */
export interface ColumnRef {
  readonly kind: 'ColumnRef'
  readonly name: QualifiedName
  readonly span: Span
}

export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '=' | '<>' | '<' | '<=' | '>' | '>=' | 'AND' | 'OR' | '||'

export interface BinaryOp {
  readonly kind: 'BinaryOp'
  readonly op: BinaryOperator
  readonly left: Expr
  readonly right: Expr
  readonly span: Span
}

export interface UnaryOp {
  readonly kind: 'UnaryOp'
  readonly op: 'NOT' | '-' | '+'
  readonly operand: Expr
  readonly span: Span
}

export interface IsNull {
  readonly kind: 'IsNull'
  readonly operand: Expr
  readonly negated: boolean
  readonly span: Span
}

/** `x IS [NOT] TRUE|FALSE`. */
export interface IsBool {
  readonly kind: 'IsBool'
  readonly operand: Expr
  readonly value: boolean
  readonly negated: boolean
  readonly span: Span
}

export interface Between {
  readonly kind: 'Between'
  readonly operand: Expr
  readonly low: Expr
  readonly high: Expr
  readonly negated: boolean
  /** `BETWEEN SYMMETRIC`: the bounds in either order (ASYMMETRIC is the plain form). */
  readonly symmetric?: boolean
  readonly span: Span
}

export interface InList {
  readonly kind: 'InList'
  readonly operand: Expr
  readonly list: readonly Expr[]
  readonly negated: boolean
  readonly span: Span
}

export interface Like {
  readonly kind: 'Like'
  readonly operand: Expr
  readonly pattern: Expr
  readonly escape?: Expr
  readonly negated: boolean
  /** `SIMILAR TO`: the pattern is a SQL regular expression, not a LIKE pattern. */
  readonly similar?: boolean
  readonly span: Span
}

export interface CaseExpr {
  readonly kind: 'CaseExpr'
  readonly operand?: Expr
  readonly whens: readonly { readonly when: Expr; readonly then: Expr }[]
  readonly else?: Expr
  readonly span: Span
}

export interface Cast {
  readonly kind: 'Cast'
  readonly operand: Expr
  readonly type: TypeName
  /** TRY_CAST returns NULL where CAST fails. */
  readonly try: boolean
  readonly span: Span
}

/**
 * Any `name(args)`: scalar functions and aggregates. `COUNT(*)` has `star`;
 * `COUNT(DISTINCT x)` has `distinct`; `SUM(x) FILTER (WHERE p)` has `filter`.
 */
export interface FunctionCall {
  readonly kind: 'FunctionCall'
  readonly name: Ident
  readonly args: readonly Expr[]
  readonly distinct: boolean
  readonly star: boolean
  readonly filter?: Expr
  /** `OVER (…)` or `OVER w`: a window function call. */
  readonly over?: OverWindow
  /** The SQL/JSON clauses of a JSON function (json-clauses.ts), `IS JSON`'s type, JSON_OBJECT's pairs. */
  readonly json?: JsonClauses
  /** ARRAY_AGG's `RESPECT NULLS` / `IGNORE NULLS`, written after the argument. */
  readonly nullTreatment?: { readonly value: 'RESPECT' | 'IGNORE'; readonly span: Span }
  readonly span: Span
}

/** What to do ON EMPTY / ON ERROR: a keyword ('NULL', 'ERROR', 'EMPTY ARRAY', 'TRUE', …) or DEFAULT e. */
export interface JsonBehavior {
  readonly kind: string
  readonly default?: Expr
  readonly span: Span
}

export interface JsonClauses {
  readonly returning?: TypeName
  readonly onEmpty?: JsonBehavior
  readonly onError?: JsonBehavior
  readonly onNull?: 'NULL' | 'ABSENT'
  readonly wrapper?: 'WITHOUT' | 'CONDITIONAL' | 'UNCONDITIONAL'
  /** JSON_OBJECT(k VALUE v, …): the arguments are keys and values, alternating. */
  readonly pairs?: boolean
  /** `s IS JSON [VALUE | SCALAR | ARRAY | OBJECT]`, written as the call IS_JSON(s). */
  readonly isJson?: 'VALUE' | 'SCALAR' | 'ARRAY' | 'OBJECT'
  readonly span: Span
}

/** `OVER w` names a window of the SELECT's WINDOW clause; `OVER (…)` spells one out. */
export type OverWindow = { readonly kind: 'WindowName'; readonly name: Ident; readonly span: Span } | WindowSpec

export interface WindowSpec {
  readonly kind: 'WindowSpec'
  readonly partitionBy: readonly Expr[]
  readonly orderBy: readonly OrderItem[]
  readonly frame?: WindowFrame
  readonly span: Span
}

export interface NamedWindow {
  readonly name: Ident
  readonly spec: WindowSpec
  readonly span: Span
}

/** `ROWS|RANGE BETWEEN lower AND upper`; the short form `ROWS lower` has no upper (CURRENT ROW). */
export interface WindowFrame {
  readonly unit: 'ROWS' | 'RANGE'
  readonly lower: FrameBound
  readonly upper?: FrameBound
  readonly span: Span
}

/** `UNBOUNDED PRECEDING`, `CURRENT ROW`, or `n` / `INTERVAL …` PRECEDING or FOLLOWING. */
export interface FrameBound {
  readonly kind: 'UNBOUNDED' | 'CURRENT_ROW' | 'OFFSET'
  readonly direction: 'PRECEDING' | 'FOLLOWING' | 'CURRENT'
  /** The offset of an OFFSET bound: a number literal or an interval literal. */
  readonly offset?: Literal | IntervalLiteral
  readonly span: Span
}

/** `EXTRACT(unit FROM expr)`. */
export interface Extract {
  readonly kind: 'Extract'
  readonly unit: string
  readonly operand: Expr
  readonly span: Span
}

/** `FLOOR(expr TO unit)` / `CEIL(expr TO unit)`. */
export interface TimeFloorCeil {
  readonly kind: 'TimeFloorCeil'
  readonly fn: 'FLOOR' | 'CEIL'
  readonly operand: Expr
  readonly unit: string
  readonly span: Span
}
