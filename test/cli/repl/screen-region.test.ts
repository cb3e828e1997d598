// The live view drawn straight to the terminal beside Ink (ScreenRegion, PaintedLiveView), read off
// a terminal screen that applies the escape codes written: it starts where Ink's output would be,
// rewrites only the lines that changed, makes way for what Ink prints meanwhile (drawn again below
// it), and leaves nothing behind when it goes.
import { describe, expect, it } from 'vitest'
import { withInkEnvironment } from '../../../cli/repl/ink-environment.js'
import { LiveResult } from '../../../cli/repl/live-result.js'
import type { RunningSelect } from '../../../cli/repl/repl-session.js'
import { ScreenRegion } from '../../../cli/repl/screen-region.js'
import { RowKind, type Field } from '../../../index.js'
import { T } from '../../../common/types.js'
import { TerminalScreen } from '../../support/terminal-screen.js'

const [{ createElement: h }, { Box, render, Static, Text }, { PaintedLiveView }] = await withInkEnvironment(() =>
  Promise.all([import('react'), import('ink'), import('../../../cli/repl/result-view.js')])
)

const settle = (): Promise<void> => new Promise(r => setTimeout(r, 100))

describe('ScreenRegion', () => {
  it("draws from the cursor's line (below Ink's) down, rewrites only the lines that changed, and erases what it no longer shows", () => {
    const screen = new TerminalScreen(40, 10)
    const region = new ScreenRegion(screen as unknown as NodeJS.WriteStream, false)
    // What Ink leaves: its lines, the cursor below them.
    screen.write('printed before\n')
    region.show([{ text: 'one' }, { text: 'two' }, { text: 'three' }])
    expect(screen.screen()).toEqual(['printed before', 'one', 'two', 'three'])
    // The cursor is back where Ink left it.
    expect(screen.cursor).toEqual({ row: 1, col: 0 })

    const before = screen.written.length
    region.show([{ text: 'one' }, { text: 'TWO' }, { text: 'three' }])
    expect(screen.screen()).toEqual(['printed before', 'one', 'TWO', 'three'])
    const frame = screen.written.slice(before).join('')
    expect(frame).toContain('TWO')
    expect(frame).not.toMatch(/one|three/)

    region.show([{ text: 'one' }])
    expect(screen.screen()).toEqual(['printed before', 'one'])
    region.show([{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }])
    expect(screen.screen()).toEqual(['printed before', 'one', 'two', 'three', 'four'])
    region.hide()
    expect(screen.screen()).toEqual(['printed before'])
    expect(screen.cursor).toEqual({ row: 1, col: 0 })
  })

  it('clips a line wider than the terminal instead of wrapping it, scrolls the screen for lines below its end, and keeps to the screen', () => {
    const screen = new TerminalScreen(10, 4)
    const region = new ScreenRegion(screen as unknown as NodeJS.WriteStream, false)
    screen.write('a\nb\n')
    region.show([{ text: 'x'.repeat(15) }, { text: 'y' }, { text: 'z' }])
    expect(screen.screen()).toEqual(['b', 'x'.repeat(10), 'y', 'z'])
    region.show([{ text: 'x' }, { text: 'Y' }, { text: 'z' }])
    expect(screen.screen()).toEqual(['b', 'x', 'Y', 'z'])
    // More lines than fit below Ink's line: the last are left out, the first stay where they are.
    region.show([{ text: '1' }, { text: '2' }, { text: '3' }, { text: '4' }, { text: '5' }])
    expect(screen.screen()).toEqual(['b', '1', '2', '3'])
  })
})

describe('PaintedLiveView in Ink', () => {
  const schema: Field[] = [{ name: 'k', type: T.string() }, { name: 'n', type: T.bigint() }]
  const select: RunningSelect = {
    name: 'repl-select-1',
    schema,
    bounded: false,
    settings: { resultMode: 'table', maxRows: 100 },
    startedAt: 0,
    sample: () => undefined,
  }

  /** What the REPL's App draws: printed text (Ink's Static), then the live view or the prompt. */
  function Screen({ printed, live, region, width = 40 }: { printed: string[]; live?: LiveResult; region: ScreenRegion; width?: number }) {
    return h(
      Box,
      { flexDirection: 'column' },
      h(Static<string>, { items: printed, children: (t: string) => h(Text, { key: t }, t) }),
      live === undefined
        ? h(Text, null, 'weir> ')
        : h(PaintedLiveView, { select, live, height: 12, width, scroll: undefined, rates: undefined, now: 1500, region }),
    )
  }

  it("draws the live table below Ink's output, below what is printed meanwhile, and gives the screen back to Ink", async () => {
    const screen = new TerminalScreen(40, 12)
    const region = new ScreenRegion(screen as unknown as NodeJS.WriteStream, false)
    const live = new LiveResult(schema, 'table', 100)
    live.apply({ rows: [['a', 1n], ['b', 2n]], kinds: null })
    const ink = render(h(Screen, { printed: ['weir> SELECT …;'], region }), { stdout: region.inkStdout, patchConsole: false, exitOnCtrlC: false })
    await settle()
    expect(screen.screen()).toEqual(['weir> SELECT …;', 'weir>'])

    ink.rerender(h(Screen, { printed: ['weir> SELECT …;'], live, region }))
    await settle()
    const table = ['+---+---+', '| k | n |', '+---+---+', '| a | 1 |', '| b | 2 |', '+---+---+', 'rows 1–2 of 2']
    const status = [
      "running 'repl-select-1' · 2 changes · 1…",
      'in 0 rows/s · out 0 rows/s · watermark …',
    ]
    expect(screen.screen()).toEqual(['weir> SELECT …;', ...table, ...status])

    // A change: a retraction and an update, drawn in place.
    live.apply({ rows: [['a', 1n], ['a', 5n], ['b', 2n]], kinds: Uint8Array.from([RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE]) })
    ink.rerender(h(Screen, { printed: ['weir> SELECT …;'], live, region }))
    await settle()
    expect(screen.screen()).toEqual(['weir> SELECT …;', '+---+---+', '| k | n |', '+---+---+', '| a | 5 |', '+---+---+', 'rows 1–1 of 1',
      status[0]!.replace('2 changes', '5 changes'), status[1]])

    // Printed while the query runs (a background job failed): above the live view, which follows it.
    ink.rerender(h(Screen, { printed: ['weir> SELECT …;', 'error: a job failed'], live, region }))
    await settle()
    expect(screen.screen()).toEqual([
      'weir> SELECT …;',
      'error: a job failed',
      '+---+---+',
      '| k | n |',
      '+---+---+',
      '| a | 5 |',
      '+---+---+',
      'rows 1–1 of 1',
      status[0]!.replace('2 changes', '5 changes'),
      status[1],
    ])

    // The terminal narrows: Ink erases its line and draws it again, the region follows it.
    screen.resize(30)
    await settle()
    const narrow = (lines: string[]) => lines.map(l => (l.length > 30 ? l.slice(0, 29) + '…' : l))
    ink.rerender(h(Screen, { printed: ['weir> SELECT …;', 'error: a job failed'], live, region, width: 30 }))
    await settle()
    expect(screen.screen()).toEqual([
      'weir> SELECT …;',
      'error: a job failed',
      '+---+---+',
      '| k | n |',
      '+---+---+',
      '| a | 5 |',
      '+---+---+',
      'rows 1–1 of 1',
      ...narrow([status[0]!.replace('2 changes', '5 changes'), status[1]!]),
    ])

    // The query ends: its result is printed and the prompt comes back, nothing of the live view left.
    ink.rerender(h(Screen, { printed: ['weir> SELECT …;', 'error: a job failed', '1 row in set'], region }))
    await settle()
    expect(screen.screen()).toEqual(['weir> SELECT …;', 'error: a job failed', '1 row in set', 'weir>'])
    ink.unmount()
  })
})
