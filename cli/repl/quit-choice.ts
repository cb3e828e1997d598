// Quitting with INSERT jobs still running asks what to do with them: stop them with savepoints
// (the jobs resume from them when they run again), stop them without, or wait until they end.
import { createElement as h, type ReactElement } from 'react'
import { Box, Text } from 'ink'
import type { JobInfo } from '../../index.js'
import type { QuitJobs } from './repl-session.js'

export interface QuitOption {
  /** The letter that picks it. */
  readonly key: string
  readonly jobs: QuitJobs
  readonly label: string
}

export const QUIT_OPTIONS: readonly QuitOption[] = [
  { key: 's', jobs: 'savepoint', label: 'stop them with savepoints, then quit' },
  { key: 'c', jobs: 'cancel', label: 'stop them without savepoints, then quit' },
  { key: 'w', jobs: 'wait', label: 'keep waiting: quit when they have finished' },
]

export interface QuitChoiceProps {
  readonly jobs: readonly JobInfo[]
  readonly selected: number
}

export function QuitChoice({ jobs, selected }: QuitChoiceProps): ReactElement {
  const names = jobs.map(j => `'${j.name}' (${j.id})`).join(', ')
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { color: 'yellow' }, `${jobs.length === 1 ? '1 job is' : `${jobs.length} jobs are`} running: ${names}`),
    ...QUIT_OPTIONS.map((o, i) => h(Text, { key: o.key, color: i === selected ? 'cyan' : undefined }, `${i === selected ? '❯' : ' '} (${o.key}) ${o.label}`)),
    h(Text, { dimColor: true }, '↑/↓ and Enter, or a letter · Esc goes back to the prompt'),
  )
}

/** Waiting for the jobs at quit: what the screen says until they have ended. */
export function WaitingForJobs({ jobs }: { readonly jobs: readonly JobInfo[] }): ReactElement {
  return h(Text, { dimColor: true }, `waiting for ${jobs.map(j => `'${j.name}'`).join(', ')} to finish · Ctrl-C stops them with savepoints`)
}
