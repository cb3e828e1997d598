// Token types shared by the lexer and the parser: punctuation, literals, and keywords.
// Reserved keywords can never be names; non-reserved ones (DATE, KEY, COMMENT, …) belong to the Name
// category, so `date` or `key` work as column names wherever the grammar expects a name.
import type { TokenType } from 'chevrotain'
import { createToken, Lexer } from './chevrotain.js'

// ---------------------------------------------------------------- categories

/** Anything usable as a name: identifiers, quoted identifiers, non-reserved keywords. */
export const Name = createToken({ name: 'Name', pattern: Lexer.NA, label: 'a name' })
/** Any bare word, reserved or not: used for unquoted option keys such as table.exec.state.ttl. */
export const Word = createToken({ name: 'Word', pattern: Lexer.NA, label: 'a word' })
export const CompareOp = createToken({ name: 'CompareOp', pattern: Lexer.NA, label: 'a comparison' })
export const AddOp = createToken({ name: 'AddOp', pattern: Lexer.NA, label: "'+' or '-'" })
export const MulOp = createToken({ name: 'MulOp', pattern: Lexer.NA, label: "'*', '/' or '%'" })

// ---------------------------------------------------------------- literals and names

export const Identifier = createToken({ name: 'Identifier', pattern: Lexer.NA, categories: [Name, Word], label: 'a name' })
export const QuotedIdentifier = createToken({ name: 'QuotedIdentifier', pattern: Lexer.NA, categories: [Name], label: 'a name' })
export const StringLit = createToken({ name: 'StringLit', pattern: Lexer.NA, label: 'a string' })
export const NumberLit = createToken({ name: 'NumberLit', pattern: Lexer.NA, label: 'a number' })
/**
 * TIMESTAMP, TIMESTAMP_LTZ or DATE right before a string: the lexer tells typed literals
 * (`DATE '2024-01-01'`) from the same words used as names, so the parser needs no extra lookahead.
 */
export const LiteralPrefix = createToken({ name: 'LiteralPrefix', pattern: Lexer.NA, label: 'a typed literal' })

// ---------------------------------------------------------------- punctuation

function punct(name: string, text: string, categories: TokenType[] = []): TokenType {
  return createToken({ name, pattern: Lexer.NA, label: `'${text}'`, categories })
}

export const LParen = punct('LParen', '(')
export const RParen = punct('RParen', ')')
export const LBracket = punct('LBracket', '[')
export const RBracket = punct('RBracket', ']')
export const Comma = punct('Comma', ',')
export const Semicolon = punct('Semicolon', ';')
export const Dot = punct('Dot', '.')
export const Star = punct('Star', '*', [MulOp])
export const Slash = punct('Slash', '/', [MulOp])
export const Percent = punct('Percent', '%', [MulOp])
export const Plus = punct('Plus', '+', [AddOp])
export const Minus = punct('Minus', '-', [AddOp])
export const Concat = punct('Concat', '||')
export const Eq = punct('Eq', '=', [CompareOp])
export const NotEq = punct('NotEq', '<>', [CompareOp])
export const Lt = punct('Lt', '<', [CompareOp])
export const LtEq = punct('LtEq', '<=', [CompareOp])
export const Gt = punct('Gt', '>', [CompareOp])
export const GtEq = punct('GtEq', '>=', [CompareOp])
export const Arrow = punct('Arrow', '=>')
export const HintStart = createToken({ name: 'HintStart', pattern: Lexer.NA, label: 'a hint' })
export const HintEnd = punct('HintEnd', '*/')

// ---------------------------------------------------------------- keywords

/** Upper-cased word → keyword token type; the lexer looks every bare word up here. */
export const KEYWORDS = new Map<string, TokenType>()
const keywordTypes: TokenType[] = []

function keyword(word: string, reserved: boolean): TokenType {
  const t = createToken({ name: word, pattern: Lexer.NA, label: word, categories: reserved ? [Word] : [Name, Word] })
  KEYWORDS.set(word, t)
  keywordTypes.push(t)
  return t
}
const reserved = (word: string) => keyword(word, true)
const nonReserved = (word: string) => keyword(word, false)

// Reserved: words that may follow an expression or a table reference (so they cannot be read as an
// implicit alias), words that start special expression syntax, and the SQL structure words.
export const ALL = reserved('ALL')
export const AND = reserved('AND')
export const AS = reserved('AS')
export const ASYMMETRIC = reserved('ASYMMETRIC')
export const BETWEEN = reserved('BETWEEN')
export const BOTH = reserved('BOTH')
export const BY = reserved('BY')
export const CASE = reserved('CASE')
export const CAST = reserved('CAST')
export const CEIL = reserved('CEIL')
export const CEILING = reserved('CEILING')
export const CONSTRAINT = reserved('CONSTRAINT')
export const CREATE = reserved('CREATE')
export const CROSS = reserved('CROSS')
export const CURRENT_DATE = reserved('CURRENT_DATE')
export const CURRENT_TIME = reserved('CURRENT_TIME')
export const CURRENT_TIMESTAMP = reserved('CURRENT_TIMESTAMP')
export const DESCRIPTOR = reserved('DESCRIPTOR')
export const DISTINCT = reserved('DISTINCT')
export const DROP = reserved('DROP')
export const ELSE = reserved('ELSE')
export const END = reserved('END')
export const ESCAPE = reserved('ESCAPE')
export const EXCEPT = reserved('EXCEPT')
export const EXISTS = reserved('EXISTS')
export const EXTRACT = reserved('EXTRACT')
export const FALSE = reserved('FALSE')
export const FETCH = reserved('FETCH')
export const FILTER = reserved('FILTER')
export const FLOOR = reserved('FLOOR')
export const FOR = reserved('FOR')
export const FROM = reserved('FROM')
export const FULL = reserved('FULL')
export const GROUP = reserved('GROUP')
export const HAVING = reserved('HAVING')
export const IN = reserved('IN')
export const INNER = reserved('INNER')
export const INSERT = reserved('INSERT')
export const INTERSECT = reserved('INTERSECT')
export const INTERVAL = reserved('INTERVAL')
export const INTO = reserved('INTO')
export const IS = reserved('IS')
export const JOIN = reserved('JOIN')
export const LATERAL = reserved('LATERAL')
export const LEADING = reserved('LEADING')
export const LEFT = reserved('LEFT')
export const LIKE = reserved('LIKE')
export const LIMIT = reserved('LIMIT')
export const LOCALTIME = reserved('LOCALTIME')
export const LOCALTIMESTAMP = reserved('LOCALTIMESTAMP')
export const NOT = reserved('NOT')
export const NULL = reserved('NULL')
export const ON = reserved('ON')
export const OR = reserved('OR')
export const ORDER = reserved('ORDER')
export const OUTER = reserved('OUTER')
export const OVER = reserved('OVER')
export const OVERLAY = reserved('OVERLAY')
export const PARTITION = reserved('PARTITION')
export const POSITION = reserved('POSITION')
export const PRIMARY = reserved('PRIMARY')
export const RIGHT = reserved('RIGHT')
export const SELECT = reserved('SELECT')
export const SIMILAR = reserved('SIMILAR')
export const OVERLAPS = reserved('OVERLAPS')
export const SUBSTRING = reserved('SUBSTRING')
export const SYMMETRIC = reserved('SYMMETRIC')
export const TABLE = reserved('TABLE')
export const THEN = reserved('THEN')
export const TO = reserved('TO')
export const TRAILING = reserved('TRAILING')
export const TRIM = reserved('TRIM')
export const TRUE = reserved('TRUE')
export const TRY_CAST = reserved('TRY_CAST')
export const UNION = reserved('UNION')
export const USING = reserved('USING')
export const VALUES = reserved('VALUES')
export const WATERMARK = reserved('WATERMARK')
export const WHEN = reserved('WHEN')
export const WHERE = reserved('WHERE')
export const WINDOW = reserved('WINDOW')
export const WITH = reserved('WITH')

// Non-reserved: only special where the grammar asks for them; names everywhere else.
export const ASC = nonReserved('ASC')
export const BEGIN = nonReserved('BEGIN')
export const CATALOG = nonReserved('CATALOG')
export const CATALOGS = nonReserved('CATALOGS')
export const COMMENT = nonReserved('COMMENT')
export const CURRENT = nonReserved('CURRENT')
export const DATABASE = nonReserved('DATABASE')
export const DATABASES = nonReserved('DATABASES')
export const DATE = nonReserved('DATE')
export const DESC = nonReserved('DESC')
export const DESCRIBE = nonReserved('DESCRIBE')
export const ENFORCED = nonReserved('ENFORCED')
export const EXECUTE = nonReserved('EXECUTE')
export const EXPLAIN = nonReserved('EXPLAIN')
export const FIRST = nonReserved('FIRST')
export const FOLLOWING = nonReserved('FOLLOWING')
export const IF = nonReserved('IF')
export const KEY = nonReserved('KEY')
export const LAST = nonReserved('LAST')
export const LOCAL = nonReserved('LOCAL')
export const METADATA = nonReserved('METADATA')
export const NEXT = nonReserved('NEXT')
export const NULLS = nonReserved('NULLS')
export const OFFSET = nonReserved('OFFSET')
export const ONLY = nonReserved('ONLY')
export const OVERWRITE = nonReserved('OVERWRITE')
export const PARTITIONED = nonReserved('PARTITIONED')
export const PLACING = nonReserved('PLACING')
export const PLAN = nonReserved('PLAN')
export const PRECEDING = nonReserved('PRECEDING')
export const PRECISION = nonReserved('PRECISION')
export const RANGE = nonReserved('RANGE')
export const RESET = nonReserved('RESET')
export const ROW = nonReserved('ROW')
export const ROWS = nonReserved('ROWS')
export const SET = nonReserved('SET')
export const SHOW = nonReserved('SHOW')
export const STATEMENT = nonReserved('STATEMENT')
export const STOP = nonReserved('STOP')
export const JOB = nonReserved('JOB')
export const JOBS = nonReserved('JOBS')
export const SAVEPOINT = nonReserved('SAVEPOINT')
export const FUNCTION = nonReserved('FUNCTION')
export const FUNCTIONS = nonReserved('FUNCTIONS')
export const TABLES = nonReserved('TABLES')
export const TEMPORARY = nonReserved('TEMPORARY')
export const TIME = nonReserved('TIME')
export const TIMESTAMP = nonReserved('TIMESTAMP')
export const TIMESTAMP_LTZ = nonReserved('TIMESTAMP_LTZ')
export const UNBOUNDED = nonReserved('UNBOUNDED')
export const UNKNOWN = nonReserved('UNKNOWN')
export const USE = nonReserved('USE')
export const VIEW = nonReserved('VIEW')
export const VIEWS = nonReserved('VIEWS')
export const VIRTUAL = nonReserved('VIRTUAL')
export const WITHOUT = nonReserved('WITHOUT')
export const ZONE = nonReserved('ZONE')
// Statement words of ALTER TABLE / ALTER VIEW.
export const ALTER = nonReserved('ALTER')
export const RENAME = nonReserved('RENAME')
export const ADD = nonReserved('ADD')
export const MODIFY = nonReserved('MODIFY')
export const AFTER = nonReserved('AFTER')
export const COLUMNS = nonReserved('COLUMNS')

/** Every token type, categories included: the parser's vocabulary. */
export const ALL_TOKENS: readonly TokenType[] = [
  Name,
  Word,
  CompareOp,
  AddOp,
  MulOp,
  Identifier,
  QuotedIdentifier,
  StringLit,
  NumberLit,
  LiteralPrefix,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Semicolon,
  Dot,
  Star,
  Slash,
  Percent,
  Plus,
  Minus,
  Concat,
  Eq,
  NotEq,
  Lt,
  LtEq,
  Gt,
  GtEq,
  Arrow,
  HintStart,
  HintEnd,
  ...keywordTypes,
]

/** True for keywords that cannot be used as names without backquotes. */
export function isReservedKeyword(t: TokenType): boolean {
  return KEYWORDS.get(t.name) === t && !(t.CATEGORIES ?? []).includes(Name)
}
