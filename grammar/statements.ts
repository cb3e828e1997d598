// Where statements end in text typed or piped a line at a time: at a ';' outside string literals,
// quoted names and comments. The REPL runs a statement once it is complete and keeps reading
// lines while it is not; parsing stays with parseSql.

/** One complete statement of a text: its text up to and with its ';', and where it starts. */
export interface StatementText {
  readonly text: string
  /** Where it starts in the whole text (errors point into the whole text: see padTo). */
  readonly offset: number
}

/** The complete statements of `text`, and what follows the last one. */
export interface SplitText {
  readonly statements: readonly StatementText[]
  /** The text after the last ';' (an unfinished statement, or only blanks and comments). */
  readonly rest: string
  /** `rest` holds nothing but blanks and complete comments. */
  readonly restIsBlank: boolean
}

/**
 * Splits `text` at the semicolons that end statements. Empty statements (`;;`) are skipped. A
 * statement set (`BEGIN STATEMENT SET; …; END;`, `EXECUTE STATEMENT SET BEGIN …; END;`) is one
 * statement, complete at its END.
 *
 * @example splitStatements("SET 'a' = ';'; SELECT 1\n") // statements: ["SET 'a' = ';';"], rest: ' SELECT 1\n'
 */
export function splitStatements(text: string): SplitText {
  const statements: StatementText[] = []
  /** Where the statement set being read started, if one is open. */
  let setStart = -1
  let start = 0
  let blank = true // nothing but blanks and comments since `start`
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (c === "'" || c === '`') {
      blank = false
      const end = closingQuote(text, i, c)
      if (end < 0) return { statements, rest: text.slice(setStart >= 0 ? setStart : start), restIsBlank: false }
      i = end
    } else if (c === '-' && text[i + 1] === '-') {
      const eol = text.indexOf('\n', i)
      i = eol < 0 ? n : eol + 1
    } else if (c === '/' && text[i + 1] === '*') {
      // Hints (/*+ … */) close the same way; a ';' inside one does not end the statement.
      const close = text.indexOf('*/', i + 2)
      if (close < 0) return { statements, rest: text.slice(setStart >= 0 ? setStart : start), restIsBlank: false }
      if (text[i + 2] === '+') blank = false
      i = close + 2
    } else if (c === ';') {
      i++
      if (!blank) {
        const words = wordsOf(text.slice(start, i - 1))
        if (setStart >= 0) {
          if (words === 'END') {
            statements.push({ text: text.slice(setStart, i), offset: setStart })
            setStart = -1
          }
        } else if (OPENS_SET.test(words)) setStart = start
        else statements.push({ text: text.slice(start, i), offset: start })
      }
      start = i
      blank = true
    } else {
      if (!/\s/.test(c)) blank = false
      i++
    }
  }
  if (setStart >= 0) return { statements, rest: text.slice(setStart), restIsBlank: false }
  return { statements, rest: text.slice(start), restIsBlank: blank }
}

/** The start of a statement that opens a statement set (EXPLAIN's details are words, possibly comma-separated). */
const OPENS_SET = /^(?:EXPLAIN(?: [A-Z_]+(?: ?, ?[A-Z_]+)*)? )?(?:EXECUTE )?STATEMENT SET BEGIN\b|^BEGIN STATEMENT SET$/

/** A statement's words, upper case, single-spaced, without comments (a test for the words that open and end statement sets). */
function wordsOf(statement: string): string {
  return statement.replace(/--[^\n]*|\/\*(?!\+)[\s\S]*?\*\//g, ' ').trim().replace(/\s+/g, ' ').toUpperCase()
}

/** The offset after the quote that closes the one at `open` (a doubled quote is an escaped one), or -1. */
function closingQuote(text: string, open: number, quote: string): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] !== quote) continue
    if (text[i + 1] === quote) i++
    else return i + 1
  }
  return -1
}

/**
 * The statement with everything before it in `whole` blanked out (newlines kept), so the spans of
 * its errors point at its place in the whole text, and renderError can show the whole text's line.
 */
export function padTo(whole: string, statement: StatementText): string {
  return whole.slice(0, statement.offset).replace(/[^\n]/g, ' ') + statement.text
}
