// The SQL front end's public API: text → AST statements or one expression, or a WeirError (kind 'syntax').
// Chevrotain stays behind this file; callers see only the AST of ast.ts and WeirError.
import { WeirError } from '../common/errors.js'
import type { Expr, Statement } from './ast.js'
import { Spans, type CstNode } from './cst.js'
import { syntaxError, type ParseMode } from './errors.js'
import { lex } from './lexer.js'
import { KEYWORDS } from './tokens.js'
import { SqlParser } from './parser.js'
import { SourceText } from './source.js'
import { expression, script } from './to-ast.js'
import { INTERVAL_UNITS, TYPE_NAMES } from './to-ast-expr.js'

export type * from './ast.js'
export { padTo, splitStatements, type SplitText, type StatementText } from './statements.js'

/** Built once: Chevrotain analyses the grammar in the constructor, which takes ~100 ms. */
const parser = new SqlParser()

/**
 * Parses a script of `;`-separated statements (a trailing `;` is optional; empty statements are skipped).
 *
 * @example parseSql("SET 'parallelism.default' = '2'; SELECT a FROM t") // [SetOption, QueryStatement]
 * @throws WeirError of kind 'syntax' pointing at the first error
 */
export function parseSql(text: string): Statement[] {
  return run(text, 'script', (cst, spans) => script(cst, spans))
}

/**
 * Parses one expression, e.g. for tests and tools.
 *
 * @example parseExpression('a + 1 > b') // BinaryOp('>', BinaryOp('+', a, 1), b)
 */
export function parseExpression(text: string): Expr {
  return run(text, 'expression', (cst, spans) => expression(cst.children['expression']![0] as CstNode, spans))
}

/** The words the grammar reads, upper case and sorted: its keywords, the type names and the interval units (completion offers them). */
export function sqlWords(): string[] {
  return [...new Set([...KEYWORDS.keys(), ...Object.keys(TYPE_NAMES), ...INTERVAL_UNITS])].sort()
}

function run<R>(text: string, mode: ParseMode, build: (cst: CstNode, spans: Spans) => R): R {
  const src = new SourceText(text)
  try {
    const tokens = lex(src)
    parser.input = tokens
    const cst = mode === 'script' ? parser.script() : parser.standaloneExpression()
    const error = parser.errors[0]
    if (error !== undefined) throw syntaxError(parser, error, tokens, src, mode)
    return build(cst, new Spans(src))
  } catch (e) {
    if (e instanceof WeirError) throw e
    if (e instanceof RangeError) {
      throw WeirError.syntax('the SQL is nested too deeply to parse', { help: 'simplify deeply nested parentheses or expressions', cause: e })
    }
    throw WeirError.internal(`the parser failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e })
  } finally {
    // Drop the token array so the parser does not keep the last input alive.
    parser.input = []
  }
}
