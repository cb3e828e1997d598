// The interactive REPL (Ink): what was run and printed scrolls up as static text; below it either
// the editor or the live view of the running SELECT. Keys go to the editor (editor.ts) at the
// prompt, and to the query while one runs: Esc or Ctrl-C stops it, arrows and PgUp/PgDn scroll.
import { createElement as h, useEffect, useRef, useState, type ReactElement } from 'react'
import { Box, Static, Text, useApp, useInput, useStdout } from 'ink'
import { completionNames } from '../../index.js'
import { complete } from './completion.js'
import { completeIn, edit, initialEditor, type EditorState } from './editor.js'
import { CONTINUATION, EditorView, PROMPT } from './editor-view.js'
import type { HistoryFile } from './history.js'
import { keysOf, type ReplKey } from './keys.js'
import type { LiveResult } from './live-result.js'
import type { JobInfo } from '../../index.js'
import { RateMeter, type JobRates } from './job-rates.js'
import { QUIT_OPTIONS, QuitChoice, WaitingForJobs } from './quit-choice.js'
import { ReplSession, type QuitJobs, type ReplOutput, type ReplSessionOptions, type RunningSelect, type Tone } from './repl-session.js'
import { LiveView, PaintedLiveView, visibleWindow, type LiveViewProps } from './result-view.js'
import type { ScreenRegion } from './screen-region.js'
import { selectOutput, type SelectOutput } from './select-output.js'

export interface AppProps {
  readonly session?: ReplSessionOptions
  /** Where history persists; none: this session's only. */
  readonly history?: HistoryFile
  /** Run before the prompt opens (--init FILE.sql). */
  readonly init?: (repl: ReplSession) => Promise<boolean>
  /** How often the live view redraws, in ms. */
  readonly refreshMs?: number
  /**
   * Draws the live view straight to the terminal, outside Ink (Ink is rendered to its `inkStdout`);
   * without it (a screen reader's terminal), Ink draws the live view.
   */
  readonly region?: ScreenRegion
}

interface Printed {
  readonly id: number
  readonly text: string
  readonly tone: Tone | 'echo'
}

interface Running {
  readonly select: RunningSelect
  readonly output: SelectOutput
}

const COLORS: Record<Printed['tone'], string | undefined> = { result: undefined, info: 'green', warning: 'yellow', error: 'red', echo: 'gray' }
const WELCOME = "Weir SQL — a statement runs when it ends with ';' and Enter. Esc or Ctrl-C stops a query, Ctrl-D on an empty line quits."

export function App({ session, history, init, refreshMs = 200, region }: AppProps): ReactElement {
  const { exit } = useApp()
  const { stdout } = useStdout()
  const [printed, setPrinted] = useState<readonly Printed[]>([{ id: 0, text: WELCOME, tone: 'info' }])
  const [editor, setEditorState] = useState<EditorState>(() => initialEditor(history?.load() ?? []))
  const editorRef = useRef(editor)
  const [busy, setBusyState] = useState(init !== undefined)
  const busyRef = useRef(busy)
  const setBusy = (b: boolean): void => {
    busyRef.current = b
    setBusyState(b)
  }
  const [running, setRunningState] = useState<Running | undefined>(undefined)
  const runningRef = useRef<Running | undefined>(undefined)
  const setRunning = (r: Running | undefined): void => {
    runningRef.current = r
    setRunningState(r)
  }
  const [scroll, setScroll] = useState<number | undefined>(undefined)
  const [now, setNow] = useState(Date.now())
  const meter = useRef(new RateMeter(Date.now()))
  const [rates, setRates] = useState<JobRates | undefined>(undefined)
  const quitting = useRef(false)
  // Ctrl-D with INSERT jobs running: the question, and which answer is selected.
  const [asking, setAskingState] = useState<{ readonly jobs: readonly JobInfo[]; readonly selected: number } | undefined>(undefined)
  const askingRef = useRef(asking)
  const setAsking = (a: typeof asking): void => {
    askingRef.current = a
    setAskingState(a)
  }
  // Quitting once the jobs have finished ('keep waiting').
  const [waitingFor, setWaitingFor] = useState<readonly JobInfo[] | undefined>(undefined)
  const typedAhead = useRef<ReplKey[]>([])
  const [closed, setClosed] = useState(false)

  const setEditor = (state: EditorState): void => {
    editorRef.current = state
    setEditorState(state)
  }
  const print = (text: string, tone: Printed['tone']): void => setPrinted(p => [...p, { id: p.length, text, tone }])

  const repl = useRef<ReplSession | undefined>(undefined)
  if (repl.current === undefined) {
    const output: ReplOutput = {
      print,
      selectStarted: select => {
        const out = selectOutput(select, print, true)
        meter.current = new RateMeter(Date.now())
        setRates(undefined)
        setScroll(undefined)
        setRunning({ select, output: out })
        return out.consume
      },
      selectEnded: (select, end) => {
        const r = runningRef.current
        if (r?.select !== select) return
        r.output.finish(end)
        setRunning(undefined)
      },
    }
    repl.current = new ReplSession(output, session)
  }

  useEffect(() => {
    if (init === undefined) return
    void init(repl.current!).finally(() => setBusy(false))
  }, [])

  // The live view redraws on a timer, not per batch: a fast query costs one frame per tick.
  useEffect(() => {
    if (running?.output.live === undefined) return
    const live = running.output.live
    const select = running.select
    const timer = setInterval(() => {
      const t = Date.now()
      // The job's counters are sampled here, once a tick: the runtime pays nothing per row.
      setRates(meter.current.update(select.sample(), t))
      setNow(t)
    }, refreshMs)
    return () => clearInterval(timer)
  }, [running])

  const submit = async (text: string): Promise<void> => {
    history?.append(text.trim())
    print(text.split('\n').map((l, i) => (i === 0 ? PROMPT : CONTINUATION) + l).join('\n'), 'echo')
    setBusy(true)
    const ok = await repl.current!.submit(text).catch(() => false)
    setBusy(false)
    const ahead = typedAhead.current.splice(0)
    // A statement that failed comes back to be fixed; what was typed after it is dropped, as it
    // was typed before the error was seen.
    if (!ok) setEditor({ ...editorRef.current, text, cursor: text.length })
    else for (const k of ahead) handleKey(k)
  }

  const quit = async (jobs: QuitJobs): Promise<void> => {
    quitting.current = true
    setAsking(undefined)
    if (jobs === 'wait') setWaitingFor(repl.current!.runningJobs())
    // The prompt goes: what stays on the screen is what was run and printed.
    setBusy(true)
    await repl.current!.close({ jobs })
    setWaitingFor(undefined)
    setClosed(true)
  }

  /** Ctrl-D on an empty line: quits, asking first what to do with the INSERT jobs still running. */
  const askQuit = (): void => {
    const jobs = repl.current!.runningJobs()
    if (jobs.length === 0) void quit('savepoint')
    else setAsking({ jobs, selected: 0 })
  }

  const answerQuit = (k: ReplKey): void => {
    const a = askingRef.current!
    const picked = k.kind === 'enter' ? QUIT_OPTIONS[a.selected] : k.kind === 'insert' ? QUIT_OPTIONS.find(o => o.key === k.text.toLowerCase()) : undefined
    if (picked !== undefined) void quit(picked.jobs)
    else if (k.kind === 'up' || k.kind === 'down') {
      const n = QUIT_OPTIONS.length
      setAsking({ ...a, selected: (a.selected + (k.kind === 'up' ? n - 1 : 1)) % n })
    } else if (k.kind === 'escape' || k.kind === 'cancel') setAsking(undefined)
  }
  // Exits once the frame without the prompt is on the screen.
  useEffect(() => {
    if (closed) exit()
  }, [closed])

  const handleKey = (k: ReplKey): void => {
    const run = runningRef.current
    if (run !== undefined) {
      if (k.kind === 'escape' || k.kind === 'cancel') repl.current!.stopSelect()
      else if (run.output.live !== undefined) scrollBy(run.output.live, k.kind)
      return
    }
    // Keys typed while a statement runs wait for the prompt (type-ahead), as in a shell.
    if (busyRef.current) {
      typedAhead.current.push(k)
      return
    }
    if (askingRef.current !== undefined) return answerQuit(k)
    const state = editorRef.current
    if (k.kind === 'eof') {
      if (state.text === '' && state.search === undefined) askQuit()
      else setEditor(edit(state, { kind: 'deleteForward' }).state)
      return
    }
    if (k.kind === 'escape') {
      if (state.search !== undefined) setEditor(edit(state, { kind: 'cancel' }).state)
      return
    }
    if (k.kind === 'pageUp' || k.kind === 'pageDown') return
    if (k.kind === 'tab') {
      setEditor(completeIn(state, complete(state.text, state.cursor, completionNames(repl.current!.session))))
      return
    }
    const edited = edit(state, k)
    setEditor(edited.state)
    if (edited.submit !== undefined) void submit(edited.submit)
  }

  useInput((input, key) => {
    for (const k of keysOf(input, key)) {
      if (!quitting.current) handleKey(k)
      // Waiting for the jobs to finish: Ctrl-C stops them with savepoints instead.
      else if (k.kind === 'cancel') repl.current!.stopJobs()
    }
  })

  const height = stdout.rows || 24
  const scrollBy = (live: LiveResult, kind: string): void => {
    const { first, count } = visibleWindow(live, height, scroll)
    const step = kind === 'up' ? -1 : kind === 'down' ? 1 : kind === 'pageUp' ? -count : kind === 'pageDown' ? count : 0
    if (step !== 0) setScroll(Math.max(0, first + step))
  }

  return h(
    Box,
    { flexDirection: 'column' },
    h(Static<Printed>, {
      items: [...printed],
      children: item => h(Text, { key: item.id, color: COLORS[item.tone] }, item.text),
    }),
    running?.output.live !== undefined
      ? liveView({ select: running.select, live: running.output.live, height, width: stdout.columns || 80, scroll, rates, now }, region)
      : asking !== undefined
      ? h(QuitChoice, asking)
      : waitingFor !== undefined && waitingFor.length > 0
      ? h(WaitingForJobs, { jobs: waitingFor })
      : running !== undefined || busy
      ? h(Text, { dimColor: true }, running !== undefined ? `running '${running.select.name}' · Esc or Ctrl-C stops` : quitting.current ? '' : 'running…')
      : h(EditorView, { state: editor, width: stdout.columns || 80, listHeight: Math.max(3, Math.floor(height / 3)) }),
  )
}

function liveView(props: LiveViewProps, region: ScreenRegion | undefined): ReactElement {
  return region === undefined ? h(LiveView, props) : h(PaintedLiveView, { ...props, region })
}
