// Chevrotain parse errors → WeirError: "unexpected 'FORM', expected FROM, ',' or end of statement",
// pointed at the offending token, with a help line for misspelled keywords, reserved words and
// unclosed parentheses. The expected set comes from Chevrotain's content assist, summarized in user terms.
import type { IRecognitionException, ISyntacticContentAssistPath, IToken, TokenType } from 'chevrotain'
import { EOF, tokenLabel, tokenMatcher } from './chevrotain.js'
import { WeirError } from '../common/errors.js'
import type { Span } from '../common/span.js'
import type { SqlParser } from './parser.js'
import type { SourceText } from './source.js'
import { closest } from '../common/names.js'
import * as T from './tokens.js'
import { unsupportedConstruct } from './unsupported.js'

export type ParseMode = 'script' | 'expression'

const START_RULE: Record<ParseMode, string> = { script: 'script', expression: 'standaloneExpression' }
const MAX_ASSIST_TOKENS = 20_000

/** Tokens that only continue an expression already written (operators, `.`, a call's `(`, an alias). */
const AFTER_EXPRESSION = new Set<TokenType>([
  T.AddOp,
  T.MulOp,
  T.CompareOp,
  T.Concat,
  T.IS,
  T.NOT,
  T.BETWEEN,
  T.IN,
  T.LIKE,
  T.SIMILAR,
  T.OVERLAPS,
  T.ESCAPE,
  T.Dot,
  T.LParen,
  T.FILTER,
  T.AS,
  T.Name,
])
/** Tokens that only continue a FROM item (qualified name, hints, alias, join kinds). */
const AFTER_FROM_ITEM = new Set<TokenType>([T.Dot, T.HintStart, T.AS, T.Name, T.INNER, T.CROSS, T.LEFT, T.RIGHT, T.FULL])
/** Optional query endings: listed only when nothing else could come next. */
const QUERY_TAIL = new Set<TokenType>([T.UNION, T.EXCEPT, T.INTERSECT, T.ORDER, T.LIMIT, T.FETCH])
const STATEMENT_START = new Set<TokenType>([
  T.CREATE,
  T.DROP,
  T.INSERT,
  T.SELECT,
  T.WITH,
  T.VALUES,
  T.LParen,
  T.SET,
  T.RESET,
  T.EXPLAIN,
  T.SHOW,
  T.STOP,
  T.DESCRIBE,
  T.DESC,
  T.ALTER,
  T.EXECUTE,
  T.USE,
  T.BEGIN,
])
const QUERY_START = new Set<TokenType>([T.SELECT, T.WITH, T.VALUES])
const TYPE_TAIL = new Set<TokenType>([T.PRECISION, T.WITH, T.WITHOUT, T.NOT, T.NULL, T.LParen])
/** Flink's composite types: `ARRAY<INT>` fails at '<', which deserves a clearer word. */
const COMPOSITE_TYPES = new Set(['MULTISET'])
const TWO_WORD: ReadonlyMap<TokenType, string> = new Map([
  [T.PRIMARY, 'PRIMARY KEY'],
  [T.GROUP, 'GROUP BY'],
  [T.ORDER, 'ORDER BY'],
  [T.PARTITION, 'PARTITION BY'],
])
/** For a Name expected inside these rules (innermost first), what the user should write. */
const NAME_CONTEXT: readonly (readonly [string, string])[] = [
  ['typeName', 'a type'],
  ['intervalLiteral', 'a time unit'],
  ['extractExpr', 'a time unit'],
  ['floorCeilExpr', 'a time unit'],
  ['hintValue', 'a value'],
  ['hintItem', 'a hint name'],
  ['explainStatement', 'ESTIMATED_COST, CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN'],
  ['alias', 'an alias'],
  ['unnestRef', 'ORDINALITY'],
  ['descriptorArg', 'a column name'],
  ['columnDef', 'a column name'],
  ['watermarkDef', 'a column name'],
  ['nameList', 'a column name'],
  ['partitionClause', 'a column name'],
  ['tableRef', 'a table name'],
  ['createTableBody', 'a table name'],
  ['insertStatement', 'a table name'],
  ['dropStatement', 'a table or view name'],
  ['describeStatement', 'a table or view name'],
  ['createViewBody', 'a view name'],
  ['cte', 'a name'],
  ['windowTvfRef', 'a window function (TUMBLE, HOP, CUMULATE or SESSION)'],
]

interface Expected {
  readonly types: readonly TokenType[]
  readonly paths: readonly ISyntacticContentAssistPath[]
}

/** Builds the user-facing error for the first parse error. */
export function syntaxError(parser: SqlParser, error: IRecognitionException, tokens: readonly IToken[], src: SourceText, mode: ParseMode): WeirError {
  let index = indexOfToken(tokens, error.token)
  let stmtStart = 0
  if (mode === 'script') {
    for (let i = Math.min(index, tokens.length) - 1; i >= 0; i--) {
      if (tokens[i]!.tokenType === T.Semicolon) {
        stmtStart = i + 1
        break
      }
    }
  }
  const expectedAt = (i: number): Expected => {
    // Content assist re-walks the statement; past this size the list is not worth the wait.
    if (i - stmtStart > MAX_ASSIST_TOKENS) return { types: [], paths: [] }
    try {
      const paths = parser.computeContentAssist(START_RULE[mode], tokens.slice(stmtStart, i) as IToken[])
      // UNNEST (and LATERAL before it) is a word only unnestRef's gate reads: where a FROM item starts, the
      // table name offered covers it (after WITH, unnestRef's word is ORDINALITY, which stays).
      const unnestWord = (p: ISyntacticContentAssistPath): boolean =>
        p.ruleStack.at(-1) === 'unnestRef' && (p.nextTokenType === T.LATERAL || p.nextTokenType === T.Identifier) && tokens[i - 1]?.tokenType !== T.WITH
      const kept = paths.filter(p => !unnestWord(p))
      const types: TokenType[] = []
      for (const p of kept) if (!types.includes(p.nextTokenType)) types.push(p.nextTokenType)
      return { types, paths: kept }
    } catch {
      return { types: [], paths: [] }
    }
  }
  const matches = (t: IToken | undefined, e: Expected): boolean => t !== undefined && e.types.some(type => tokenMatcher(t, type))

  // A Flink construct the grammar lacks (MATCH_RECOGNIZE, OFFSET n…) is read as an
  // alias or the like and fails a token or two later: name it instead.
  const construct = unsupportedConstruct(tokens, stmtStart, index + 1, src)
  if (construct !== undefined) return construct
  if (index >= tokens.length) {
    const open = unclosedStatementSet(tokens, src)
    if (open !== undefined) return open
  }

  // An LL(k) decision can fail on the first token of a construct when the real problem is a token
  // or two later; move to the first token the grammar cannot accept.
  let expected = expectedAt(index)
  for (let step = 0; step < 3 && matches(tokens[index], expected); step++) {
    index++
    expected = expectedAt(index)
  }

  // A misspelled keyword: either the offending word itself, or the word before it when the parser
  // took that word as an alias (SELECT a FORM t reads FORM as an alias of a, then fails at t).
  let suggestion: string | undefined
  const found = tokens[index]
  if (isPlainWord(found)) suggestion = closest(found.image, keywordsIn(expected))
  if (suggestion === undefined && index - 1 >= stmtStart && isPlainWord(tokens[index - 1])) {
    const before = expectedAt(index - 1)
    const guess = closest(tokens[index - 1]!.image, keywordsIn(before))
    if (guess !== undefined) {
      index--
      expected = before
      suggestion = guess
    }
  }

  const token = tokens[index]
  const span = token ? src.span(token.startOffset, token.endOffset! + 1) : endOfInput(tokens, src)
  const { labels, shown } = summarize(parser, expected, mode, suggestion)
  const what = token ? describeToken(token) : 'end of input'
  const message = labels.length > 0 ? `unexpected ${what}, expected ${joinOr(labels)}` : `unexpected ${what}`
  const help = helpFor(token, tokens[index - 1], index, tokens, expected, shown, suggestion, src)
  return WeirError.syntax(message, { span, ...(help ? { help } : {}) })
}

/** The input ended inside a statement set (its statements are complete, its END is missing). */
function unclosedStatementSet(tokens: readonly IToken[], src: SourceText): WeirError | undefined {
  const is = (i: number, ...types: TokenType[]): boolean => types.every((t, j) => tokens[i + j]?.tokenType === t)
  let open: number | undefined
  for (let i = 0; i < tokens.length; i++) {
    if (i > 0 && tokens[i - 1]!.tokenType !== T.Semicolon) continue
    if (open === undefined && (is(i, T.BEGIN, T.STATEMENT, T.SET) || is(i, T.EXECUTE, T.STATEMENT, T.SET, T.BEGIN))) open = i
    else if (open !== undefined && is(i, T.END)) open = undefined
  }
  if (open === undefined) return undefined
  const first = tokens[open]!
  return WeirError.syntax(`the statement set at line ${src.span(first.startOffset, first.startOffset + 1).start.line} has no END`, {
    span: endOfInput(tokens, src),
    help: 'close it with END; after its last INSERT',
  })
}

function indexOfToken(tokens: readonly IToken[], t: IToken): number {
  if (t.tokenType === EOF || Number.isNaN(t.startOffset)) return tokens.length
  let lo = 0
  let hi = tokens.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const o = tokens[mid]!.startOffset
    if (o === t.startOffset) return mid
    if (o < t.startOffset) lo = mid + 1
    else hi = mid - 1
  }
  return tokens.length
}

function endOfInput(tokens: readonly IToken[], src: SourceText): Span {
  const last = tokens[tokens.length - 1]
  const offset = last ? last.endOffset! + 1 : 0
  return src.span(offset, offset)
}

/** A bare word the user may have meant as a keyword. */
function isPlainWord(t: IToken | undefined): t is IToken {
  return t !== undefined && t.tokenType === T.Identifier
}

function keywordsIn(e: Expected): string[] {
  const words: string[] = []
  for (const t of e.types) if (T.KEYWORDS.get(t.name) === t) words.push(t.name)
  return words
}

function describeToken(t: IToken): string {
  const image = t.image.length > 40 ? `${t.image.slice(0, 37)}…` : t.image
  if (t.tokenType === T.StringLit) return `string ${image}`
  if (t.tokenType === T.HintStart) return `hint '/*+'`
  return `'${image}'`
}

function joinOr(labels: readonly string[]): string {
  if (labels.length === 1) return labels[0]!
  return `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}`
}

/** What to list after "expected": labels in user terms (most useful first) and the token types behind them. */
interface Summary {
  readonly labels: readonly string[]
  readonly shown: ReadonlySet<TokenType>
}

function summarize(parser: SqlParser, e: Expected, mode: ParseMode, suggestion: string | undefined): Summary {
  let types = new Set(e.types)
  const drop = (pred: (t: TokenType) => boolean): void => {
    types = new Set([...types].filter(t => !pred(t)))
  }
  const first: string[] = []
  const keywords: string[] = []
  const literals: string[] = []
  const punctuation: string[] = []
  let end = false

  const statementStart = types.has(T.CREATE) && types.has(T.SELECT)
  if (statementStart) {
    first.push('a statement')
    drop(t => STATEMENT_START.has(t) || t === T.Semicolon)
  }
  const queryStart = types.has(T.SELECT) && types.has(T.VALUES)
  if (queryStart) {
    first.push('a query')
    drop(t => QUERY_START.has(t) || t === T.LParen)
  }
  if (types.has(T.CASE)) {
    // An expression may start here: one label for the whole FIRST set.
    first.push('an expression')
    drop(t => expressionStart(parser).has(t))
  }
  if (types.has(T.MulOp)) {
    const andOr = types.has(T.AND) && types.has(T.OR)
    drop(t => AFTER_EXPRESSION.has(t) || (andOr && (t === T.AND || t === T.OR)))
  }
  if (types.has(T.JOIN)) drop(t => AFTER_FROM_ITEM.has(t))
  // After a column's type, the type's own optional parts are rarely what is missing.
  if (types.has(T.METADATA)) drop(t => TYPE_TAIL.has(t))
  if ([...types].some(t => !QUERY_TAIL.has(t))) drop(t => QUERY_TAIL.has(t))
  if (types.size > 1) drop(t => t === T.Dot || t === T.LBracket)

  for (const t of types) {
    if (t === T.Semicolon) end = true
    else if (t === T.Name || t === T.Identifier || t === T.QuotedIdentifier) first.push(nameLabel(e.paths, t))
    else if (t === T.Word) first.push(wordLabel(e.paths))
    else if (T.KEYWORDS.get(t.name) === t) keywords.push(TWO_WORD.get(t) ?? t.name)
    else if (t === T.StringLit || t === T.NumberLit || t === T.HintStart) literals.push(tokenLabel(t))
    else punctuation.push(tokenLabel(t))
  }
  const labels = [...first, ...keywords, ...literals, ...punctuation]
  if (end) labels.push(mode === 'script' ? 'end of statement' : 'end of input')
  const collapsed = statementStart || (queryStart && QUERY_START.has(T.KEYWORDS.get(suggestion ?? '')!))
  if (suggestion !== undefined && !collapsed) {
    const s = TWO_WORD.get(T.KEYWORDS.get(suggestion)!) ?? suggestion
    return { labels: [s, ...labels.filter(l => l !== s)], shown: types }
  }
  return { labels: [...new Set(labels)], shown: types }
}

function nameLabel(paths: readonly ISyntacticContentAssistPath[], t: TokenType): string {
  for (const p of paths) {
    if (p.nextTokenType !== t) continue
    for (let i = p.ruleStack.length - 1; i >= 0; i--) {
      const hit = NAME_CONTEXT.find(([rule]) => rule === p.ruleStack[i])
      if (hit) return hit[1]
    }
  }
  return 'a name'
}

function wordLabel(paths: readonly ISyntacticContentAssistPath[]): string {
  for (const p of paths) {
    if (p.nextTokenType !== T.Word) continue
    if (p.ruleStack.includes('optionKey')) return 'an option key'
    if (p.ruleStack.includes('optionValue') || p.ruleStack.includes('hintValue')) return 'a value'
  }
  return 'a word'
}

const exprFirstCache = new WeakMap<SqlParser, Set<TokenType>>()

/** The tokens that can start an expression, from the grammar itself. */
function expressionStart(parser: SqlParser): Set<TokenType> {
  let first = exprFirstCache.get(parser)
  if (first === undefined) {
    first = new Set(parser.computeContentAssist('expression', []).map(p => p.nextTokenType))
    exprFirstCache.set(parser, first)
  }
  return first
}

function helpFor(
  found: IToken | undefined,
  before: IToken | undefined,
  index: number,
  tokens: readonly IToken[],
  e: Expected,
  shown: ReadonlySet<TokenType>,
  suggestion: string | undefined,
  src: SourceText,
): string | undefined {
  if (suggestion !== undefined) return `did you mean ${suggestion}?`
  if (found?.tokenType === T.OVER) return 'OVER follows a function call, e.g. ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts)'
  if (found?.tokenType === T.Lt && before !== undefined && COMPOSITE_TYPES.has(before.image.toUpperCase())) {
    return `${before.image.toUpperCase()} types are not supported`
  }
  if (found && shown.has(T.Name) && T.isReservedKeyword(found.tokenType)) {
    return `${found.tokenType.name} is a reserved word; write \`${found.image}\` to use it as a name`
  }
  if (before?.tokenType === T.Comma && (found === undefined || found.tokenType === T.RParen)) return "remove the trailing ','"
  if (found === undefined && e.types.includes(T.RParen)) {
    const open = unclosedParen(tokens, index)
    if (open) {
      const p = src.position(open.startOffset)
      return `add ')' to close the '(' at line ${p.line}, column ${p.column}`
    }
  }
  if (found && (found.tokenType === T.SELECT || found.tokenType === T.WITH) && e.types.includes(T.CASE)) {
    return 'a subquery in an expression goes in parentheses: (SELECT …)'
  }
  if (e.types.includes(T.StringLit) && e.paths.some(p => p.ruleStack.includes('optionList'))) {
    return "option keys and values are quoted strings, e.g. 'connector' = 'datagen'"
  }
  return undefined
}

/** The innermost '(' before `index` that has no matching ')'. */
function unclosedParen(tokens: readonly IToken[], index: number): IToken | undefined {
  const open: IToken[] = []
  for (let i = 0; i < index && i < tokens.length; i++) {
    const t = tokens[i]!.tokenType
    if (t === T.LParen) open.push(tokens[i]!)
    else if (t === T.RParen) open.pop()
    else if (t === T.Semicolon) open.length = 0
  }
  return open[open.length - 1]
}
