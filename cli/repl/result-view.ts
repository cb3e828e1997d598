// A running SELECT's live view: the part of its result that fits the terminal (only those rows are
// formatted into lines, whatever the result holds), its size, and two status lines: its changes, the
// time it has run and how to stop it; the rows per second its job reads and produces and the
// watermark at its end.
import { createElement as h, useLayoutEffect, type ReactElement } from 'react'
import { Box, Text } from 'ink'
import { formatValue, type DataType } from '../../index.js'
import { count, tableLines } from '../format.js'
import type { JobRates } from './job-rates.js'
import type { LiveResult } from './live-result.js'
import type { RunningSelect } from './repl-session.js'
import type { LiveLine, ScreenRegion } from './screen-region.js'
import { capNote } from './select-output.js'

/** Lines the view takes besides its rows: the table's three header lines and bottom line, the size and the two status lines. */
const CHROME = 8

export interface LiveViewProps {
  readonly select: RunningSelect
  readonly live: LiveResult
  /** Terminal height. */
  readonly height: number
  /** Terminal width: longer lines are cut, as the table's lines are not wrapped. */
  readonly width: number
  /** First row shown; undefined: table mode shows the first rows, changelog mode follows the latest. */
  readonly scroll: number | undefined
  /** Rows per second in and out lately, and the watermark; undefined until first measured. */
  readonly rates: JobRates | undefined
  readonly now: number
}

/** The rows that fit `height`, and the first of them, for a scroll position (clamped). */
export function visibleWindow(live: LiveResult, height: number, scroll: number | undefined): { first: number; count: number } {
  const fits = Math.max(1, height - CHROME)
  const last = Math.max(0, live.size - fits)
  const first = scroll === undefined ? (live.mode === 'changelog' ? last : 0) : Math.min(Math.max(0, scroll), last)
  return { first, count: fits }
}

/**
 * The live view's lines: the table (only the rows that fit), its size, the cap note and the two
 * status lines, each cut to the terminal's width (the view must keep to the lines it counted).
 */
export function liveLines({ select, live, height, width, scroll, rates, now }: LiveViewProps): LiveLine[] {
  const { first, count: fits } = visibleWindow(live, height, scroll)
  const rows = live.rows(first, fits)
  const shown = rows.length === 0 ? 'no rows yet' : `rows ${first + 1}–${first + rows.length} of ${live.size.toLocaleString('en-US')}`
  const size = live.mode === 'table' ? `${shown}${live.size > fits ? ' (↑/↓, PgUp/PgDn scroll)' : ''}` : `changes: ${shown}`
  const seconds = ((now - select.startedAt) / 1000).toFixed(1)
  const perSecond = (n: number | undefined): string => `${Math.round(n ?? 0).toLocaleString('en-US')} rows/s`
  const status = `running '${select.name}' · ${count(live.changes, 'change')} · ${seconds} s · ${live.mode} mode · Esc or Ctrl-C stops`
  const flow = `in ${perSecond(rates?.inPerSecond)} · out ${perSecond(rates?.outPerSecond)} · watermark ${watermarkText(rates?.watermark)}`
  const cut = (text: string): string => (text.length > width ? text.slice(0, Math.max(0, width - 1)) + '…' : text)
  const lines: LiveLine[] = tableLines(live.columns, rows).map(text => ({ text: cut(text) }))
  lines.push({ text: cut(size) })
  if (live.capped) lines.push({ text: cut(capNote(live)), tone: 'warning' })
  lines.push({ text: cut(status), tone: 'dim' }, { text: cut(flow), tone: 'dim' })
  return lines
}

/** The live view drawn by Ink: for a screen reader (PaintedLiveView draws it in a terminal otherwise). */
export function LiveView(props: LiveViewProps): ReactElement {
  // Lines of one tone are one Text: Ink's cost per Text and per line is most of a frame's
  // (bench/repl/frame.ts).
  const groups: LiveLine[][] = []
  for (const line of liveLines(props)) {
    const last = groups.at(-1)
    if (last !== undefined && last[0]!.tone === line.tone) last.push(line)
    else groups.push([line])
  }
  return h(
    Box,
    { flexDirection: 'column' },
    ...groups.map((g, i) => h(Text, { key: i, ...TONES[g[0]!.tone ?? 'plain'] }, g.map(l => l.text).join('\n'))),
  )
}

const TONES = { plain: {}, dim: { dimColor: true }, warning: { color: 'yellow' } } as const

/**
 * The live view drawn straight to the terminal by a ScreenRegion, which rewrites only the lines
 * that changed; Ink draws only its first line (the table's top), above the region (Ink's
 * per-character output grid made a frame of the whole view cost 35 ms at 200×60: bench/repl/frame.ts).
 */
export function PaintedLiveView(props: LiveViewProps & { readonly region: ScreenRegion }): ReactElement {
  const [first, ...rest] = liveLines(props)
  const { region } = props
  // Layout effects run after Ink has drawn this commit's output, and a removed view's cleanup
  // before Ink draws what replaces it.
  useLayoutEffect(() => region.show(rest))
  useLayoutEffect(() => () => region.hide(), [region])
  return h(Text, { wrap: 'truncate-end', ...TONES[first!.tone ?? 'plain'] }, first!.text)
}

const TIMESTAMP: DataType = { kind: 'TIMESTAMP', precision: 3, nullable: false }

/** The watermark at the query's end: none without event time (or before the first), a timestamp, or the end of input. */
function watermarkText(wm: number | undefined): string {
  return wm === undefined ? 'none' : wm === Infinity ? 'end' : formatValue(wm, TIMESTAMP)
}
