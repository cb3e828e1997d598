// The prompt: the editor's lines ('weir> ' then '    -> ' as psql does), the cursor shown as an
// inverted character, Ctrl-R's search line while it searches, and the candidates a second Tab listed.
import { createElement as h, type ReactElement } from 'react'
import { Box, Text } from 'ink'
import { listLines } from './completion.js'
import type { EditorState } from './editor.js'

export const PROMPT = 'weir> '
export const CONTINUATION = '   -> '

export interface EditorViewProps {
  readonly state: EditorState
  /** Terminal width, for the list of candidates. */
  readonly width: number
  /** Lines the list of candidates may take. */
  readonly listHeight: number
}

export function EditorView({ state, width, listHeight }: EditorViewProps): ReactElement {
  const search = state.search
  if (search !== undefined) {
    const found = search.match === undefined ? '' : state.history[search.match]!
    const label = `(${search.match === undefined && search.query !== '' ? 'failing ' : ''}reverse-i-search)\`${search.query}': `
    return h(Box, { flexDirection: 'column' }, ...found.split('\n').map((line, i) => h(Text, { key: i }, (i === 0 ? label : ' '.repeat(label.length)) + line)))
  }
  const lines = state.text.split('\n')
  let offset = 0
  return h(
    Box,
    { flexDirection: 'column' },
    ...lines.map((line, i) => {
      const start = offset
      offset += line.length + 1
      const prefix = i === 0 ? PROMPT : CONTINUATION
      const col = state.cursor - start
      if (col < 0 || col > line.length) return h(Text, { key: i }, prefix + line)
      return h(Text, { key: i }, prefix + line.slice(0, col), h(Text, { inverse: true }, line[col] ?? ' '), line.slice(col + 1))
    }),
    ...(state.listing === undefined ? [] : listLines(state.listing, width, listHeight).map((line, i) => h(Text, { key: `list${i}`, dimColor: true }, line))),
  )
}
