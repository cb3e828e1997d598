// A terminal's keys, as Ink reports them, turned into what the REPL does with them: an editor key,
// or one of the REPL's own (quit, stop the running query, scroll its result).
import type { Key } from 'ink'
import type { EditKey } from './editor.js'

export type ReplKey =
  | EditKey
  /** Ctrl-D: quits on an empty line, deletes the character under the cursor otherwise (as readline). */
  | { readonly kind: 'eof' }
  /** Esc: stops a running query; leaves a Ctrl-R search. */
  | { readonly kind: 'escape' }
  | { readonly kind: 'pageUp' }
  | { readonly kind: 'pageDown' }
  /** Tab: completes the word before the cursor (completion.ts). */
  | { readonly kind: 'tab' }

/**
 * The keys of one input event. Ink hands over several characters at once when they arrive together
 * (a paste, or keys sent by tmux): printable runs are inserted, and the control characters among
 * them act as the keys they are (Enter, Backspace, Ctrl-letters), in order.
 */
export function keysOf(input: string, key: Key): ReplKey[] {
  if (input.length <= 1 || !/[\x00-\x1f\x7f]/.test(input)) {
    const k = keyOf(input, key)
    return k === undefined ? [] : [k]
  }
  const keys: ReplKey[] = []
  for (const part of input.match(/[\x00-\x1f\x7f]|[^\x00-\x1f\x7f]+/g) ?? []) {
    const code = part.charCodeAt(0)
    if (part === '\r' || part === '\n') keys.push({ kind: 'enter' })
    else if (part === '\t') keys.push({ kind: 'tab' })
    else if (part === '\x7f' || part === '\b') keys.push({ kind: 'backspace' })
    else if (code < 0x20) {
      const k = keyOf(String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true })
      if (k !== undefined) keys.push(k)
    } else keys.push({ kind: 'insert', text: part })
  }
  return keys
}

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
}

/**
 * The REPL's meaning of a key, or undefined for keys it ignores.
 *
 * @example keyOf('a', { ...noKey, ctrl: true }) // { kind: 'lineStart' }
 */
export function keyOf(input: string, key: Key): ReplKey | undefined {
  // Ctrl and Alt with an arrow, and Alt-b / Alt-f, jump words (terminals send either).
  if (key.leftArrow) return { kind: key.ctrl || key.meta ? 'wordLeft' : 'left' }
  if (key.rightArrow) return { kind: key.ctrl || key.meta ? 'wordRight' : 'right' }
  if (key.upArrow) return { kind: 'up' }
  if (key.downArrow) return { kind: 'down' }
  if (key.home) return { kind: 'lineStart' }
  if (key.end) return { kind: 'lineEnd' }
  if (key.pageUp) return { kind: 'pageUp' }
  if (key.pageDown) return { kind: 'pageDown' }
  if (key.return) return { kind: 'enter' }
  if (key.escape) return { kind: 'escape' }
  // Terminals send DEL (0x7f) for Backspace, which Ink names 'delete'; forward delete is Ctrl-D.
  if (key.backspace || key.delete) return { kind: 'backspace' }
  // Shift-Tab (sent as ESC [ Z) completes nothing.
  if (key.tab) return key.shift ? undefined : { kind: 'tab' }
  if (key.ctrl) {
    switch (input) {
      case 'a':
        return { kind: 'lineStart' }
      case 'e':
        return { kind: 'lineEnd' }
      case 'b':
        return { kind: 'left' }
      case 'f':
        return { kind: 'right' }
      case 'u':
        return { kind: 'killToStart' }
      case 'k':
        return { kind: 'killToEnd' }
      case 'w':
        return { kind: 'killWordBack' }
      case 'y':
        return { kind: 'yank' }
      case 'r':
        return { kind: 'search' }
      case 'c':
      case 'g':
        return { kind: 'cancel' }
      case 'd':
        return { kind: 'eof' }
      case 'p':
        return { kind: 'up' }
      case 'n':
        return { kind: 'down' }
      default:
        return undefined
    }
  }
  if (key.meta && input === 'b') return { kind: 'wordLeft' }
  if (key.meta && input === 'f') return { kind: 'wordRight' }
  if (key.meta) return undefined
  return input === '' ? undefined : { kind: 'insert', text: input }
}
