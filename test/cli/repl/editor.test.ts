// The REPL's editor reducer: Enter runs a complete statement or adds a line, readline's keys,
// history browsing and Ctrl-R search; and how a terminal's input turns into keys.
import { describe, expect, it } from 'vitest'
import { completeIn, edit, initialEditor, remember, HISTORY_LIMIT, type EditKey, type EditorState } from '../../../cli/repl/editor.js'
import { keysOf } from '../../../cli/repl/keys.js'
import type { Key } from 'ink'

function type(state: EditorState, ...keys: (EditKey | string)[]): { state: EditorState; submitted: string[] } {
  const submitted: string[] = []
  for (const k of keys) {
    const r = edit(state, typeof k === 'string' ? { kind: 'insert', text: k } : k)
    state = r.state
    if (r.submit !== undefined) submitted.push(r.submit)
  }
  return { state, submitted }
}
const key = (kind: Exclude<EditKey['kind'], 'insert'>): EditKey => ({ kind }) as EditKey
const at = (s: EditorState): string => s.text.slice(0, s.cursor) + '|' + s.text.slice(s.cursor)

describe('the editor', () => {
  it('adds a line on Enter until the statement ends with a semicolon outside quotes', () => {
    const r = type(initialEditor(), 'SELECT 1', key('enter'), "  , ';'", key('enter'), ';', key('enter'))
    expect(r.submitted).toEqual(["SELECT 1\n  , ';'\n;"])
    expect(r.state.text).toBe('')
    expect(r.state.history).toEqual(["SELECT 1\n  , ';'\n;"])
  })

  it('splits the line at the cursor on Enter in an unfinished statement', () => {
    const r = type(initialEditor(), 'SELECT a FROM t', key('wordLeft'), key('wordLeft'), key('enter'))
    expect(at(r.state)).toBe('SELECT a \n|FROM t')
    expect(r.submitted).toEqual([])
  })

  it('moves as readline does: Home/End, Ctrl-A/E on the current line, word jumps', () => {
    let s = type(initialEditor(), 'SELECT a_b,\n  c FROM t').state
    s = edit(s, key('lineStart')).state
    expect(at(s)).toBe('SELECT a_b,\n|  c FROM t')
    s = edit(s, key('wordRight')).state
    expect(at(s)).toBe('SELECT a_b,\n  c| FROM t')
    s = edit(s, key('up')).state
    expect(at(s)).toBe('SEL|ECT a_b,\n  c FROM t')
    s = edit(s, key('lineEnd')).state
    expect(at(s)).toBe('SELECT a_b,|\n  c FROM t')
    s = edit(s, key('wordLeft')).state
    expect(at(s)).toBe('SELECT |a_b,\n  c FROM t')
    s = edit(s, key('down')).state
    expect(at(s)).toBe('SELECT a_b,\n  c FRO|M t')
  })

  it('cuts with Ctrl-U, Ctrl-K and Ctrl-W and pastes the cut with Ctrl-Y', () => {
    let s = type(initialEditor(), 'SELECT a, bcd FROM t').state
    s = edit(s, key('killWordBack')).state
    expect(at(s)).toBe('SELECT a, bcd FROM |')
    s = type(s, key('wordLeft'), key('wordLeft'), key('killToEnd')).state
    expect(at(s)).toBe('SELECT a, |')
    s = edit(s, key('yank')).state
    expect(at(s)).toBe('SELECT a, bcd FROM |')
    s = type(s, key('left'), key('left'), key('killToStart')).state
    expect(at(s)).toBe('|M ')
    s = type(s, key('backspace'), key('deleteForward')).state
    expect(at(s)).toBe('| ')
  })

  it('browses history with Up and Down and gives back the text being typed', () => {
    let s = type(initialEditor(['SELECT 1;', 'SELECT 2;']), 'SEL').state
    s = edit(s, key('up')).state
    expect(s.text).toBe('SELECT 2;')
    s = edit(s, key('up')).state
    expect(s.text).toBe('SELECT 1;')
    s = edit(s, key('up')).state
    expect(s.text).toBe('SELECT 1;')
    s = type(s, key('down'), key('down')).state
    expect(at(s)).toBe('SEL|')
  })

  it('searches history backwards with Ctrl-R, Enter takes the match, Ctrl-C gives the text back', () => {
    const history = ['SELECT a FROM t;', 'SHOW TABLES;', 'SELECT b FROM t;']
    let s = type(initialEditor(history), 'x', key('search'), 'SEL').state
    expect(s.search?.match).toBe(2)
    s = edit(s, key('search')).state
    expect(s.search?.match).toBe(0)
    const taken = edit(s, key('enter'))
    expect(taken.submit).toBeUndefined()
    expect(taken.state.text).toBe('SELECT a FROM t;')
    expect(edit(s, key('cancel')).state.text).toBe('x')
    expect(type(initialEditor(history), key('search'), 'nothing').state.search?.match).toBeUndefined()
  })

  it('keeps a repeat of the last entry once and at most HISTORY_LIMIT entries', () => {
    expect(remember(['a;'], 'a;')).toEqual(['a;'])
    const full = Array.from({ length: HISTORY_LIMIT }, (_, i) => `s${i};`)
    const more = remember(full, 'new;')
    expect(more).toHaveLength(HISTORY_LIMIT)
    expect(more[0]).toBe('s1;')
    expect(more.at(-1)).toBe('new;')
  })
})

describe('terminal keys', () => {
  it('splits input that came at once into text and the control keys in it', () => {
    expect(keysOf('', { ctrl: false } as Key)).toEqual([])
    const flags = { ctrl: false, meta: false } as Key
    expect(keysOf('ab\x7fc;\r\x01', flags)).toEqual([
      { kind: 'insert', text: 'ab' },
      { kind: 'backspace' },
      { kind: 'insert', text: 'c;' },
      { kind: 'enter' },
      { kind: 'lineStart' },
    ])
  })

  it('maps word jumps from Ctrl and Alt arrows and Alt-b/f, and Backspace sent as DEL', () => {
    expect(keysOf('', { leftArrow: true, ctrl: true } as Key)).toEqual([{ kind: 'wordLeft' }])
    expect(keysOf('', { rightArrow: true, meta: true } as Key)).toEqual([{ kind: 'wordRight' }])
    expect(keysOf('b', { meta: true } as Key)).toEqual([{ kind: 'wordLeft' }])
    expect(keysOf('', { delete: true } as Key)).toEqual([{ kind: 'backspace' }])
    expect(keysOf('d', { ctrl: true } as Key)).toEqual([{ kind: 'eof' }])
  })

  it('maps Tab, alone or among other input, and not Shift-Tab', () => {
    expect(keysOf('', { tab: true } as Key)).toEqual([{ kind: 'tab' }])
    expect(keysOf('', { tab: true, shift: true } as Key)).toEqual([])
    expect(keysOf('SEL\tx', { ctrl: false, meta: false } as Key)).toEqual([{ kind: 'insert', text: 'SEL' }, { kind: 'tab' }, { kind: 'insert', text: 'x' }])
  })
})

describe('Tab in the editor', () => {
  const several = { from: 7, insert: 'CURRENT_TIME', candidates: ['CURRENT_TIME', 'CURRENT_TIMESTAMP'] }

  it('replaces the word with the completion, and lists the candidates on the next Tab only', () => {
    let state = type(initialEditor(), 'SELECT CURRENT_T').state
    state = completeIn(state, several)
    expect(at(state)).toBe('SELECT CURRENT_TIME|')
    expect(state.listing).toBeUndefined()
    state = completeIn(state, { ...several, insert: 'CURRENT_TIME' })
    expect(state.listing).toEqual(['CURRENT_TIME', 'CURRENT_TIMESTAMP'])
    // Any other key takes the list away, and the next Tab starts over.
    state = edit(state, { kind: 'insert', text: 'S' }).state
    expect(state.listing).toBeUndefined()
    state = completeIn(state, { from: 7, insert: 'CURRENT_TIMES', candidates: ['CURRENT_TIMESTAMP', 'CURRENT_TIMESTAMPS'] })
    expect(state.listing).toBeUndefined()
    expect(at(state)).toBe('SELECT CURRENT_TIMES|')
  })

  it('does not list after a Tab that completed the only candidate', () => {
    let state = completeIn(type(initialEditor(), 'SEL').state, { from: 0, insert: 'SELECT ', candidates: ['SELECT'] })
    state = completeIn(state, { from: 7, insert: '', candidates: ['a', 'b'] })
    expect(state.listing).toBeUndefined()
    expect(at(state)).toBe('SELECT |')
  })
})
