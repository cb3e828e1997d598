// The REPL's multi-line editor as a pure reducer: text and cursor, readline's keys, history browsing
// and Ctrl-R search. A statement is submitted by Enter once the text ends with a complete
// statement (';' outside quotes and comments); before that Enter adds a line.
import { splitStatements } from '../../index.js'
import type { Completion } from './completion.js'

/** Reverse incremental search (Ctrl-R): what is typed, and the history entry it found. */
export interface Search {
  readonly query: string
  /** Index in history of the entry shown, undefined when nothing matches. */
  readonly match: number | undefined
  /** The text before the search began, restored when it is cancelled. */
  readonly before: string
}

export interface EditorState {
  /** The whole input, lines separated by '\n'. */
  readonly text: string
  /** Offset into `text`. */
  readonly cursor: number
  /** Statements run before, oldest first. */
  readonly history: readonly string[]
  /** The entry shown while browsing history; history.length is the text being typed (`draft`). */
  readonly historyAt: number
  readonly draft: string
  /** What Ctrl-U/K/W cut last, for Ctrl-Y. */
  readonly killed: string
  readonly search?: Search
  /** The last key was a Tab that left several candidates: another Tab lists them. */
  readonly tabbed?: boolean
  /** The candidates a second Tab listed, shown under the prompt until the next key. */
  readonly listing?: readonly string[]
}

/** A key, as the editor understands it (keys.ts turns a terminal's keys into these). */
export type EditKey =
  | { readonly kind: 'insert'; readonly text: string }
  | {
    readonly kind:
      | 'left'
      | 'right'
      | 'up'
      | 'down'
      | 'lineStart'
      | 'lineEnd'
      | 'wordLeft'
      | 'wordRight'
      | 'backspace'
      | 'deleteForward'
      | 'enter'
      | 'killToStart'
      | 'killToEnd'
      | 'killWordBack'
      | 'yank'
      | 'search'
      | 'cancel'
  }

/** What a key did: the new state, and the text to run when Enter completed a statement. */
export interface Edited {
  readonly state: EditorState
  readonly submit?: string
}

/** How many statements the history keeps. */
export const HISTORY_LIMIT = 1000

export function initialEditor(history: readonly string[] = []): EditorState {
  return { text: '', cursor: 0, history, historyAt: history.length, draft: '', killed: '' }
}

/** Whether `text` ends with a complete statement, with nothing after it but blanks and comments. */
export function isComplete(text: string): boolean {
  const split = splitStatements(text)
  return split.statements.length > 0 && split.restIsBlank
}

/**
 * Applies one key.
 *
 * @example edit(withText('SELECT 1;'), { kind: 'enter' }).submit // 'SELECT 1;'
 */
export function edit(state: EditorState, key: EditKey): Edited {
  if (state.tabbed === true || state.listing !== undefined) state = { ...state, tabbed: false, listing: undefined }
  if (state.search !== undefined) return searching(state, state.search, key)
  const { text, cursor } = state
  const at = (t: string, c: number, extra: Partial<EditorState> = {}): Edited => ({ state: { ...state, text: t, cursor: c, ...extra } })
  switch (key.kind) {
    case 'insert': {
      // Pasted text may bring its own line ends.
      const typed = key.text.replace(/\r\n?/g, '\n')
      return at(text.slice(0, cursor) + typed + text.slice(cursor), cursor + typed.length)
    }
    case 'left':
      return at(text, Math.max(0, cursor - 1))
    case 'right':
      return at(text, Math.min(text.length, cursor + 1))
    case 'lineStart':
      return at(text, lineStart(text, cursor))
    case 'lineEnd':
      return at(text, lineEnd(text, cursor))
    case 'wordLeft':
      return at(text, wordLeft(text, cursor))
    case 'wordRight':
      return at(text, wordRight(text, cursor))
    case 'up':
      return lineStart(text, cursor) === 0 ? { state: browse(state, state.historyAt - 1) } : at(text, verticalMove(text, cursor, -1))
    case 'down':
      return lineEnd(text, cursor) === text.length ? { state: browse(state, state.historyAt + 1) } : at(text, verticalMove(text, cursor, 1))
    case 'backspace':
      return cursor === 0 ? { state } : at(text.slice(0, cursor - 1) + text.slice(cursor), cursor - 1)
    case 'deleteForward':
      return at(text.slice(0, cursor) + text.slice(cursor + 1), cursor)
    case 'killToStart': {
      const from = lineStart(text, cursor)
      return at(text.slice(0, from) + text.slice(cursor), from, { killed: text.slice(from, cursor) })
    }
    case 'killToEnd': {
      const to = lineEnd(text, cursor)
      return at(text.slice(0, cursor) + text.slice(to), cursor, { killed: text.slice(cursor, to) })
    }
    case 'killWordBack': {
      // As readline's unix-word-rubout: back over blanks, then over what is not blank.
      let from = cursor
      while (from > 0 && /\s/.test(text[from - 1]!)) from--
      while (from > 0 && !/\s/.test(text[from - 1]!)) from--
      return at(text.slice(0, from) + text.slice(cursor), from, { killed: text.slice(from, cursor) })
    }
    case 'yank':
      return at(text.slice(0, cursor) + state.killed + text.slice(cursor), cursor + state.killed.length)
    case 'enter': {
      if (!isComplete(text)) return at(text.slice(0, cursor) + '\n' + text.slice(cursor), cursor + 1)
      const history = remember(state.history, text.trim())
      return { state: { ...initialEditor(history), killed: state.killed }, submit: text }
    }
    case 'search':
      return { state: { ...state, search: find(state.history, '', state.history.length, text) } }
    case 'cancel':
      // Ctrl-C at the prompt drops what was typed, as in psql and bash.
      return { state: { ...initialEditor(state.history), killed: state.killed } }
  }
}

/**
 * Tab, given what completion found at the cursor (completion.ts): one candidate or a longer common
 * prefix replaces the word; when several candidates are left, the next Tab lists them, as readline.
 */
export function completeIn(state: EditorState, completion: Completion): EditorState {
  if (state.search !== undefined) return state
  const { text, cursor } = state
  const several = completion.candidates.length > 1
  if (several && state.tabbed === true) return { ...state, tabbed: false, listing: completion.candidates }
  const inserted = text.slice(0, completion.from) + completion.insert + text.slice(cursor)
  return { ...state, text: inserted, cursor: completion.from + completion.insert.length, tabbed: several, listing: undefined }
}

/** Keys while Ctrl-R searches: typing refines, Ctrl-R finds an older match, Esc/Ctrl-C restore, others accept. */
function searching(state: EditorState, search: Search, key: EditKey): Edited {
  const found = search.match === undefined ? search.before : state.history[search.match]!
  switch (key.kind) {
    case 'insert':
      return { state: { ...state, search: find(state.history, search.query + key.text, (search.match ?? state.history.length - 1) + 1, search.before) } }
    case 'backspace':
      return { state: { ...state, search: find(state.history, search.query.slice(0, -1), state.history.length, search.before) } }
    case 'search':
      return { state: { ...state, search: find(state.history, search.query, search.match ?? state.history.length, search.before) } }
    case 'cancel':
      return { state: { ...state, search: undefined, text: search.before, cursor: search.before.length } }
    case 'enter':
      // Enter takes the match into the editor; a second Enter runs it (a found statement may need a change first).
      return { state: { ...state, search: undefined, text: found, cursor: found.length } }
    default:
      return edit({ ...state, search: undefined, text: found, cursor: found.length }, key)
  }
}

/** The latest entry before index `below` that contains `query` (any entry when the query is empty). */
function find(history: readonly string[], query: string, below: number, before: string): Search {
  const q = query.toLowerCase()
  for (let i = Math.min(below, history.length) - 1; i >= 0; i--) {
    if (history[i]!.toLowerCase().includes(q)) return { query, match: i, before }
  }
  return { query, match: undefined, before }
}

/** Shows history entry `to` (history.length: the text that was being typed). */
function browse(state: EditorState, to: number): EditorState {
  if (to < 0 || to > state.history.length || to === state.historyAt) return state
  const draft = state.historyAt === state.history.length ? state.text : state.draft
  const text = to === state.history.length ? draft : state.history[to]!
  return { ...state, text, cursor: text.length, historyAt: to, draft }
}

/** History with `entry` last (a repeat of the last one is kept once), at most HISTORY_LIMIT entries. */
export function remember(history: readonly string[], entry: string): readonly string[] {
  if (entry === '' || history.at(-1) === entry) return history
  return [...history, entry].slice(-HISTORY_LIMIT)
}

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1
}

function lineEnd(text: string, cursor: number): number {
  const eol = text.indexOf('\n', cursor)
  return eol < 0 ? text.length : eol
}

/** The same column one line up (-1) or down (1), or the end of that line when it is shorter. */
function verticalMove(text: string, cursor: number, dir: -1 | 1): number {
  const column = cursor - lineStart(text, cursor)
  const start = dir < 0 ? lineStart(text, lineStart(text, cursor) - 1) : lineEnd(text, cursor) + 1
  return Math.min(start + column, lineEnd(text, start))
}

const WORD = /[\p{L}\p{N}_]/u

function wordLeft(text: string, cursor: number): number {
  let i = cursor
  while (i > 0 && !WORD.test(text[i - 1]!)) i--
  while (i > 0 && WORD.test(text[i - 1]!)) i--
  return i
}

function wordRight(text: string, cursor: number): number {
  let i = cursor
  while (i < text.length && !WORD.test(text[i]!)) i++
  while (i < text.length && WORD.test(text[i]!)) i++
  return i
}
