// Tab completion as a pure function of the text, the cursor and the names a session knows: what the
// word before the cursor can become, and the text that replaces it. Where the cursor is decides what
// is offered, as psql does: option keys (quoted) after SET and RESET; the tables and views after
// FROM, JOIN, INTO, TABLE and DESCRIBE; a table's columns after `t.` or `alias.`; elsewhere keywords,
// functions, the columns of the tables the statement reads (every known column when it reads none)
// and the table names.
import type { CompletionNames, NamedObject } from '../../index.js'

/** What Tab does at a cursor. */
export interface Completion {
  /** Where the replaced text starts; it ends at the cursor. */
  readonly from: number
  /**
   * What replaces text[from, cursor): the one candidate with what follows it (a space after a
   * keyword, `(` after a function, the closing quote of an option key), else the candidates' common
   * prefix — the typed text itself when they share no more.
   */
  readonly insert: string
  /** Every candidate, sorted (a second Tab lists them). */
  readonly candidates: readonly string[]
}

type Kind = 'keyword' | 'function' | 'object' | 'column' | 'option'

interface Candidate {
  readonly text: string
  readonly kind: Kind
}

interface Token {
  readonly kind: 'word' | 'string' | 'quoted' | 'punct' | 'comment'
  readonly text: string
  readonly start: number
  readonly end: number
  /** A string or quoted name whose closing quote was typed. */
  readonly closed: boolean
}

/** Words after which a table or view name comes. */
const OBJECT_BEFORE = new Set(['FROM', 'JOIN', 'INTO', 'TABLE', 'DESCRIBE', 'DESC', 'VIEW'])
/** Words that end a FROM clause (a comma after them separates expressions, not tables). */
const FROM_ENDS = new Set(['WHERE', 'GROUP', 'ORDER', 'HAVING', 'LIMIT', 'ON', 'USING', 'UNION', 'EXCEPT', 'INTERSECT', 'WINDOW', 'SELECT', 'VALUES'])

const NOTHING = (cursor: number): Completion => ({ from: cursor, insert: '', candidates: [] })

/**
 * The completion of the word before `cursor` in `text`.
 *
 * @example complete('SEL', 3, names)                // { from: 0, insert: 'SELECT ', candidates: ['SELECT'] }
 * @example complete("SET 'state.b", 12, names).insert // "'state.backend"  (state.backend, state.backend.incremental, …)
 */
export function complete(text: string, cursor: number, names: CompletionNames): Completion {
  const tokens = tokensOf(text)
  if (tokens.some(t => t.kind === 'comment' && t.start < cursor && cursor <= t.end)) return NOTHING(cursor)
  const all = tokens.filter(t => t.kind !== 'comment')
  // The statement around the cursor: from the ';' before it to the one after it.
  const before = all.filter(t => t.start < cursor)
  const lastSemi = before.findLastIndex(t => t.kind === 'punct' && t.text === ';')
  const nextSemi = all.findIndex((t, i) => i > lastSemi && t.kind === 'punct' && t.text === ';' && t.start >= cursor)
  const statement = all.slice(lastSemi + 1, nextSemi < 0 ? all.length : nextSemi)
  const ahead = statement.filter(t => t.start < cursor)
  const current = ahead.at(-1)
  const first = statement[0]?.kind === 'word' ? statement[0].text.toUpperCase() : ''

  if (first === 'SET' || first === 'RESET') {
    const option = optionKeyAt(text, cursor, ahead, names.options)
    if (option !== undefined) return option
  }
  if (current !== undefined && (current.kind === 'string' || current.kind === 'quoted') && (!current.closed || cursor < current.end)) return NOTHING(cursor)

  const typing = current !== undefined && current.kind === 'word' && current.end >= cursor
  const prefix = typing ? text.slice(current.start, cursor) : ''
  const from = cursor - prefix.length
  const previous = typing ? ahead.at(-2) : current
  const objects = referenced(statement, names.objects, cursor)

  if (previous?.kind === 'punct' && previous.text === '.') {
    const qualifier = ahead.at(typing ? -3 : -2)
    const obj = qualifier === undefined || qualifier.kind === 'punct' || qualifier.kind === 'string'
      ? undefined
      : objects.get(qualifier.text.toLowerCase()) ?? find(names.objects, qualifier.text)
    return completion(text, cursor, from, prefix, (obj?.columns ?? []).map(c => ({ text: c, kind: 'column' as const })))
  }
  const word = previous?.kind === 'word' ? previous.text.toUpperCase() : ''
  if (OBJECT_BEFORE.has(word)) {
    // CREATE TABLE / CREATE VIEW name something new.
    if ((word === 'TABLE' || word === 'VIEW') && first === 'CREATE') return NOTHING(cursor)
    const tables = completion(text, cursor, from, prefix, names.objects.map(o => ({ text: o.name, kind: 'object' as const })))
    if (tables.candidates.length > 0 || word === 'DESCRIBE' || word === 'DESC') return tables
  }
  const inScope = new Set(objects.values())
  const columns = (inScope.size > 0 ? [...inScope] : names.objects).flatMap(o => o.columns)
  return completion(text, cursor, from, prefix, [
    ...columns.map(c => ({ text: c, kind: 'column' as const })),
    // Table names and aliases, as qualifiers (`t.`): nothing is added after them here.
    ...[...objects.keys()].filter(alias => find(names.objects, alias) === undefined).map(a => ({ text: a, kind: 'column' as const })),
    ...names.objects.map(o => ({ text: o.name, kind: 'column' as const })),
    ...names.keywords.map(k => ({ text: k, kind: 'keyword' as const })),
    ...names.functions.map(f => ({ text: f, kind: 'function' as const })),
  ])
}

/**
 * An option key after SET or RESET, typed with its opening quote or without (Flink takes bare keys
 * too): undefined when the cursor is past the key.
 */
function optionKeyAt(text: string, cursor: number, ahead: readonly Token[], options: readonly string[]): Completion | undefined {
  const keyword = ahead[0]
  // The cursor still in SET itself: the keyword is being typed.
  if (keyword === undefined || cursor <= keyword.end) return undefined
  const rest = ahead.slice(1)
  if (rest.some(t => t.kind === 'punct' && t.text === '=')) return undefined
  const quoted = rest[0]?.kind === 'string' ? rest[0] : undefined
  if (quoted !== undefined && (rest.length > 1 || (quoted.closed && cursor >= quoted.end))) return undefined
  const from = quoted?.start ?? (rest[0]?.start ?? cursor)
  const typed = text.slice(from, cursor)
  if ((quoted === undefined && !/^[\w.-]*$/.test(typed))) return undefined
  const key = quoted === undefined ? typed : typed.slice(1)
  const found = options.filter(o => o.startsWith(key.toLowerCase()))
  if (found.length === 0) return NOTHING(cursor)
  const close = quoted?.closed === true ? '' : "' "
  const insert = found.length === 1 ? `'${found[0]}${close}` : `'${commonPrefix(found)}`
  return { from, insert: insert.length > typed.length || found.length === 1 ? insert : typed, candidates: found }
}

/** The completion among `offered` of `prefix` (typed from `from` to the cursor). */
function completion(text: string, cursor: number, from: number, prefix: string, offered: readonly Candidate[]): Completion {
  const lower = prefix.toLowerCase()
  // Keyword case follows the typing: a lower-case prefix gets lower-case keywords and functions.
  const caseOf = /[a-z]/.test(prefix) && !/[A-Z]/.test(prefix) ? (s: string) => s.toLowerCase() : (s: string) => s
  const byName = new Map<string, Candidate>()
  for (const c of offered) {
    if (!c.text.toLowerCase().startsWith(lower)) continue
    const shown = c.kind === 'keyword' || c.kind === 'function' ? { ...c, text: caseOf(c.text) } : c
    // A name the session defined wins over a keyword spelled the same (a column named `date`).
    const seen = byName.get(shown.text.toLowerCase())
    if (seen === undefined || rank(shown.kind) < rank(seen.kind)) byName.set(shown.text.toLowerCase(), shown)
  }
  const found = [...byName.values()].sort((a, b) => a.text.toLowerCase().localeCompare(b.text.toLowerCase()) || a.text.localeCompare(b.text))
  if (found.length === 0) return NOTHING(cursor)
  const candidates = found.map(c => c.text)
  if (found.length === 1) {
    const only = found[0]!
    const next = text[cursor] ?? ''
    const after = only.kind === 'function' ? (next === '(' ? '' : '(') : only.kind === 'column' || /[\s(]/.test(next) ? '' : ' '
    return { from, insert: only.text + after, candidates }
  }
  const common = commonPrefix(candidates)
  return { from, insert: common.length > prefix.length ? common : prefix, candidates }
}

function rank(kind: Kind): number {
  return kind === 'column' || kind === 'object' ? 0 : kind === 'function' ? 1 : 2
}

/** The longest prefix every string shares, compared without case (spelled as the first string has it). */
function commonPrefix(strings: readonly string[]): string {
  let n = strings[0]!.length
  for (const s of strings) {
    let i = 0
    while (i < n && i < s.length && s[i]!.toLowerCase() === strings[0]![i]!.toLowerCase()) i++
    n = i
  }
  return strings[0]!.slice(0, n)
}

function find(objects: readonly NamedObject[], name: string): NamedObject | undefined {
  const lower = name.toLowerCase()
  return objects.find(o => o.name.toLowerCase() === lower)
}

/**
 * The tables and views a statement reads or writes, by the names it gives them (their own, and
 * their aliases): the names after FROM, JOIN, TABLE and INTO, and after commas in a FROM clause.
 */
function referenced(statement: readonly Token[], objects: readonly NamedObject[], cursor: number): Map<string, NamedObject> {
  const found = new Map<string, NamedObject>()
  let inFrom = false
  for (let i = 0; i < statement.length; i++) {
    const t = statement[i]!
    const upper = t.kind === 'word' ? t.text.toUpperCase() : ''
    if (upper === 'FROM') inFrom = true
    else if (FROM_ENDS.has(upper)) inFrom = false
    const introduces = OBJECT_BEFORE.has(upper) || (inFrom && t.kind === 'punct' && t.text === ',')
    const name = statement[i + 1]
    if (!introduces || name === undefined || (name.kind !== 'word' && name.kind !== 'quoted')) continue
    const obj = find(objects, unquoted(name))
    if (obj === undefined) continue
    found.set(obj.name.toLowerCase(), obj)
    // `t AS a` or `t a`: an alias is a word that is not a keyword a FROM clause goes on with.
    let alias = statement[i + 2]
    if (alias?.kind === 'word' && alias.text.toUpperCase() === 'AS') alias = statement[i + 3]
    const aliasWord = alias?.kind === 'word' ? alias.text.toUpperCase() : ''
    // The word being typed is not an alias yet (`FROM t GRO|` is on its way to GROUP).
    if (alias !== undefined && !(alias.start < cursor && cursor <= alias.end) &&
      (alias.kind === 'quoted' || (alias.kind === 'word' && !FROM_ENDS.has(aliasWord) && !ALIAS_NOT.has(aliasWord))))
    {
      found.set(unquoted(alias).toLowerCase(), obj)
    }
  }
  return found
}

/** Words that may follow a table reference and are not its alias. */
const ALIAS_NOT = new Set(['JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'NATURAL', 'OUTER', 'LATERAL', 'FOR', 'AS', 'ON', 'WITH'])

function unquoted(t: Token): string {
  return t.kind === 'quoted' ? t.text.slice(1, t.closed ? -1 : undefined) : t.text
}

/** The text as words, strings, backquoted names and punctuation (comments skipped); unfinished quotes run to the end. */
function tokensOf(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (/\s/.test(c)) i++
    else if ((c === '-' && text[i + 1] === '-') || (c === '/' && text[i + 1] === '*')) {
      const close = c === '-' ? text.indexOf('\n', i) : text.indexOf('*/', i + 2)
      // An unclosed comment runs to the end (a line comment's end is its line's).
      const end = close < 0 ? text.length : c === '-' ? close : close + 2
      tokens.push({ kind: 'comment', text: text.slice(i, end), start: i, end: c === '-' || close < 0 ? end : end - 1, closed: true })
      i = end
    } else if (c === "'" || c === '`') {
      let j = i + 1
      let closed = false
      while (j < text.length) {
        if (text[j] === c && text[j + 1] === c) j += 2
        else if (text[j] === c) {
          closed = true
          j++
          break
        } else j++
      }
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', text: text.slice(i, j), start: i, end: j, closed })
      i = j
    } else if (WORD.test(c)) {
      let j = i + 1
      while (j < text.length && WORD.test(text[j]!)) j++
      tokens.push({ kind: 'word', text: text.slice(i, j), start: i, end: j, closed: true })
      i = j
    } else {
      tokens.push({ kind: 'punct', text: c, start: i, end: i + 1, closed: true })
      i++
    }
  }
  return tokens
}

const WORD = /[\p{L}\p{N}_$]/u

/**
 * The candidates laid out in columns across `width`, in at most `maxLines` lines (the last says how
 * many more there are when they do not all fit), as readline lists them: down the columns.
 */
export function listLines(candidates: readonly string[], width: number, maxLines: number): string[] {
  const columnWidth = Math.max(...candidates.map(c => c.length)) + 2
  const perLine = Math.max(1, Math.floor((width + 2) / columnWidth))
  const fits = candidates.length <= perLine * maxLines
  const shown = fits ? candidates : candidates.slice(0, perLine * Math.max(0, maxLines - 1))
  const lines = Math.ceil(shown.length / perLine)
  const out: string[] = []
  for (let l = 0; l < lines; l++) {
    let line = ''
    for (let c = 0; c < perLine; c++) {
      const item = shown[c * lines + l]
      if (item !== undefined) line += item.padEnd(columnWidth)
    }
    out.push(line.trimEnd().slice(0, width))
  }
  if (!fits) out.push(`… and ${candidates.length - shown.length} more`)
  return out
}
