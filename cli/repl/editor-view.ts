// The prompt: the editor's lines ('weir> ' then '    -> ' as psql does), the cursor shown as an
// inverted character, and Ctrl-R's search line while it searches.
import { createElement as h, type ReactElement } from 'react'
import { Box, Text } from 'ink'
import type { EditorState } from './editor.js'

export const PROMPT = 'weir> '
export const CONTINUATION = '   -> '

export function EditorView({ state }: { readonly state: EditorState }): ReactElement {
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
  )
}
