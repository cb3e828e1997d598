// Drives the REPL in Ink as a user does (ink-testing-library: keys into stdin, frames out).
import { render } from 'ink-testing-library'
import { createElement as h } from 'react'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { App } from '../../../cli/repl/app.js'
import { HistoryFile } from '../../../cli/repl/history.js'

export const ENTER = '\r'
export const ESC = '\x1b'
export const UP = '\x1b[A'
export const DOWN = '\x1b[B'
export const CTRL_C = '\x03'
export const CTRL_D = '\x04'

export type Driven = ReturnType<typeof render> & { historyFile: string }

/** The REPL with these options set first (heap state unless they say otherwise), history in a fresh file. */
export function start(history: string[] = [], options: Record<string, string> = {}): Driven {
  const historyFile = join(mkdtempSync(join(tmpdir(), 'weir-repl-')), 'history')
  if (history.length > 0) writeFileSync(historyFile, history.map(e => JSON.stringify(e) + '\n').join(''))
  const session = { options: { 'state.backend': 'heap', ...options } }
  const app = render(h(App, { session, history: new HistoryFile(historyFile, () => undefined), refreshMs: 20 }))
  return { ...app, historyFile }
}

/** Waits until the screen shows what `ok` looks for; fails with the last screen after 30 s. */
export async function until(app: { lastFrame: () => string | undefined }, ok: (frame: string) => boolean): Promise<string> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const frame = app.lastFrame() ?? ''
    if (ok(frame)) return frame
    await new Promise(r => setTimeout(r, 20))
  }
  throw new Error(`the screen never showed what was expected:\n${app.lastFrame()}`)
}

/** The screen's last line: the prompt, or what replaced it (Ink trims the cursor's blank at the end of a line). */
export const lastLine = (frame: string): string => frame.trimEnd().split('\n').at(-1)!

export async function typeLine(app: Driven, text: string): Promise<void> {
  app.stdin.write(text)
  app.stdin.write(ENTER)
  await new Promise(r => setTimeout(r, 10))
}

/** Waits for the prompt. */
export const prompt = (app: Driven): Promise<string> => until(app, f => lastLine(f).startsWith('weir>'))
