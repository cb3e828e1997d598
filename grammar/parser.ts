// The Flink SQL grammar as Chevrotain rules, producing a CST; to-ast.ts turns that into the AST.
// Rules only: no actions here. Expressions are parsed as flat operator chains; to-ast-expr.ts
// applies precedence (OR < AND < NOT < comparison/IS/BETWEEN/IN/LIKE < || < + - < * / % < unary).
import type { CstNode, IOrAlt, IToken } from 'chevrotain'
import { CstParser } from './chevrotain.js'
import * as T from './tokens.js'

/** Words that may start a query: a parenthesized argument starting with one of these is a subquery. */
function startsQuery(t: IToken): boolean {
  return t.tokenType === T.SELECT || t.tokenType === T.WITH || t.tokenType === T.VALUES
}

/** Chevrotain label shared by the alternatives of choice rules; to-ast reads `children.alt`. */
const ALT_LABEL = { LABEL: 'alt' }

/** An unquoted name spelled `word` (any case): a word that is not reserved, such as ROLLUP. */
function wordIs(t: IToken, word: string): boolean {
  return t.tokenType === T.Identifier && t.image.toUpperCase() === word
}

/** An unquoted name or non-reserved keyword spelled `word` (KEY, VALUE, WITHOUT, UNKNOWN, …). */
function nameIs(t: IToken, word: string): boolean {
  return t.tokenType.CATEGORIES?.includes(T.Name) === true && t.tokenType !== T.QuotedIdentifier && t.image.toUpperCase() === word
}

/**
 * Whether a SQL/JSON clause starts here inside a call's parentheses (json-clauses.ts): `RETURNING t`,
 * `DEFAULT e ON …`, `[EMPTY] word ON …`, `WITH … WRAPPER`, `WITHOUT [ARRAY] WRAPPER`. The words stay
 * names elsewhere: `returning` or `default` followed by ',' or ')' is a column.
 */
function startsJsonClause(la: (k: number) => IToken): boolean {
  const t = la(1)
  if (t.tokenType === T.WITH) return true
  if (nameIs(t, 'RETURNING')) return la(2).tokenType.CATEGORIES?.includes(T.Name) === true
  if (nameIs(t, 'WITHOUT')) return nameIs(la(2), 'ARRAY') || nameIs(la(2), 'WRAPPER')
  if (nameIs(t, 'DEFAULT')) {
    // DEFAULT <expression> ON: an ON at this depth before the argument ends
    let depth = 0
    for (let k = 2;; k++) {
      const u = la(k).tokenType
      if (u === T.LParen) depth++
      else if (u === T.RParen && --depth < 0) return false
      else if (depth === 0 && (u === T.Comma || u.name === 'EOF')) return false
      else if (depth === 0 && u === T.ON) return true
    }
  }
  const word = t.tokenType === T.NULL || t.tokenType === T.TRUE || t.tokenType === T.FALSE || t.tokenType.CATEGORIES?.includes(T.Name) === true
  return word && (la(2).tokenType === T.ON || (la(2).tokenType.CATEGORIES?.includes(T.Name) === true && la(3).tokenType === T.ON))
}

/**
 * Whether the `(` next starts a grouping-set list — `()` or `(a, b)`, a comma at its own depth —
 * rather than a parenthesized expression such as `(a + b)`.
 */
function isGroupingTuple(la: (k: number) => IToken): boolean {
  if (la(2).tokenType === T.RParen) return true
  let depth = 0
  for (let k = 1;; k++) {
    const t = la(k).tokenType
    if (t === T.LParen) depth++
    else if (t === T.RParen && --depth === 0) return false
    else if (t === T.Comma && depth === 1) return true
    else if (t.name === 'EOF') return false
  }
}

export class SqlParser extends CstParser {
  /**
   * Each OR's alternatives, built on first use: Chevrotain would otherwise allocate the array and
   * its closures on every call (its documented performance advice).
   */
  private readonly alts: Record<string, IOrAlt<unknown>[]> = {}

  constructor(options: { validate?: boolean } = {}) {
    super([...T.ALL_TOKENS], {
      maxLookahead: 3,
      nodeLocationTracking: 'onlyOffset',
      recoveryEnabled: false,
      skipValidations: !options.validate,
    })
    this.performSelfAnalysis()
  }

  // ---------------------------------------------------------------- scripts and statements

  /** Statements separated by ';'; empty statements are allowed and ignored. */
  script = this.RULE('script', () => {
    this.OPTION(() => this.SUBRULE(this.statement))
    this.MANY(() => {
      this.CONSUME(T.Semicolon)
      this.OPTION2(() => this.SUBRULE2(this.statement))
    })
  })

  /** One expression, for tools and tests; a trailing ';' marks where it may end. */
  standaloneExpression = this.RULE('standaloneExpression', () => {
    this.SUBRULE(this.expression)
    this.OPTION(() => this.CONSUME(T.Semicolon))
  })

  statement = this.RULE('statement', () => {
    this.OR(this.alts.statement1 ??= [
      // CREATE / DROP [TEMPORARY] FUNCTION: the GATE reads FUNCTION before CREATE's and DROP's own rules try.
      { GATE: () => this.functionDdlAhead(), IGNORE_AMBIGUITIES: true, ALT: () => this.SUBRULE(this.functionStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.createStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.dropStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.insertStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.statementSet, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.query, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.setStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.resetStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.explainStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.showStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.stopJobStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.describeStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.alterStatement, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.useStatement, ALT_LABEL) },
    ])
  })

  /** `CREATE FUNCTION` or `DROP FUNCTION` (with TEMPORARY) next. */
  private functionDdlAhead(): boolean {
    const t = this.LA(1).tokenType
    if (t !== T.CREATE && t !== T.DROP) return false
    return this.LA(this.LA(2).tokenType === T.TEMPORARY ? 3 : 2).tokenType === T.FUNCTION
  }

  /**
   * `CREATE [TEMPORARY] FUNCTION [IF NOT EXISTS] f AS 'path' [LANGUAGE TYPESCRIPT|JAVASCRIPT]` and
   * `DROP [TEMPORARY] FUNCTION [IF EXISTS] f`; to-ast checks the words and which clauses go with which.
   */
  functionStatement = this.RULE('functionStatement', () => {
    this.OR(this.alts.functionStatement1 ??= [
      { ALT: () => this.CONSUME(T.CREATE) },
      { ALT: () => this.CONSUME(T.DROP) },
    ])
    this.OPTION(() => this.CONSUME(T.TEMPORARY))
    this.CONSUME(T.FUNCTION)
    this.OPTION2(() => {
      this.CONSUME(T.IF)
      this.OPTION3(() => this.CONSUME(T.NOT))
      this.CONSUME(T.EXISTS)
    })
    this.SUBRULE(this.qualifiedName)
    this.OPTION4(() => {
      this.CONSUME(T.AS)
      this.CONSUME(T.StringLit)
      this.OPTION5(() => {
        this.CONSUME(T.Name, { LABEL: 'languageWord' })
        this.CONSUME2(T.Name, { LABEL: 'language' })
      })
    })
  })

  createStatement = this.RULE('createStatement', () => {
    this.CONSUME(T.CREATE)
    this.OPTION(() => this.CONSUME(T.TEMPORARY))
    this.OR(this.alts.createStatement1 ??= [
      { ALT: () => this.SUBRULE(this.createTableBody) },
      { ALT: () => this.SUBRULE(this.createViewBody) },
      { ALT: () => this.SUBRULE(this.createCatalogBody) },
      { ALT: () => this.SUBRULE(this.createDatabaseBody) },
    ])
  })

  createTableBody = this.RULE('createTableBody', () => {
    this.CONSUME(T.TABLE)
    this.OPTION(() => this.SUBRULE(this.ifNotExists))
    this.SUBRULE(this.qualifiedName)
    // Without LIKE the columns are required; to-ast checks that.
    this.OPTION4(() => {
      this.CONSUME(T.LParen)
      this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.tableElement) })
      this.CONSUME(T.RParen)
    })
    this.OPTION2(() => this.SUBRULE(this.commentClause))
    this.OPTION7(() => {
      this.CONSUME(T.PARTITIONED)
      this.CONSUME(T.BY)
      this.SUBRULE2(this.nameList)
    })
    this.OPTION3(() => {
      this.CONSUME(T.WITH)
      this.SUBRULE(this.optionList)
    })
    this.OPTION5(() => this.SUBRULE(this.likeClause))
    // CREATE TABLE … AS SELECT: the table takes its columns from the query, which then fills it.
    this.OPTION6(() => {
      this.CONSUME(T.AS)
      this.SUBRULE(this.query)
    })
  })

  /** `LIKE t [(INCLUDING ALL OVERWRITING OPTIONS …)]`; the words are checked by to-ast. */
  likeClause = this.RULE('likeClause', () => {
    this.CONSUME(T.LIKE)
    this.SUBRULE(this.qualifiedName)
    this.OPTION(() => {
      this.CONSUME(T.LParen)
      this.AT_LEAST_ONE(() => this.SUBRULE(this.likeOption))
      this.CONSUME(T.RParen)
    })
  })

  likeOption = this.RULE('likeOption', () => {
    this.CONSUME(T.Name, { LABEL: 'strategy' })
    this.OR(this.alts.likeOption1 ??= [
      { ALT: () => this.CONSUME(T.ALL, { LABEL: 'feature' }) },
      { ALT: () => this.CONSUME2(T.Name, { LABEL: 'feature' }) },
    ])
  })

  ifNotExists = this.RULE('ifNotExists', () => {
    this.CONSUME(T.IF)
    this.CONSUME(T.NOT)
    this.CONSUME(T.EXISTS)
  })

  tableElement = this.RULE('tableElement', () => {
    this.OR(this.alts.tableElement1 ??= [
      { ALT: () => this.SUBRULE(this.watermarkDef, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.primaryKeyDef, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.columnDef, ALT_LABEL) },
    ])
  })

  watermarkDef = this.RULE('watermarkDef', () => {
    this.CONSUME(T.WATERMARK)
    this.CONSUME(T.FOR)
    this.CONSUME(T.Name)
    this.CONSUME(T.AS)
    this.SUBRULE(this.expression)
  })

  /** Table-level `[CONSTRAINT c] PRIMARY KEY (a, b) [NOT] ENFORCED`. */
  primaryKeyDef = this.RULE('primaryKeyDef', () => {
    this.OPTION(() => this.SUBRULE(this.constraintName))
    this.CONSUME(T.PRIMARY)
    this.CONSUME(T.KEY)
    this.SUBRULE(this.nameList)
    this.OPTION2(() => this.SUBRULE(this.enforcement))
  })

  constraintName = this.RULE('constraintName', () => {
    this.CONSUME(T.CONSTRAINT)
    this.CONSUME(T.Name)
  })

  enforcement = this.RULE('enforcement', () => {
    this.OPTION(() => this.CONSUME(T.NOT))
    this.CONSUME(T.ENFORCED)
  })

  /** `name TYPE attrs…` or the computed `name AS expr`. */
  columnDef = this.RULE('columnDef', () => {
    this.CONSUME(T.Name)
    this.OR(this.alts.columnDef1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.AS)
          this.SUBRULE(this.expression)
          this.OPTION(() => this.SUBRULE(this.commentClause))
        },
      },
      {
        ALT: () => {
          this.SUBRULE(this.typeName)
          this.MANY(() => this.SUBRULE(this.columnAttribute))
        },
      },
    ])
  })

  columnAttribute = this.RULE('columnAttribute', () => {
    this.OR(this.alts.columnAttribute1 ??= [
      { ALT: () => this.SUBRULE(this.metadataAttribute, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.columnPrimaryKey, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.commentClause, ALT_LABEL) },
    ])
  })

  metadataAttribute = this.RULE('metadataAttribute', () => {
    this.CONSUME(T.METADATA)
    this.OPTION(() => {
      this.CONSUME(T.FROM)
      this.CONSUME(T.StringLit)
    })
    this.OPTION2(() => this.CONSUME(T.VIRTUAL))
  })

  columnPrimaryKey = this.RULE('columnPrimaryKey', () => {
    this.OPTION(() => this.SUBRULE(this.constraintName))
    this.CONSUME(T.PRIMARY)
    this.CONSUME(T.KEY)
    this.OPTION2(() => this.SUBRULE(this.enforcement))
  })

  commentClause = this.RULE('commentClause', () => {
    this.CONSUME(T.COMMENT)
    this.CONSUME(T.StringLit)
  })

  /** `('k' = 'v', …)` after WITH. */
  optionList = this.RULE('optionList', () => {
    this.CONSUME(T.LParen)
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.optionPair) })
    this.CONSUME(T.RParen)
  })

  optionPair = this.RULE('optionPair', () => {
    this.CONSUME(T.StringLit, { LABEL: 'key' })
    this.CONSUME(T.Eq)
    this.CONSUME2(T.StringLit, { LABEL: 'value' })
  })

  createViewBody = this.RULE('createViewBody', () => {
    this.CONSUME(T.VIEW)
    this.OPTION(() => this.SUBRULE(this.ifNotExists))
    this.SUBRULE(this.qualifiedName)
    this.OPTION2(() => this.SUBRULE(this.nameList))
    this.OPTION3(() => this.SUBRULE(this.commentClause))
    this.CONSUME(T.AS)
    this.SUBRULE(this.query)
  })

  /** `CATALOG [IF NOT EXISTS] c [WITH (…)]` (Flink's CREATE CATALOG; the type is checked by the catalog). */
  createCatalogBody = this.RULE('createCatalogBody', () => {
    this.CONSUME(T.CATALOG)
    this.OPTION(() => this.SUBRULE(this.ifNotExists))
    this.CONSUME(T.Name)
    this.OPTION2(() => {
      this.CONSUME(T.WITH)
      this.SUBRULE(this.optionList)
    })
  })

  /** `DATABASE [IF NOT EXISTS] [c.]db [COMMENT '…'] [WITH (…)]`. */
  createDatabaseBody = this.RULE('createDatabaseBody', () => {
    this.CONSUME(T.DATABASE)
    this.OPTION(() => this.SUBRULE(this.ifNotExists))
    this.SUBRULE(this.qualifiedName)
    this.OPTION2(() => this.SUBRULE(this.commentClause))
    this.OPTION7(() => {
      this.CONSUME(T.PARTITIONED)
      this.CONSUME(T.BY)
      this.SUBRULE2(this.nameList)
    })
    this.OPTION3(() => {
      this.CONSUME(T.WITH)
      this.SUBRULE(this.optionList)
    })
  })

  dropStatement = this.RULE('dropStatement', () => {
    this.CONSUME(T.DROP)
    this.OPTION(() => this.CONSUME(T.TEMPORARY))
    this.OR(this.alts.dropStatement1 ??= [
      { ALT: () => this.CONSUME(T.TABLE) },
      { ALT: () => this.CONSUME(T.VIEW) },
      { ALT: () => this.CONSUME(T.DATABASE) },
      { ALT: () => this.CONSUME(T.CATALOG) },
    ])
    this.OPTION2(() => {
      this.CONSUME(T.IF)
      this.CONSUME(T.EXISTS)
    })
    this.SUBRULE(this.qualifiedName)
    // RESTRICT or CASCADE (words, not keywords: to-ast checks which).
    this.OPTION3(() => this.CONSUME(T.Name))
  })

  /** `USE CATALOG c` or `USE [c.]db`. */
  useStatement = this.RULE('useStatement', () => {
    this.CONSUME(T.USE)
    this.OPTION(() => this.CONSUME(T.CATALOG))
    this.SUBRULE(this.qualifiedName)
  })

  insertStatement = this.RULE('insertStatement', () => {
    this.CONSUME(T.INSERT)
    this.OR(this.alts.insertStatement1 ??= [
      { ALT: () => this.CONSUME(T.INTO) },
      { ALT: () => this.CONSUME(T.OVERWRITE) },
    ])
    this.OPTION(() => this.CONSUME(T.TABLE))
    this.SUBRULE(this.qualifiedName)
    this.OPTION3(() => this.SUBRULE(this.partitionSpec))
    this.OPTION2(() => this.SUBRULE(this.nameList))
    this.SUBRULE(this.query)
  })

  /** `PARTITION (k = 'v', …)`: an INSERT's static partition values. */
  partitionSpec = this.RULE('partitionSpec', () => {
    this.CONSUME(T.PARTITION)
    this.CONSUME(T.LParen)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.partitionValue) })
    this.CONSUME(T.RParen)
  })

  partitionValue = this.RULE('partitionValue', () => {
    this.CONSUME(T.Name)
    this.CONSUME(T.Eq)
    this.OPTION(() => this.CONSUME(T.AddOp))
    this.OR(this.alts.partitionValue1 ??= [
      { ALT: () => this.CONSUME(T.StringLit) },
      { ALT: () => this.CONSUME(T.NumberLit) },
    ])
  })

  /**
   * `EXECUTE STATEMENT SET BEGIN stmt; … END` or `BEGIN STATEMENT SET; stmt; … END`. Any statement
   * parses inside, so to-ast can say that only INSERTs belong there, pointing at the one that does not.
   */
  statementSet = this.RULE('statementSet', () => {
    this.OR(this.alts.statementSet1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.EXECUTE)
          this.CONSUME(T.STATEMENT)
          this.CONSUME(T.SET)
          this.CONSUME(T.BEGIN)
        },
      },
      {
        ALT: () => {
          this.CONSUME2(T.BEGIN)
          this.CONSUME2(T.STATEMENT)
          this.CONSUME2(T.SET)
          this.CONSUME(T.Semicolon)
        },
      },
    ])
    this.SUBRULE(this.statementSetBody)
  })

  /** `EXPLAIN STATEMENT SET BEGIN stmt; … END`, Flink's form (without EXECUTE, which EXPLAIN's details would make ambiguous). */
  explainedStatementSet = this.RULE('explainedStatementSet', () => {
    this.CONSUME(T.STATEMENT)
    this.CONSUME(T.SET)
    this.CONSUME(T.BEGIN)
    this.SUBRULE(this.statementSetBody)
  })

  statementSetBody = this.RULE('statementSetBody', () => {
    this.MANY(() => {
      this.OPTION(() => this.SUBRULE(this.statement))
      this.CONSUME(T.Semicolon)
    })
    this.CONSUME(T.END)
  })

  setStatement = this.RULE('setStatement', () => {
    this.CONSUME(T.SET)
    this.OPTION(() => {
      this.SUBRULE(this.optionKey)
      this.CONSUME(T.Eq)
      this.SUBRULE(this.optionValue)
    })
  })

  resetStatement = this.RULE('resetStatement', () => {
    this.CONSUME(T.RESET)
    this.OPTION(() => this.SUBRULE(this.optionKey))
  })

  /** `'k'` or an unquoted key such as `table.exec.state.ttl` or `pipeline.max-parallelism`. */
  optionKey = this.RULE('optionKey', () => {
    this.OR(this.alts.optionKey1 ??= [
      { ALT: () => this.CONSUME(T.StringLit, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.dottedWords, ALT_LABEL) },
    ])
  })

  optionValue = this.RULE('optionValue', () => {
    this.OR(this.alts.optionValue1 ??= [
      { ALT: () => this.CONSUME(T.StringLit, ALT_LABEL) },
      { ALT: () => this.CONSUME(T.NumberLit, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.dottedWords, ALT_LABEL) },
    ])
  })

  dottedWords = this.RULE('dottedWords', () => {
    this.CONSUME(T.Word)
    this.MANY(() => {
      this.OR(this.alts.dottedWords1 ??= [
        { ALT: () => this.CONSUME(T.Dot) },
        { ALT: () => this.CONSUME(T.Minus) },
      ])
      this.CONSUME2(T.Word)
    })
  })

  /** `EXPLAIN [PLAN FOR | detail, …] (INSERT … | query)`. */
  explainStatement = this.RULE('explainStatement', () => {
    this.CONSUME(T.EXPLAIN)
    // STATEMENT is a name too: `EXPLAIN STATEMENT SET …` has no details.
    this.OPTION({
      GATE: () => this.LA(1).tokenType !== T.STATEMENT || this.LA(2).tokenType !== T.SET,
      DEF: () =>
        this.OR(this.alts.explainStatement1 ??= [
          {
            ALT: () => {
              this.CONSUME(T.PLAN)
              this.CONSUME(T.FOR)
            },
          },
          { ALT: () => this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.CONSUME(T.Name) }) },
        ]),
    })
    this.OR2(this.alts.explainStatement2 ??= [
      { ALT: () => this.SUBRULE(this.insertStatement) },
      { ALT: () => this.SUBRULE(this.explainedStatementSet) },
      { ALT: () => this.SUBRULE(this.query) },
    ])
  })

  showStatement = this.RULE('showStatement', () => {
    this.CONSUME(T.SHOW)
    this.OR(this.alts.showStatement1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.TABLES)
          this.OPTION(() => {
            this.SUBRULE(this.fromOrIn)
            this.SUBRULE(this.qualifiedName)
          })
          this.OPTION2(() => this.SUBRULE(this.showLike))
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.COLUMNS)
          this.SUBRULE2(this.fromOrIn)
          this.SUBRULE2(this.qualifiedName)
          this.OPTION3(() => this.SUBRULE2(this.showLike))
        },
      },
      { ALT: () => this.CONSUME(T.VIEWS) },
      { ALT: () => this.CONSUME(T.FUNCTIONS) },
      { ALT: () => this.CONSUME(T.JOBS) },
      { ALT: () => this.CONSUME(T.CATALOGS) },
      { ALT: () => this.CONSUME(T.DATABASES) },
      {
        ALT: () => {
          this.CONSUME(T.CURRENT)
          this.OR2(this.alts.showStatement2 ??= [
            { ALT: () => this.CONSUME(T.CATALOG) },
            { ALT: () => this.CONSUME(T.DATABASE) },
          ])
        },
      },
      { ALT: () => this.SUBRULE(this.showCreate) },
    ])
  })

  fromOrIn = this.RULE('fromOrIn', () => {
    this.OR(this.alts.fromOrIn1 ??= [
      { ALT: () => this.CONSUME(T.FROM) },
      { ALT: () => this.CONSUME(T.IN) },
    ])
  })

  /** `[NOT] LIKE 'pattern'` of SHOW TABLES / SHOW COLUMNS. */
  showLike = this.RULE('showLike', () => {
    this.OPTION(() => this.CONSUME(T.NOT))
    this.CONSUME(T.LIKE)
    this.CONSUME(T.StringLit)
  })

  /** `SHOW CREATE TABLE t` / `SHOW CREATE VIEW v`. */
  showCreate = this.RULE('showCreate', () => {
    this.CONSUME(T.CREATE)
    this.OR(this.alts.showCreate1 ??= [
      { ALT: () => this.CONSUME(T.TABLE) },
      { ALT: () => this.CONSUME(T.VIEW) },
    ])
    this.SUBRULE(this.qualifiedName)
  })

  /**
   * `ALTER TABLE|VIEW [IF EXISTS] t SET ('k' = 'v', …) | RESET ('k', …) | RENAME TO u`, and for tables
   * `ADD|MODIFY element | (element, …)`, `DROP PRIMARY KEY | WATERMARK | c | (c, …)`, `RENAME c TO d`.
   */
  alterStatement = this.RULE('alterStatement', () => {
    this.CONSUME(T.ALTER)
    this.OR(this.alts.alterStatement1 ??= [
      { ALT: () => this.CONSUME(T.TABLE) },
      { ALT: () => this.CONSUME(T.VIEW) },
    ])
    this.OPTION(() => {
      this.CONSUME(T.IF)
      this.CONSUME(T.EXISTS)
    })
    this.SUBRULE(this.qualifiedName)
    this.OR2(this.alts.alterStatement2 ??= [
      {
        ALT: () => {
          this.CONSUME(T.SET)
          this.SUBRULE(this.optionList)
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.RESET)
          this.CONSUME(T.LParen)
          this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.CONSUME(T.StringLit) })
          this.CONSUME(T.RParen)
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.RENAME)
          this.OR3(this.alts.alterStatement3 ??= [
            {
              ALT: () => {
                this.CONSUME(T.TO)
                this.SUBRULE2(this.qualifiedName, { LABEL: 'newName' })
              },
            },
            {
              ALT: () => {
                this.CONSUME(T.Name, { LABEL: 'oldColumn' })
                this.CONSUME2(T.TO)
                this.CONSUME2(T.Name, { LABEL: 'newColumn' })
              },
            },
          ])
        },
      },
      {
        ALT: () => {
          this.OR4(this.alts.alterStatement4 ??= [
            { ALT: () => this.CONSUME(T.ADD) },
            { ALT: () => this.CONSUME(T.MODIFY) },
          ])
          this.OR5(this.alts.alterStatement5 ??= [
            {
              ALT: () => {
                this.CONSUME2(T.LParen)
                this.AT_LEAST_ONE_SEP2({ SEP: T.Comma, DEF: () => this.SUBRULE(this.alterElement) })
                this.CONSUME2(T.RParen)
              },
            },
            { ALT: () => this.SUBRULE2(this.alterElement) },
          ])
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.DROP)
          this.OR6(this.alts.alterStatement6 ??= [
            {
              ALT: () => {
                this.CONSUME(T.PRIMARY)
                this.CONSUME(T.KEY)
              },
            },
            { ALT: () => this.CONSUME(T.WATERMARK) },
            { ALT: () => this.SUBRULE(this.constraintName) },
            { ALT: () => this.SUBRULE(this.nameList) },
            { ALT: () => this.CONSUME3(T.Name, { LABEL: 'dropColumn' }) },
          ])
        },
      },
    ])
  })

  /** One element of ALTER TABLE … ADD / MODIFY: a column (placed FIRST or AFTER another), a watermark, a primary key. */
  alterElement = this.RULE('alterElement', () => {
    this.SUBRULE(this.tableElement)
    this.OPTION(() => {
      this.OR(this.alts.alterElement1 ??= [
        { ALT: () => this.CONSUME(T.FIRST) },
        {
          ALT: () => {
            this.CONSUME(T.AFTER)
            this.CONSUME(T.Name, { LABEL: 'after' })
          },
        },
      ])
    })
  })

  /** `STOP JOB 'id' [WITH SAVEPOINT]` (Flink's SQL client). */
  stopJobStatement = this.RULE('stopJobStatement', () => {
    this.CONSUME(T.STOP)
    this.CONSUME(T.JOB)
    this.CONSUME(T.StringLit)
    this.OPTION(() => {
      this.CONSUME(T.WITH)
      this.CONSUME(T.SAVEPOINT)
    })
  })

  describeStatement = this.RULE('describeStatement', () => {
    this.OR(this.alts.describeStatement1 ??= [
      { ALT: () => this.CONSUME(T.DESCRIBE) },
      { ALT: () => this.CONSUME(T.DESC) },
    ])
    this.SUBRULE(this.qualifiedName)
  })

  // ---------------------------------------------------------------- names

  qualifiedName = this.RULE('qualifiedName', () => {
    this.CONSUME(T.Name)
    this.MANY(() => {
      this.CONSUME(T.Dot)
      this.CONSUME2(T.Name)
    })
  })

  /** `(a, b, …)` */
  nameList = this.RULE('nameList', () => {
    this.CONSUME(T.LParen)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.CONSUME(T.Name) })
    this.CONSUME(T.RParen)
  })

  /** `[AS] alias` */
  alias = this.RULE('alias', () => {
    this.OPTION(() => this.CONSUME(T.AS))
    this.CONSUME(T.Name)
  })

  // ---------------------------------------------------------------- queries

  /** `[WITH …] body [ORDER BY …] [LIMIT n | FETCH FIRST n ROWS ONLY]` */
  query = this.RULE('query', () => {
    this.OPTION(() => this.SUBRULE(this.withClause))
    this.SUBRULE(this.queryExpression)
    this.OPTION2(() => this.SUBRULE(this.orderByClause))
    this.OPTION3(() => this.SUBRULE(this.limitClause))
  })

  withClause = this.RULE('withClause', () => {
    this.CONSUME(T.WITH)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.cte) })
  })

  cte = this.RULE('cte', () => {
    this.CONSUME(T.Name)
    this.OPTION(() => this.SUBRULE(this.nameList))
    this.CONSUME(T.AS)
    this.CONSUME(T.LParen)
    this.SUBRULE(this.query)
    this.CONSUME(T.RParen)
  })

  /** UNION and EXCEPT, left-associative, binding looser than INTERSECT. */
  queryExpression = this.RULE('queryExpression', () => {
    this.SUBRULE(this.intersectTerm)
    this.MANY(() => this.SUBRULE(this.unionTail))
  })

  unionTail = this.RULE('unionTail', () => {
    this.OR(this.alts.unionTail1 ??= [
      { ALT: () => this.CONSUME(T.UNION) },
      { ALT: () => this.CONSUME(T.EXCEPT) },
    ])
    this.OPTION(() => this.SUBRULE(this.setQuantifier))
    this.SUBRULE(this.intersectTerm)
  })

  intersectTerm = this.RULE('intersectTerm', () => {
    this.SUBRULE(this.queryPrimary)
    this.MANY(() => this.SUBRULE(this.intersectTail))
  })

  intersectTail = this.RULE('intersectTail', () => {
    this.CONSUME(T.INTERSECT)
    this.OPTION(() => this.SUBRULE(this.setQuantifier))
    this.SUBRULE(this.queryPrimary)
  })

  setQuantifier = this.RULE('setQuantifier', () => {
    this.OR(this.alts.setQuantifier1 ??= [
      { ALT: () => this.CONSUME(T.ALL) },
      { ALT: () => this.CONSUME(T.DISTINCT) },
    ])
  })

  queryPrimary = this.RULE('queryPrimary', () => {
    this.OR(this.alts.queryPrimary1 ??= [
      { ALT: () => this.SUBRULE(this.select) },
      { ALT: () => this.SUBRULE(this.values) },
      {
        ALT: () => {
          this.CONSUME(T.LParen)
          this.SUBRULE(this.query)
          this.CONSUME(T.RParen)
        },
      },
    ])
  })

  values = this.RULE('values', () => {
    this.CONSUME(T.VALUES)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.valuesRow) })
  })

  valuesRow = this.RULE('valuesRow', () => {
    this.CONSUME(T.LParen)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) })
    this.CONSUME(T.RParen)
  })

  /** WHERE, GROUP BY and HAVING only follow a FROM clause (as in Flink / Calcite). */
  select = this.RULE('select', () => {
    this.CONSUME(T.SELECT)
    this.MANY(() => this.SUBRULE(this.hintBlock))
    this.OPTION(() => this.SUBRULE(this.setQuantifier))
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.selectItem) })
    this.OPTION2(() => {
      this.CONSUME(T.FROM)
      this.SUBRULE(this.fromClause)
      this.OPTION3(() => this.SUBRULE(this.whereClause))
      this.OPTION4(() => this.SUBRULE(this.groupByClause))
      this.OPTION5(() => this.SUBRULE(this.havingClause))
      this.OPTION6(() => this.SUBRULE(this.windowClause))
    })
  })

  /** `*`, `t.*`, or an expression with an optional alias. */
  selectItem = this.RULE('selectItem', () => {
    this.OR(this.alts.selectItem1 ??= [
      { ALT: () => this.CONSUME(T.Star) },
      {
        ALT: () => {
          this.CONSUME(T.Name)
          this.CONSUME(T.Dot)
          this.CONSUME2(T.Star)
        },
      },
      {
        ALT: () => {
          this.SUBRULE(this.expression)
          this.OPTION(() => this.SUBRULE(this.alias))
        },
      },
    ])
  })

  whereClause = this.RULE('whereClause', () => {
    this.CONSUME(T.WHERE)
    this.SUBRULE(this.expression)
  })

  groupByClause = this.RULE('groupByClause', () => {
    this.CONSUME(T.GROUP)
    this.CONSUME(T.BY)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.groupingElement) })
  })

  /**
   * One GROUP BY element: `GROUPING SETS (…)`, `ROLLUP(…)`, `CUBE(…)`, a parenthesized list `(a, b)`
   * or `()` (within those), or an expression. GROUPING, SETS, ROLLUP and CUBE are not reserved, so
   * the alternatives are told apart by the next tokens.
   */
  groupingElement = this.RULE('groupingElement', () => {
    // One token of lookahead: the GATEs decide (three tokens over expressions cost 60-500 ms at import).
    this.OR({ MAX_LOOKAHEAD: 1, DEF: this.alts.groupingElement1 ??= [
      {
        GATE: () => wordIs(this.LA(1), 'GROUPING') && wordIs(this.LA(2), 'SETS') && this.LA(3).tokenType === T.LParen,
        ALT: () => {
          this.CONSUME(T.Name, { LABEL: 'groupingSets' })
          this.CONSUME2(T.Name)
          this.CONSUME(T.LParen)
          this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.groupingElement) })
          this.CONSUME(T.RParen)
        },
      },
      {
        GATE: () => (wordIs(this.LA(1), 'ROLLUP') || wordIs(this.LA(1), 'CUBE')) && this.LA(2).tokenType === T.LParen,
        ALT: () => {
          this.CONSUME3(T.Name, { LABEL: 'rollupOrCube' })
          this.CONSUME2(T.LParen)
          this.AT_LEAST_ONE_SEP2({ SEP: T.Comma, DEF: () => this.SUBRULE2(this.groupingElement) })
          this.CONSUME2(T.RParen)
        },
      },
      {
        GATE: () => this.LA(1).tokenType === T.LParen && isGroupingTuple(k => this.LA(k)),
        ALT: () => {
          this.CONSUME3(T.LParen, { LABEL: 'tuple' })
          this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) })
          this.CONSUME3(T.RParen)
        },
      },
      { ALT: () => this.SUBRULE2(this.expression) },
    ].map(a => ({ ...a, IGNORE_AMBIGUITIES: true })) })
  })

  havingClause = this.RULE('havingClause', () => {
    this.CONSUME(T.HAVING)
    this.SUBRULE(this.expression)
  })

  orderByClause = this.RULE('orderByClause', () => {
    this.CONSUME(T.ORDER)
    this.CONSUME(T.BY)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.orderItem) })
  })

  orderItem = this.RULE('orderItem', () => {
    this.SUBRULE(this.expression)
    this.OPTION(() => {
      this.OR(this.alts.orderItem1 ??= [
        { ALT: () => this.CONSUME(T.ASC) },
        { ALT: () => this.CONSUME(T.DESC) },
      ])
    })
    this.OPTION2(() => {
      this.CONSUME(T.NULLS)
      this.OR2(this.alts.orderItem2 ??= [
        { ALT: () => this.CONSUME(T.FIRST) },
        { ALT: () => this.CONSUME(T.LAST) },
      ])
    })
  })

  limitClause = this.RULE('limitClause', () => {
    this.OR(this.alts.limitClause1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.LIMIT)
          this.SUBRULE(this.expression)
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.FETCH)
          this.OR2(this.alts.limitClauseInner1 ??= [
            { ALT: () => this.CONSUME(T.FIRST) },
            { ALT: () => this.CONSUME(T.NEXT) },
          ])
          this.SUBRULE2(this.expression)
          this.OR3(this.alts.limitClauseInner2 ??= [
            { ALT: () => this.CONSUME(T.ROW) },
            { ALT: () => this.CONSUME(T.ROWS) },
          ])
          this.CONSUME(T.ONLY)
        },
      },
    ])
  })

  // ---------------------------------------------------------------- FROM

  /** Joins are left-associative; a comma is a CROSS join. */
  fromClause = this.RULE('fromClause', () => {
    this.SUBRULE(this.fromItem)
    this.MANY(() => this.SUBRULE(this.joinTail))
  })

  joinTail = this.RULE('joinTail', () => {
    this.OR(this.alts.joinTail1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.Comma)
          this.SUBRULE(this.fromItem)
        },
      },
      {
        ALT: () => {
          this.OPTION(() => this.SUBRULE(this.joinType))
          this.CONSUME(T.JOIN)
          this.SUBRULE2(this.fromItem)
          this.OPTION2(() => {
            this.CONSUME(T.ON)
            this.SUBRULE(this.expression)
          })
        },
      },
    ])
  })

  joinType = this.RULE('joinType', () => {
    this.OR(this.alts.joinType1 ??= [
      { ALT: () => this.CONSUME(T.INNER) },
      { ALT: () => this.CONSUME(T.CROSS) },
      {
        ALT: () => {
          this.OR2(this.alts.joinTypeInner1 ??= [
            { ALT: () => this.CONSUME(T.LEFT) },
            { ALT: () => this.CONSUME(T.RIGHT) },
            { ALT: () => this.CONSUME(T.FULL) },
          ])
          this.OPTION(() => this.CONSUME(T.OUTER))
        },
      },
    ])
  })

  fromItem = this.RULE('fromItem', () => {
    this.OR(this.alts.fromItem1 ??= [
      { GATE: () => (wordIs(this.LA(1), 'UNNEST') && this.LA(2).tokenType === T.LParen) || (this.LA(1).tokenType === T.LATERAL && wordIs(this.LA(2), 'UNNEST')),
        ALT: () => this.SUBRULE(this.unnestRef, ALT_LABEL) },
      // A name and '(' : a table function call (a table's name is never followed by '(').
      { GATE: () => this.LA(2).tokenType === T.LParen && this.LA(1).tokenType.CATEGORIES?.includes(T.Name) === true,
        ALT: () => this.SUBRULE(this.tableFunctionRef, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.windowTvfRef, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.subqueryRef, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.tableRef, ALT_LABEL) },
    ])
  })

  /** `f(input => TABLE t PARTITION BY k, arg => 1) [[AS] alias]`: a process table function, arguments as a window TVF's. */
  tableFunctionRef = this.RULE('tableFunctionRef', () => {
    this.CONSUME(T.Name)
    this.CONSUME(T.LParen)
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.tvfArg) })
    this.CONSUME(T.RParen)
    this.OPTION(() => this.SUBRULE(this.alias))
  })

  /** `[LATERAL] UNNEST(expr, …) [WITH ORDINALITY] [[AS] alias [(col, …)]]`: UNNEST and ORDINALITY are plain words here; to-ast checks them. */
  unnestRef = this.RULE('unnestRef', () => {
    this.OPTION(() => this.CONSUME(T.LATERAL))
    this.CONSUME(T.Identifier)
    this.CONSUME(T.LParen)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) })
    this.CONSUME(T.RParen)
    this.OPTION2(() => {
      this.CONSUME(T.WITH)
      this.CONSUME2(T.Identifier)
    })
    this.OPTION3(() => {
      this.SUBRULE(this.alias)
      this.OPTION4(() => this.SUBRULE(this.nameList))
    })
  })

  /** `name [FOR SYSTEM_TIME AS OF expr] [hints] [[AS] alias] [hints]` — Flink writes hints before the alias; both places are accepted. */
  tableRef = this.RULE('tableRef', () => {
    this.SUBRULE(this.qualifiedName)
    this.OPTION2(() => this.SUBRULE(this.systemTimeAsOf))
    this.MANY(() => this.SUBRULE(this.hintBlock))
    this.OPTION(() => this.SUBRULE(this.alias))
    this.MANY2(() => this.SUBRULE2(this.hintBlock))
  })

  /** `FOR SYSTEM_TIME AS OF expr` (a temporal join's version time); to-ast checks the two words. */
  systemTimeAsOf = this.RULE('systemTimeAsOf', () => {
    this.CONSUME(T.FOR)
    this.CONSUME(T.Name)
    this.CONSUME(T.AS)
    this.CONSUME2(T.Name)
    this.SUBRULE(this.expression)
  })

  /** `(query) [[AS] alias [(col, …)]]` */
  subqueryRef = this.RULE('subqueryRef', () => {
    this.CONSUME(T.LParen)
    this.SUBRULE(this.query)
    this.CONSUME(T.RParen)
    this.OPTION(() => {
      this.SUBRULE(this.alias)
      this.OPTION2(() => this.SUBRULE(this.nameList))
    })
  })

  /** `TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) [AS] alias` */
  windowTvfRef = this.RULE('windowTvfRef', () => {
    this.CONSUME(T.TABLE)
    this.CONSUME(T.LParen)
    this.CONSUME(T.Name)
    this.CONSUME2(T.LParen)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.tvfArg) })
    this.CONSUME(T.RParen)
    this.CONSUME2(T.RParen)
    this.OPTION(() => this.SUBRULE(this.alias))
  })

  /** A positional or named (`SIZE => …`) window TVF argument. */
  tvfArg = this.RULE('tvfArg', () => {
    this.OPTION(() => {
      this.CONSUME(T.Name)
      this.CONSUME(T.Arrow)
    })
    this.OR(this.alts.tvfArg1 ??= [
      {
        // '(' '(' … could open a subquery or an expression; tvfTableArg only takes '(' before a query keyword.
        GATE: () => this.LA(1).tokenType === T.TABLE || startsQuery(this.LA(2)),
        IGNORE_AMBIGUITIES: true,
        ALT: () => this.SUBRULE(this.tvfTableArg),
      },
      { ALT: () => this.SUBRULE(this.descriptorArg) },
      { ALT: () => this.SUBRULE(this.expression) },
    ])
  })

  /** `TABLE t`, `TABLE (query)` or `(query)`, with SESSION's optional PARTITION BY. */
  tvfTableArg = this.RULE('tvfTableArg', () => {
    this.OR(this.alts.tvfTableArg1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.TABLE)
          this.OR2(this.alts.tvfTableArgInner1 ??= [
            { ALT: () => this.SUBRULE(this.qualifiedName) },
            { ALT: () => this.SUBRULE(this.parenQuery) },
          ])
        },
      },
      // A '(' is a subquery only when a query keyword follows; otherwise it is a parenthesized expression.
      { GATE: () => startsQuery(this.LA(2)), ALT: () => this.SUBRULE2(this.parenQuery) },
    ])
    this.OPTION(() => this.SUBRULE(this.partitionClause))
  })

  parenQuery = this.RULE('parenQuery', () => {
    this.CONSUME(T.LParen)
    this.SUBRULE(this.query)
    this.CONSUME(T.RParen)
  })

  /** `PARTITION BY k`, `PARTITION BY k, k2` or `PARTITION BY (k, k2)`. */
  partitionClause = this.RULE('partitionClause', () => {
    this.CONSUME(T.PARTITION)
    this.CONSUME(T.BY)
    this.OR(this.alts.partitionClause1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.LParen)
          this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.qualifiedName) })
          this.CONSUME(T.RParen)
        },
      },
      {
        ALT: () => {
          this.SUBRULE2(this.qualifiedName)
          // `, k2` continues the key list only when k2 is a plain name followed by ',' or ')';
          // otherwise the comma separates the next TVF argument (DESCRIPTOR(…), TIMECOL => …).
          this.MANY({
            GATE: () => {
              const next = this.LA(3).tokenType
              return this.LA(2).tokenType.CATEGORIES?.includes(T.Name) === true && (next === T.Comma || next === T.RParen || next === T.Dot)
            },
            DEF: () => {
              this.CONSUME(T.Comma)
              this.SUBRULE3(this.qualifiedName)
            },
          })
        },
      },
    ])
  })

  descriptorArg = this.RULE('descriptorArg', () => {
    this.CONSUME(T.DESCRIPTOR)
    this.CONSUME(T.LParen)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.CONSUME(T.Name) })
    this.CONSUME(T.RParen)
  })

  /** `/*+ NAME('k' = 'v'), NAME2(a, b) *\/` */
  hintBlock = this.RULE('hintBlock', () => {
    this.CONSUME(T.HintStart)
    this.SUBRULE(this.hintItem)
    this.MANY(() => {
      this.OPTION(() => this.CONSUME(T.Comma))
      this.SUBRULE2(this.hintItem)
    })
    this.CONSUME(T.HintEnd)
  })

  hintItem = this.RULE('hintItem', () => {
    this.CONSUME(T.Name)
    this.OPTION(() => {
      this.CONSUME(T.LParen)
      this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.hintArg) })
      this.CONSUME(T.RParen)
    })
  })

  hintArg = this.RULE('hintArg', () => {
    this.SUBRULE(this.hintValue)
    this.OPTION(() => {
      this.CONSUME(T.Eq)
      this.SUBRULE2(this.hintValue)
    })
  })

  hintValue = this.RULE('hintValue', () => {
    this.OR(this.alts.hintValue1 ??= [
      { ALT: () => this.CONSUME(T.StringLit, ALT_LABEL) },
      { ALT: () => this.CONSUME(T.NumberLit, ALT_LABEL) },
      { ALT: () => this.SUBRULE(this.dottedWords, ALT_LABEL) },
      { ALT: () => this.CONSUME(T.QuotedIdentifier, ALT_LABEL) },
    ])
  })

  // ---------------------------------------------------------------- types

  /** `DECIMAL(10, 2)`, `DOUBLE PRECISION`, `TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL`; names are checked in to-ast. */
  typeName = this.RULE('typeName', () => {
    this.CONSUME(T.Name)
    this.OPTION(() => {
      this.OR3(this.alts.typeName0 ??= [
        {
          ALT: () => {
            this.CONSUME(T.LParen)
            this.OR4(this.alts.typeName3 ??= [
              { ALT: () => this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.CONSUME(T.NumberLit) }) },
              // ROW(a INT, b STRING)
              { ALT: () => this.AT_LEAST_ONE_SEP2({ SEP: T.Comma, DEF: () => this.SUBRULE(this.typeArg) }) },
            ])
            this.CONSUME(T.RParen)
          },
        },
        {
          // ARRAY<INT>, MAP<STRING, INT>, ROW<a INT, b STRING> (nested-types.ts reads them)
          ALT: () => {
            this.CONSUME(T.Lt)
            this.AT_LEAST_ONE_SEP3({ SEP: T.Comma, DEF: () => this.SUBRULE2(this.typeArg) })
            this.CONSUME(T.Gt)
          },
        },
      ])
    })
    this.OPTION2(() => this.CONSUME(T.PRECISION))
    // not `RETURNING STRING WITH ARRAY WRAPPER` / `RETURNING INT NULL ON EMPTY` (SQL/JSON clauses)
    this.OPTION3({
      MAX_LOOKAHEAD: 1,
      GATE: () => this.LA(2).tokenType === T.LOCAL || this.LA(2).tokenType === T.TIME,
      DEF: () => {
        this.OR(this.alts.typeName1 ??= [
          {
            ALT: () => {
              this.CONSUME(T.WITH)
              this.CONSUME(T.LOCAL)
            },
          },
          { ALT: () => this.CONSUME(T.WITHOUT) },
        ])
        this.CONSUME(T.TIME)
        this.CONSUME(T.ZONE)
      },
    })
    this.OPTION4({ MAX_LOOKAHEAD: 1, GATE: () => this.LA(1).tokenType !== T.NULL || this.LA(2).tokenType !== T.ON, DEF: () => {
      this.OR2(this.alts.typeName2 ??= [
        {
          ALT: () => {
            this.CONSUME(T.NOT)
            this.CONSUME(T.NULL)
          },
        },
        { ALT: () => this.CONSUME2(T.NULL) },
      ])
    } })
  })

  /** A type inside ARRAY<…> / MAP<…>, or a ROW field `name type` (two names in a row: the first is the field's). */
  typeArg = this.RULE('typeArg', () => {
    this.OPTION({
      GATE: () => this.LA(2).tokenType.CATEGORIES?.includes(T.Name) === true && this.LA(2).tokenType !== T.PRECISION,
      DEF: () => this.CONSUME(T.Name, { LABEL: 'field' }),
    })
    this.SUBRULE(this.typeName)
  })

  // ---------------------------------------------------------------- expressions

  /**
   * A flat chain `[NOT…] operand (tail)*`; to-ast.ts applies precedence and associativity. Keeping
   * the CST flat (instead of one rule per precedence level) makes parsing several times cheaper.
   */
  expression = this.RULE('expression', () => {
    this.MANY(() => this.CONSUME(T.NOT))
    this.SUBRULE(this.primary)
    this.MANY2(() => this.SUBRULE(this.exprTail))
  })

  exprTail = this.RULE('exprTail', () => {
    this.OR(this.alts.exprTail1 ??= [
      {
        ALT: () => {
          this.OR2(this.alts.exprTailInner1 ??= [
            { ALT: () => this.CONSUME(T.OR, { LABEL: 'op' }) },
            { ALT: () => this.CONSUME(T.AND, { LABEL: 'op' }) },
            { ALT: () => this.CONSUME(T.CompareOp, { LABEL: 'op' }) },
            { ALT: () => this.CONSUME(T.Concat, { LABEL: 'op' }) },
            { ALT: () => this.CONSUME(T.AddOp, { LABEL: 'op' }) },
            { ALT: () => this.CONSUME(T.MulOp, { LABEL: 'op' }) },
          ])
          this.MANY(() => this.CONSUME(T.NOT))
          this.SUBRULE(this.primary)
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.IS)
          this.OPTION(() => this.CONSUME2(T.NOT, { LABEL: 'negated' }))
          this.OR3({ MAX_LOOKAHEAD: 1, DEF: this.alts.exprTailInner2 ??= [
            { ALT: () => this.CONSUME(T.NULL) },
            { ALT: () => this.CONSUME(T.TRUE) },
            { ALT: () => this.CONSUME(T.FALSE) },
            { ALT: () => this.CONSUME(T.UNKNOWN) },
            {
              // x IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT] (json-clauses.ts)
              GATE: () => nameIs(this.LA(1), 'JSON'),
              ALT: () => {
                this.CONSUME(T.Name, { LABEL: 'json' })
                this.OPTION3({
                  MAX_LOOKAHEAD: 1,
                  GATE: () => ['VALUE', 'SCALAR', 'ARRAY', 'OBJECT'].some(w => nameIs(this.LA(1), w)),
                  DEF: () => this.CONSUME2(T.Name, { LABEL: 'jsonType' }),
                })
              },
            },
            {
              // x IS [NOT] DISTINCT FROM y: a null-safe comparison with the precedence of '='.
              ALT: () => {
                this.CONSUME(T.DISTINCT)
                this.CONSUME(T.FROM)
                this.SUBRULE(this.arithmetic, { LABEL: 'distinctFrom' })
              },
            },
          ] })
        },
      },
      {
        ALT: () => {
          this.OPTION2(() => this.CONSUME3(T.NOT, { LABEL: 'negated' }))
          this.OR4(this.alts.exprTailInner3 ??= [
            { ALT: () => this.SUBRULE(this.betweenTail) },
            { ALT: () => this.SUBRULE(this.inTail) },
            { ALT: () => this.SUBRULE(this.likeTail) },
            { ALT: () => this.SUBRULE(this.similarTail) },
            { ALT: () => this.SUBRULE(this.overlapsTail) },
          ])
        },
      },
    ])
  })

  /** The bounds are arithmetic, so `x BETWEEN 1 AND 2 AND y` is `(x BETWEEN 1 AND 2) AND y`. */
  betweenTail = this.RULE('betweenTail', () => {
    this.CONSUME(T.BETWEEN)
    this.OPTION(() =>
      this.OR(this.alts.betweenTail1 ??= [
        { ALT: () => this.CONSUME(T.SYMMETRIC) },
        { ALT: () => this.CONSUME(T.ASYMMETRIC) },
      ])
    )
    this.SUBRULE(this.arithmetic, { LABEL: 'low' })
    this.CONSUME(T.AND)
    this.SUBRULE2(this.arithmetic, { LABEL: 'high' })
  })

  /** `IN (1, 2)` or `IN (SELECT …)`: a query keyword after '(' makes it a subquery. */
  inTail = this.RULE('inTail', () => {
    this.CONSUME(T.IN)
    this.CONSUME(T.LParen)
    this.OR(this.alts.inTail1 ??= [
      { GATE: () => startsQuery(this.LA(1)), ALT: () => this.SUBRULE(this.query) },
      { ALT: () => this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) }) },
    ])
    this.CONSUME(T.RParen)
  })

  likeTail = this.RULE('likeTail', () => {
    this.CONSUME(T.LIKE)
    this.SUBRULE(this.arithmetic, { LABEL: 'pattern' })
    this.OPTION(() => {
      this.CONSUME(T.ESCAPE)
      this.SUBRULE2(this.arithmetic, { LABEL: 'escape' })
    })
  })

  /** `SIMILAR TO pattern [ESCAPE c]`: a SQL regular expression, arithmetic operands as for LIKE. */
  similarTail = this.RULE('similarTail', () => {
    this.CONSUME(T.SIMILAR)
    this.CONSUME(T.TO)
    this.SUBRULE(this.arithmetic, { LABEL: 'pattern' })
    this.OPTION(() => {
      this.CONSUME(T.ESCAPE)
      this.SUBRULE2(this.arithmetic, { LABEL: 'escape' })
    })
  })

  /** `(start, end) OVERLAPS (start, end | interval)`: the periods are row constructors, checked when bound. */
  overlapsTail = this.RULE('overlapsTail', () => {
    this.CONSUME(T.OVERLAPS)
    this.SUBRULE(this.arithmetic, { LABEL: 'period' })
  })

  /** `||`, `+ -`, `* / %` only (no comparison or boolean operators): BETWEEN bounds, LIKE patterns, POSITION operands. */
  arithmetic = this.RULE('arithmetic', () => {
    this.SUBRULE(this.primary)
    this.MANY(() => {
      this.OR(this.alts.arithmetic1 ??= [
        { ALT: () => this.CONSUME(T.Concat, { LABEL: 'op' }) },
        { ALT: () => this.CONSUME(T.AddOp, { LABEL: 'op' }) },
        { ALT: () => this.CONSUME(T.MulOp, { LABEL: 'op' }) },
      ])
      this.SUBRULE2(this.primary)
    })
  })

  /**
   * An operand with its prefix signs (`- - x`). Every alternative is labelled 'alt' so to-ast finds
   * it with one property read; the choice needs one token of lookahead (a table lookup).
   */
  primary = this.RULE('primary', () => {
    const alt = ALT_LABEL
    this.MANY(() => this.CONSUME(T.AddOp))
    this.OR(this.alts.primary1 ??= [
      { ALT: () => this.CONSUME(T.NumberLit, alt) },
      { ALT: () => this.CONSUME(T.StringLit, alt) },
      { ALT: () => this.CONSUME(T.TRUE, alt) },
      { ALT: () => this.CONSUME(T.FALSE, alt) },
      { ALT: () => this.CONSUME(T.NULL, alt) },
      { ALT: () => this.SUBRULE(this.intervalLiteral, alt) },
      { ALT: () => this.SUBRULE(this.caseExpr, alt) },
      { ALT: () => this.SUBRULE(this.castExpr, alt) },
      { ALT: () => this.SUBRULE(this.extractExpr, alt) },
      { ALT: () => this.SUBRULE(this.floorCeilExpr, alt) },
      { ALT: () => this.SUBRULE(this.substringExpr, alt) },
      { ALT: () => this.SUBRULE(this.trimExpr, alt) },
      { ALT: () => this.SUBRULE(this.positionExpr, alt) },
      { ALT: () => this.SUBRULE(this.overlayExpr, alt) },
      { ALT: () => this.SUBRULE(this.niladicCall, alt) },
      { ALT: () => this.SUBRULE(this.keywordCall, alt) },
      { ALT: () => this.SUBRULE(this.existsExpr, alt) },
      { ALT: () => this.SUBRULE(this.parenExpr, alt) },
      { ALT: () => this.SUBRULE(this.typedLiteral, alt) },
      { ALT: () => this.SUBRULE(this.nameExpr, alt) },
    ])
    // `a[i]`, `m['k']`, `r.f` after a subscript or a parenthesized row; `ARRAY[…]` / `MAP[…]` (nested-types.ts)
    this.MANY2(() => this.SUBRULE(this.postfix))
  })

  postfix = this.RULE('postfix', () => {
    this.OR2(this.alts.postfix1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.LBracket)
          this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) })
          this.CONSUME(T.RBracket)
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.Dot)
          this.CONSUME(T.Name)
        },
      },
    ])
  })

  /** `INTERVAL ['-'] '10' MINUTES`, `INTERVAL '1:30' HOUR TO MINUTE`; units are checked in to-ast. */
  intervalLiteral = this.RULE('intervalLiteral', () => {
    this.CONSUME(T.INTERVAL)
    this.OPTION(() => this.CONSUME(T.AddOp))
    this.CONSUME(T.StringLit)
    this.CONSUME(T.Name, { LABEL: 'unit' })
    this.OPTION2(() => {
      this.CONSUME(T.TO)
      this.CONSUME2(T.Name, { LABEL: 'toUnit' })
    })
  })

  /** `TIMESTAMP '…'`; the lexer marks TIMESTAMP / TIMESTAMP_LTZ / DATE before a string as LiteralPrefix. */
  typedLiteral = this.RULE('typedLiteral', () => {
    this.CONSUME(T.LiteralPrefix)
    this.CONSUME(T.StringLit)
  })

  caseExpr = this.RULE('caseExpr', () => {
    this.CONSUME(T.CASE)
    this.OPTION(() => this.SUBRULE(this.expression, { LABEL: 'operand' }))
    this.AT_LEAST_ONE(() => this.SUBRULE(this.whenClause))
    this.OPTION2(() => {
      this.CONSUME(T.ELSE)
      this.SUBRULE2(this.expression, { LABEL: 'else' })
    })
    this.CONSUME(T.END)
  })

  /** `WHEN v1 [, v2]* THEN r`: several values only in a CASE with an operand (Flink's simple CASE). */
  whenClause = this.RULE('whenClause', () => {
    this.CONSUME(T.WHEN)
    this.SUBRULE(this.expression, { LABEL: 'when' })
    this.MANY(() => {
      this.CONSUME(T.Comma)
      this.SUBRULE3(this.expression, { LABEL: 'when' })
    })
    this.CONSUME(T.THEN)
    this.SUBRULE2(this.expression, { LABEL: 'then' })
  })

  castExpr = this.RULE('castExpr', () => {
    this.OR(this.alts.castExpr1 ??= [
      { ALT: () => this.CONSUME(T.CAST) },
      { ALT: () => this.CONSUME(T.TRY_CAST) },
    ])
    this.CONSUME(T.LParen)
    this.SUBRULE(this.expression)
    this.CONSUME(T.AS)
    this.SUBRULE(this.typeName)
    this.CONSUME(T.RParen)
  })

  extractExpr = this.RULE('extractExpr', () => {
    this.CONSUME(T.EXTRACT)
    this.CONSUME(T.LParen)
    this.CONSUME(T.Name)
    this.CONSUME(T.FROM)
    this.SUBRULE(this.expression)
    this.CONSUME(T.RParen)
  })

  /** `FLOOR(x)`, `FLOOR(ts TO HOUR)`, and the same for CEIL / CEILING. */
  floorCeilExpr = this.RULE('floorCeilExpr', () => {
    this.OR(this.alts.floorCeilExpr1 ??= [
      { ALT: () => this.CONSUME(T.FLOOR) },
      { ALT: () => this.CONSUME(T.CEIL) },
      { ALT: () => this.CONSUME(T.CEILING) },
    ])
    this.CONSUME(T.LParen)
    this.SUBRULE(this.expression)
    this.OPTION(() => {
      this.CONSUME(T.TO)
      this.CONSUME(T.Name)
    })
    this.CONSUME(T.RParen)
  })

  /** `SUBSTRING(s FROM 2 [FOR 3])` or `SUBSTRING(s, 2 [, 3])`. */
  substringExpr = this.RULE('substringExpr', () => {
    this.CONSUME(T.SUBSTRING)
    this.CONSUME(T.LParen)
    this.SUBRULE(this.expression, { LABEL: 'source' })
    this.OR(this.alts.substringExpr1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.FROM)
          this.SUBRULE2(this.expression, { LABEL: 'start' })
          this.OPTION(() => {
            this.CONSUME(T.FOR)
            this.SUBRULE3(this.expression, { LABEL: 'length' })
          })
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.Comma)
          this.SUBRULE4(this.expression, { LABEL: 'start' })
          this.OPTION2(() => {
            this.CONSUME2(T.Comma)
            this.SUBRULE5(this.expression, { LABEL: 'length' })
          })
        },
      },
    ])
    this.CONSUME(T.RParen)
  })

  /** `TRIM([BOTH | LEADING | TRAILING] [chars] FROM s)` or `TRIM(s)`. */
  trimExpr = this.RULE('trimExpr', () => {
    this.CONSUME(T.TRIM)
    this.CONSUME(T.LParen)
    this.OR(this.alts.trimExpr1 ??= [
      {
        ALT: () => {
          this.OR2(this.alts.trimExprInner1 ??= [
            { ALT: () => this.CONSUME(T.BOTH) },
            { ALT: () => this.CONSUME(T.LEADING) },
            { ALT: () => this.CONSUME(T.TRAILING) },
          ])
          this.OPTION(() => this.SUBRULE(this.expression, { LABEL: 'chars' }))
          this.CONSUME(T.FROM)
          this.SUBRULE2(this.expression, { LABEL: 'source' })
        },
      },
      {
        ALT: () => {
          this.SUBRULE3(this.expression, { LABEL: 'first' })
          this.OPTION2(() => {
            this.CONSUME2(T.FROM)
            this.SUBRULE4(this.expression, { LABEL: 'source' })
          })
        },
      },
    ])
    this.CONSUME(T.RParen)
  })

  /** `POSITION(a IN b)`; the operands are arithmetic so IN is not read as an IN list. */
  positionExpr = this.RULE('positionExpr', () => {
    this.CONSUME(T.POSITION)
    this.CONSUME(T.LParen)
    this.SUBRULE(this.arithmetic, { LABEL: 'needle' })
    this.CONSUME(T.IN)
    this.SUBRULE2(this.arithmetic, { LABEL: 'haystack' })
    this.CONSUME(T.RParen)
  })

  /** `OVERLAY(s PLACING r FROM pos [FOR len])`. */
  overlayExpr = this.RULE('overlayExpr', () => {
    this.CONSUME(T.OVERLAY)
    this.CONSUME(T.LParen)
    this.SUBRULE(this.expression, { LABEL: 'source' })
    this.CONSUME(T.PLACING)
    this.SUBRULE2(this.expression, { LABEL: 'replacement' })
    this.CONSUME(T.FROM)
    this.SUBRULE3(this.expression, { LABEL: 'start' })
    this.OPTION(() => {
      this.CONSUME(T.FOR)
      this.SUBRULE4(this.expression, { LABEL: 'length' })
    })
    this.CONSUME(T.RParen)
  })

  /** CURRENT_TIMESTAMP and friends, written without parentheses (an empty pair is tolerated). */
  niladicCall = this.RULE('niladicCall', () => {
    this.OR(this.alts.niladicCall1 ??= [
      { ALT: () => this.CONSUME(T.CURRENT_TIMESTAMP, ALT_LABEL) },
      { ALT: () => this.CONSUME(T.CURRENT_DATE, ALT_LABEL) },
      { ALT: () => this.CONSUME(T.CURRENT_TIME, ALT_LABEL) },
      { ALT: () => this.CONSUME(T.LOCALTIMESTAMP, ALT_LABEL) },
      { ALT: () => this.CONSUME(T.LOCALTIME, ALT_LABEL) },
    ])
    this.OPTION(() => {
      this.CONSUME(T.LParen)
      this.CONSUME(T.RParen)
    })
  })

  /** Functions named by reserved words: LEFT(s, n), RIGHT(s, n). */
  keywordCall = this.RULE('keywordCall', () => {
    this.OR(this.alts.keywordCall1 ??= [
      { ALT: () => this.CONSUME(T.LEFT) },
      { ALT: () => this.CONSUME(T.RIGHT) },
    ])
    this.SUBRULE(this.callArgs)
  })

  /**
   * `(expr)`, a row `(a, b)` (as `ROW(a, b)`: the operand of a row-valued IN), or a scalar subquery
   * `(SELECT …)` when a query keyword follows the '('.
   */
  parenExpr = this.RULE('parenExpr', () => {
    this.CONSUME(T.LParen)
    this.OR(this.alts.parenExpr1 ??= [
      { GATE: () => startsQuery(this.LA(1)), ALT: () => this.SUBRULE(this.query) },
      { ALT: () => this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) }) },
    ])
    this.CONSUME(T.RParen)
  })

  existsExpr = this.RULE('existsExpr', () => {
    this.CONSUME(T.EXISTS)
    this.CONSUME(T.LParen)
    this.SUBRULE(this.query)
    this.CONSUME(T.RParen)
  })

  /** A column (`a`, `t.a`) or a call `f(…)`. */
  nameExpr = this.RULE('nameExpr', () => {
    this.CONSUME(T.Name)
    this.MANY(() => {
      this.CONSUME(T.Dot)
      this.CONSUME2(T.Name)
    })
    this.OPTION(() => this.SUBRULE(this.callArgs))
  })

  /** `(…)` of a call, with DISTINCT / `*` for aggregates and a trailing `FILTER (WHERE …)`. */
  callArgs = this.RULE('callArgs', () => {
    this.CONSUME(T.LParen)
    this.OPTION(() => this.SUBRULE(this.setQuantifier))
    this.OPTION2({
      MAX_LOOKAHEAD: 1,
      GATE: () => !startsJsonClause(k => this.LA(k)),
      DEF: () => {
        this.OR(this.alts.callArgs1 ??= [
          { ALT: () => this.CONSUME(T.Star) },
          {
            ALT: () =>
              this.AT_LEAST_ONE_SEP({
                // One token: past the first argument's first token only the GATEs of the JSON
                // clauses and null treatment that may follow decide, and three tokens of lookahead
                // over every path of an expression cost seconds at import.
                MAX_LOOKAHEAD: 1,
                SEP: T.Comma,
                DEF: () => {
                  // JSON_OBJECT's `[KEY] k VALUE v` (json-clauses.ts checks where pairs may be written)
                  this.OPTION5({
                    MAX_LOOKAHEAD: 1,
                    GATE: () => nameIs(this.LA(1), 'KEY') && startsPairKey(k => this.LA(k)),
                    DEF: () => this.CONSUME(T.Name, { LABEL: 'key' }),
                  })
                  this.SUBRULE(this.expression)
                  this.OPTION6({
                    MAX_LOOKAHEAD: 1,
                    GATE: () => nameIs(this.LA(1), 'VALUE'),
                    DEF: () => {
                      this.CONSUME2(T.Name, { LABEL: 'value' })
                      this.SUBRULE3(this.expression)
                    },
                  })
                },
              }),
          },
        ])
      },
    })
    this.OPTION7({
      MAX_LOOKAHEAD: 1,
      GATE: () => (nameIs(this.LA(1), 'RESPECT') || nameIs(this.LA(1), 'IGNORE')) && this.LA(2).tokenType === T.NULLS,
      DEF: () => {
        this.CONSUME3(T.Name, { LABEL: 'nullTreatment' })
        this.CONSUME(T.NULLS)
      },
    })
    // Read only to be refused where written (to-ast-expr.ts): Flink's ARRAY_AGG does not support it either.
    this.OPTION8(() => this.SUBRULE(this.orderByClause, { LABEL: 'withinOrder' }))
    this.MANY({ MAX_LOOKAHEAD: 1, GATE: () => startsJsonClause(k => this.LA(k)), DEF: () => this.SUBRULE(this.jsonClause) })
    this.CONSUME(T.RParen)
    this.OPTION3(() => {
      this.CONSUME(T.FILTER)
      this.CONSUME2(T.LParen)
      this.CONSUME(T.WHERE)
      this.SUBRULE2(this.expression, { LABEL: 'filter' })
      this.CONSUME2(T.RParen)
    })
    this.OPTION4(() => this.SUBRULE(this.overClause))
  })

  /**
   * A SQL/JSON clause of JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_OBJECT, JSON_ARRAY and their
   * aggregates, read word by word here and checked in json-clauses.ts.
   */
  jsonClause = this.RULE('jsonClause', () => {
    // One token of lookahead: each alternative's GATE decides (three tokens cost 1.4 s at import).
    this.OR({
      MAX_LOOKAHEAD: 1,
      DEF: this.alts.jsonClause1 ??= [
        {
          GATE: () => nameIs(this.LA(1), 'RETURNING'),
          ALT: () => {
            this.CONSUME(T.Name, { LABEL: 'returning' })
            this.SUBRULE(this.typeName)
          },
        },
        {
          // `DEFAULT ON EMPTY` (no value) falls to the last alternative, for json-clauses.ts's message.
          GATE: () => nameIs(this.LA(1), 'DEFAULT') && this.LA(2).tokenType !== T.ON,
          ALT: () => {
            this.CONSUME2(T.Name, { LABEL: 'default' })
            this.SUBRULE(this.expression)
            this.CONSUME(T.ON)
            this.CONSUME3(T.Name, { LABEL: 'target' })
          },
        },
        {
          GATE: () => this.LA(1).tokenType === T.WITH || nameIs(this.LA(1), 'WITHOUT'),
          ALT: () => {
            this.OR2(this.alts.jsonClause2 ??= [
              { ALT: () => this.CONSUME(T.WITH, { LABEL: 'wrapperStart' }) },
              { ALT: () => this.CONSUME4(T.Name, { LABEL: 'wrapperStart' }) },
            ])
            this.MANY({ MAX_LOOKAHEAD: 1, GATE: () => !nameIs(this.LA(1), 'WRAPPER'), DEF: () => this.CONSUME5(T.Name, { LABEL: 'word' }) })
            this.CONSUME6(T.Name, { LABEL: 'wrapper' })
          },
        },
        {
          ALT: () => {
            this.AT_LEAST_ONE({ MAX_LOOKAHEAD: 1, DEF: () =>
              this.OR3(this.alts.jsonClause3 ??= [
                { ALT: () => this.CONSUME(T.NULL, { LABEL: 'word' }) },
                { ALT: () => this.CONSUME(T.TRUE, { LABEL: 'word' }) },
                { ALT: () => this.CONSUME(T.FALSE, { LABEL: 'word' }) },
                { ALT: () => this.CONSUME7(T.Name, { LABEL: 'word' }) },
              ]) })
            this.CONSUME2(T.ON)
            this.OR4(this.alts.jsonClause4 ??= [
              { ALT: () => this.CONSUME2(T.NULL, { LABEL: 'target' }) },
              { ALT: () => this.CONSUME8(T.Name, { LABEL: 'target' }) },
            ])
          },
        },
      ].map(a => ({ ...a, IGNORE_AMBIGUITIES: true })),
    })
  })

  // ---------------------------------------------------------------- OVER windows (to-ast-over.ts)

  /** `WINDOW w AS (…), w2 AS (…)` after HAVING. */
  windowClause = this.RULE('windowClause', () => {
    this.CONSUME(T.WINDOW)
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.namedWindow) })
  })

  namedWindow = this.RULE('namedWindow', () => {
    this.CONSUME(T.Name)
    this.CONSUME(T.AS)
    this.SUBRULE(this.windowSpec)
  })

  /** `OVER w` or `OVER (…)`. */
  overClause = this.RULE('overClause', () => {
    this.CONSUME(T.OVER)
    this.OR(this.alts.overClause1 ??= [
      { ALT: () => this.CONSUME(T.Name) },
      { ALT: () => this.SUBRULE(this.windowSpec) },
    ])
  })

  /** `([PARTITION BY e, …] [ORDER BY …] [frame])` */
  windowSpec = this.RULE('windowSpec', () => {
    this.CONSUME(T.LParen)
    this.OPTION(() => {
      this.CONSUME(T.PARTITION)
      this.CONSUME(T.BY)
      this.AT_LEAST_ONE_SEP({ MAX_LOOKAHEAD: 1, SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) })
    })
    this.OPTION2(() => this.SUBRULE(this.orderByClause))
    this.OPTION3(() => this.SUBRULE(this.windowFrame))
    this.CONSUME(T.RParen)
  })

  /** `ROWS|RANGE BETWEEN bound AND bound`, or the short `ROWS|RANGE bound` (up to the current row). */
  windowFrame = this.RULE('windowFrame', () => {
    this.OR(this.alts.windowFrame1 ??= [
      { ALT: () => this.CONSUME(T.ROWS, { LABEL: 'unit' }) },
      { ALT: () => this.CONSUME(T.RANGE, { LABEL: 'unit' }) },
    ])
    this.OR2(this.alts.windowFrame2 ??= [
      {
        ALT: () => {
          this.CONSUME(T.BETWEEN)
          this.SUBRULE(this.frameBound, { LABEL: 'lower' })
          this.CONSUME(T.AND)
          this.SUBRULE2(this.frameBound, { LABEL: 'upper' })
        },
      },
      { ALT: () => this.SUBRULE3(this.frameBound, { LABEL: 'lower' }) },
    ])
  })

  /** `UNBOUNDED PRECEDING`, `5 PRECEDING`, `INTERVAL '1' HOUR PRECEDING`, `CURRENT ROW`, `… FOLLOWING`. */
  frameBound = this.RULE('frameBound', () => {
    this.OR(this.alts.frameBound1 ??= [
      {
        ALT: () => {
          this.CONSUME(T.CURRENT)
          this.CONSUME(T.ROW)
        },
      },
      {
        ALT: () => {
          this.OR2(this.alts.frameBound2 ??= [
            { ALT: () => this.CONSUME(T.UNBOUNDED) },
            { ALT: () => this.CONSUME(T.NumberLit) },
            { ALT: () => this.SUBRULE(this.intervalLiteral) },
          ])
          this.OR3(this.alts.frameBound3 ??= [
            { ALT: () => this.CONSUME(T.PRECEDING) },
            { ALT: () => this.CONSUME(T.FOLLOWING) },
          ])
        },
      },
    ])
  })
}

export type { CstNode }

/**
 * After KEY: a pair's key expression follows (a string, CAST(…), CASE, a parenthesized expression, or
 * a name followed by VALUE, '.' or '(') rather than KEY being a column named key (`key VALUE v`, `key, …`).
 */
function startsPairKey(la: (k: number) => IToken): boolean {
  const next = la(2).tokenType
  if (next === T.StringLit || next === T.CAST || next === T.CASE || next === T.LParen) return true
  if (next.CATEGORIES?.includes(T.Name) !== true || nameIs(la(2), 'VALUE')) return false
  const after = la(3).tokenType
  return nameIs(la(3), 'VALUE') || after === T.Dot || after === T.LParen
}
