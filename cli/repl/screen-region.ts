// Lines drawn straight to the terminal below what Ink draws, rewriting only the lines that changed
// since the last frame: the live view of a running SELECT (PaintedLiveView). Ink builds its whole
// output grid a character at a time on every frame; at 200×60 that was 35 ms a frame
// (bench/repl/frame.ts), where this costs what writing the changed lines costs.
//
// Sharing the terminal with Ink: while the region shows, Ink draws one line above it (the view's
// first), leaving the cursor on the line below, where the region starts; between frames the cursor
// rests there, so what Ink knows of the screen stays true (it erases its lines upwards from the
// cursor, and draws its line again after erasing it, as when the terminal narrows). Ink writes
// through `inkStdout`: before anything Ink writes (its line changed, a message printed meanwhile),
// the region is erased, and it is drawn again, whole, below what Ink wrote once Ink is done.

/** A line to show, no wider than the terminal, and how it is coloured. */
export interface LiveLine {
  readonly text: string
  readonly tone?: LineTone
}

export type LineTone = 'dim' | 'warning'

const CSI = '\x1b['
const up = (n: number): string => (n > 0 ? `${CSI}${n}A` : '')
const down = (n: number): string => (n > 0 ? `${CSI}${n}B` : '')
/** To the line's start, then erase it (erased first: a line as wide as the terminal leaves the cursor past its end). */
const LINE_START = `\r${CSI}K`
const ERASE_BELOW = `${CSI}J`
/** Lines wider than the terminal are clipped, not wrapped: a wrapped line would move every line below it. */
const NO_WRAP = `${CSI}?7l`
const WRAP = `${CSI}?7h`
/** Synchronized output (as Ink uses it): the terminal shows the frame whole. */
const BEGIN_SYNC = `${CSI}?2026h`
const END_SYNC = `${CSI}?2026l`
/** Ink's colours (chalk's codes) for the tones. */
const SGR: Record<LineTone, readonly [string, string]> = { dim: [`${CSI}2m`, `${CSI}22m`], warning: [`${CSI}33m`, `${CSI}39m`] }

/** The terminal as the region uses it: Ink is handed a stream that writes through the region. */
export type Terminal = NodeJS.WriteStream

export class ScreenRegion {
  /** What Ink writes to: the terminal, with the region erased before each write. */
  readonly inkStdout: Terminal
  /** The lines on the screen now, from the region's top, as written (with their colours). */
  private shown: string[] = []
  /** The lines to show, as last asked. */
  private wanted: string[] = []
  private showing = false
  /** Rows from the region's top known to be on the screen (its top is the cursor's). */
  private rows = 1
  private redrawQueued = false

  /** `colors`: whether the terminal is given colours (as Ink gives them: chalk's choice for it). */
  constructor(private readonly terminal: Terminal, private readonly colors: boolean) {
    const write = terminal.write.bind(terminal) as (...args: unknown[]) => boolean
    const inkWrite = (...args: unknown[]): boolean => {
      this.lift()
      return write(...args)
    }
    this.inkStdout = new Proxy(terminal, {
      get: (target, key) => {
        if (key === 'write') return inkWrite
        const value: unknown = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    // A resized terminal may have moved the region's lines (some terminals re-wrap them): drawn anew.
    terminal.on('resize', () => this.lift())
  }

  /**
   * Shows `lines` (each no wider than the terminal), rewriting the lines that differ from those shown;
   * as many as fit below Ink's line (lines scrolled off the top could not be reached again).
   */
  show(lines: readonly LiveLine[]): void {
    this.showing = true
    this.wanted = lines.slice(0, Math.max(1, (this.terminal.rows || Infinity) - 1)).map(
      l => (l.tone === undefined || !this.colors ? l.text : SGR[l.tone][0] + l.text + SGR[l.tone][1]),
    )
    this.draw()
  }

  /** Erases the region: the screen is Ink's again. */
  hide(): void {
    this.lift()
    this.showing = false
    this.wanted = []
  }

  private draw(): void {
    const lines = this.wanted
    // The cursor rests on the region's first row (where Ink left it); `at` is the row it is on.
    let at = 0
    let out = ''
    const moveTo = (row: number): void => {
      // Rows past the last on the screen are made by new lines (scrolling the screen at its bottom).
      const reach = Math.min(row, this.rows - 1)
      out += reach < at ? up(at - reach) : down(reach - at)
      at = reach
      for (; at < row; at++) out += '\n'
      this.rows = Math.max(this.rows, at + 1)
    }
    for (let i = 0; i < lines.length; i++) {
      if (this.shown[i] === lines[i]) continue
      moveTo(i)
      out += LINE_START + lines[i]!
    }
    if (lines.length < this.shown.length) {
      moveTo(lines.length)
      out += '\r' + ERASE_BELOW
    }
    if (out === '') return
    moveTo(0)
    this.shown = [...lines]
    this.write(BEGIN_SYNC + NO_WRAP + out + '\r' + WRAP + END_SYNC)
  }

  /**
   * Erases what the region shows (before Ink writes), to be drawn again once Ink is done: Ink writes
   * a frame in several writes, all at once, so the region is drawn again on the next turn.
   */
  private lift(): void {
    if (!this.showing) return
    if (this.shown.length > 0) this.write('\r' + ERASE_BELOW)
    this.shown = []
    this.rows = 1
    if (this.redrawQueued) return
    this.redrawQueued = true
    setImmediate(() => {
      this.redrawQueued = false
      if (this.showing) this.draw()
    })
  }

  private write(text: string): void {
    this.terminal.write(text)
  }
}
