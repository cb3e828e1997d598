// `npm run bench -- repl`: how long the REPL takes to draw a frame of a running SELECT's live table
// while its result holds 10,000 rows and 1,000 changes a second arrive (inserts, updates as -U/+U
// pairs, deletes), as the issue asks (under 16 ms). The result is a real LiveResult fed Batches as a
// session feeds it; the frame is the real view rendered by Ink as the REPL renders it (to a terminal:
// Ink's log-update; every render drawn at once) into a stand-in terminal of 80×24 and of 200×60, at
// the top of the result and scrolled to its end. Two ways of drawing, run alternately in the same
// run: `painted` (the REPL's: PaintedLiveView, lines written by a ScreenRegion) and `ink` (LiveView:
// Ink draws the lines, as the REPL did before and does for a screen reader). Prints p50/p99/max of
// a frame's wall and CPU time, bytes written per frame, and what applying the changes cost.
import { EventEmitter } from 'node:events'
import { withInkEnvironment } from '../../cli/repl/ink-environment.js'
import { LiveResult } from '../../cli/repl/live-result.js'
import type { RunningSelect } from '../../cli/repl/repl-session.js'
import { RowKind, type Batch, type Field, type Row } from '../../index.js'
import { T } from '../../common/types.js'

// Ink and React as the REPL loads them (React's production build).
const [{ createElement: h }, { render }, { LiveView, PaintedLiveView }, { ScreenRegion }] = await withInkEnvironment(() =>
  Promise.all([import('react'), import('ink'), import('../../cli/repl/result-view.js'), import('../../cli/repl/screen-region.js')])
)

const ROWS = 10_000
const CHANGES_PER_SECOND = 1_000
/** Seconds each case runs per way of drawing and round. */
const SECONDS = Number(process.env['WEIR_BENCH_SECONDS'] ?? '2')
/** Rounds: the ways of drawing alternate within each, so both see the same load. */
const ROUNDS = Number(process.env['WEIR_BENCH_ROUNDS'] ?? '2')
/** A frame is drawn this often (60 per second), far more often than the REPL's 5. */
const FRAME_MS = 1000 / 60

const schema: Field[] = [
  { name: 'auction', type: T.bigint() },
  { name: 'bidder', type: T.bigint() },
  { name: 'price', type: T.bigint() },
  { name: 'channel', type: T.string() },
  { name: 'url', type: T.string() },
  { name: 'dateTime', type: T.timestamp(3) },
]

/** A terminal as Ink sees one: a size, and writes that go nowhere but are counted. */
class Terminal extends EventEmitter {
  readonly isTTY = true
  bytes = 0
  constructor(readonly columns: number, readonly rows: number) {
    super()
  }
  write(text: string): boolean {
    this.bytes += text.length
    return true
  }
}

type Way = 'painted' | 'ink'
const WAYS: readonly Way[] = ['painted', 'ink']

/** The rows of a result with distinct keys, and changes to them as a running aggregate would send. */
class Changes {
  private readonly live: Row[] = []
  private next = 0
  private seed = 42

  insert(n: number): Batch {
    const rows: Row[] = []
    for (let i = 0; i < n; i++) rows.push(this.fresh())
    this.live.push(...rows)
    return { rows, kinds: null }
  }

  /** `n` changes: half of them updates (-U then +U of a row), a quarter deletes, a quarter inserts. */
  mixed(n: number): Batch {
    const rows: Row[] = []
    const kinds: number[] = []
    while (rows.length < n) {
      const r = this.random()
      const at = Math.floor(this.random() * this.live.length)
      const old = this.live[at]!
      if (r < 0.5) {
        const updated: Row = [old[0], old[1], BigInt(Math.floor(this.random() * 1e8)), old[3], old[4], old[5]]
        rows.push(old, updated)
        kinds.push(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER)
        this.live[at] = updated
      } else if (r < 0.75) {
        rows.push(old)
        kinds.push(RowKind.DELETE)
        this.live[at] = this.live.at(-1)!
        this.live.pop()
      } else {
        const row = this.fresh()
        rows.push(row)
        kinds.push(RowKind.INSERT)
        this.live.push(row)
      }
    }
    return { rows, kinds: Uint8Array.from(kinds) }
  }

  private fresh(): Row {
    const id = this.next++
    return [BigInt(1000 + id), BigInt(id % 997), BigInt(Math.floor(this.random() * 1e8)), ['apple', 'google', 'facebook', 'baidu'][id % 4]!,
      `https://www.nexmark.com/item.htm?query=${id}`, 1_436_918_400_000 + id * 10]
  }

  /** A fixed sequence (xorshift), so runs compare. */
  private random(): number {
    this.seed ^= this.seed << 13
    this.seed ^= this.seed >>> 17
    this.seed ^= this.seed << 5
    return (this.seed >>> 0) / 0x1_0000_0000
  }
}

interface Case {
  readonly name: string
  readonly columns: number
  readonly rows: number
  /** Scrolled to the last rows (the view walks to them), or at the top. */
  readonly atEnd: boolean
}

const CASES: readonly Case[] = [
  { name: '80×24, top', columns: 80, rows: 24, atEnd: false },
  { name: '200×60, top', columns: 200, rows: 60, atEnd: false },
  { name: '200×60, scrolled to the end', columns: 200, rows: 60, atEnd: true },
]

interface Figures {
  readonly case: string
  readonly way: Way
  readonly frames: number
  readonly frameP50Ms: number
  readonly frameP99Ms: number
  readonly frameMaxMs: number
  readonly cpuP50Ms: number
  readonly cpuP99Ms: number
  readonly cpuMaxMs: number
  /** Characters written to the terminal per frame, on average. */
  readonly bytesPerFrame: number
  readonly changes: number
  readonly rowsHeld: number
  /** Time spent applying changes, per 1,000 changes. */
  readonly applyMsPer1000: number
}

/** Wall and CPU ms of each frame of one case drawn one way, and the changes applied meanwhile. */
interface Sampled {
  readonly frames: number[]
  readonly cpu: number[]
  bytes: number
  changes: number
  applyMs: number
  rowsHeld: number
}

async function run(c: Case, way: Way, into: Sampled): Promise<void> {
  const result = new LiveResult(schema, 'table', ROWS)
  const changes = new Changes()
  for (let i = 0; i < ROWS; i += 1000) result.apply(changes.insert(1000))
  const startedAt = Date.now()
  const select: RunningSelect = {
    name: 'repl-select-1',
    schema,
    bounded: false,
    settings: { resultMode: 'table', maxRows: ROWS },
    startedAt,
    sample: () => undefined,
  }
  // The status line as a running job's shows it: rows/s in and out and a watermark.
  const rates = { inPerSecond: CHANGES_PER_SECOND, outPerSecond: CHANGES_PER_SECOND, watermark: startedAt }
  const terminal = new Terminal(c.columns, c.rows)
  const region = way === 'painted' ? new ScreenRegion(terminal as unknown as NodeJS.WriteStream, true) : undefined
  const view = (now: number) => {
    const props = { select, live: result, height: c.rows, width: c.columns, scroll: c.atEnd ? ROWS : undefined, rates, now }
    return region === undefined ? h(LiveView, props) : h(PaintedLiveView, { ...props, region })
  }
  const ink = render(view(startedAt), {
    stdout: (region?.inkStdout ?? terminal) as unknown as NodeJS.WriteStream,
    patchConsole: false,
    exitOnCtrlC: false,
    // Ink throttles its renders to 30 a second, drawing the rest later: here every render is drawn
    // when it is asked for, so a frame's time is all it costs.
    maxFps: 1000,
  })
  let applied = 0
  const bytesBefore = terminal.bytes
  const t0 = performance.now()
  for (let frame = 1; performance.now() - t0 < SECONDS * 1000; frame++) {
    // The changes that arrived since the last frame, as one batch.
    const due = Math.floor(((performance.now() - t0) / 1000) * CHANGES_PER_SECOND) - applied
    if (due > 0) {
      const batch = changes.mixed(due)
      const a = performance.now()
      result.apply(batch)
      into.applyMs += performance.now() - a
      applied += batch.rows.length
    }
    const f = performance.now(), cpu = process.cpuUsage()
    ink.rerender(view(Date.now()))
    into.frames.push(performance.now() - f)
    // CPU time of the frame: what it costs whatever else runs on the machine (wall time waits for the CPU too).
    const used = process.cpuUsage(cpu)
    into.cpu.push((used.user + used.system) / 1000)
    const wait = t0 + frame * FRAME_MS - performance.now()
    await new Promise(r => setTimeout(r, Math.max(0, wait)))
  }
  into.bytes += terminal.bytes - bytesBefore
  into.changes += applied
  into.rowsHeld = result.size
  ink.unmount()
}

function figures(c: Case, way: Way, s: Sampled): Figures {
  const at = (xs: number[], q: number) => +[...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!.toFixed(2)
  return {
    case: c.name,
    way,
    frames: s.frames.length,
    frameP50Ms: at(s.frames, 0.5),
    frameP99Ms: at(s.frames, 0.99),
    frameMaxMs: at(s.frames, 1),
    cpuP50Ms: at(s.cpu, 0.5),
    cpuP99Ms: at(s.cpu, 0.99),
    cpuMaxMs: at(s.cpu, 1),
    bytesPerFrame: Math.round(s.bytes / s.frames.length),
    changes: s.changes,
    rowsHeld: s.rowsHeld,
    applyMsPer1000: +((s.applyMs / s.changes) * 1000).toFixed(2),
  }
}

/**
 * CPU ms to sort a million doubles: the host's speed now. On a shared machine a frame's CPU time
 * grows with the load too (caches, a busy sibling core); this says how loaded it was.
 */
function hostSpeed(): number {
  const xs = Array.from({ length: 1_000_000 }, (_, i) => Math.sin(i))
  const cpu = process.cpuUsage()
  xs.sort((a, b) => a - b)
  const used = process.cpuUsage(cpu)
  return Math.round((used.user + used.system) / 1000)
}

process.stdout.write(`host: sorting 1,000,000 doubles took ${hostSpeed()} CPU ms\n`)
const samples = new Map(CASES.map(c => [c, new Map(WAYS.map(w => [w, { frames: [], cpu: [], bytes: 0, changes: 0, applyMs: 0, rowsHeld: 0 } as Sampled]))]))
for (let round = 0; round < ROUNDS; round++) {
  for (const c of CASES) {
    // Alternating, the first way in turn, so neither is always measured first.
    for (const way of round % 2 === 0 ? WAYS : [...WAYS].reverse()) await run(c, way, samples.get(c)!.get(way)!)
  }
}
const results: Figures[] = []
for (const c of CASES) {
  for (const way of WAYS) {
    const r = figures(c, way, samples.get(c)!.get(way)!)
    results.push(r)
    process.stdout.write(
      `${r.case.padEnd(28)} ${r.way.padEnd(7)} frame p50 ${r.frameP50Ms.toFixed(2)} ms  p99 ${r.frameP99Ms.toFixed(2)} ms  max ${r.frameMaxMs.toFixed(2)} ms  `
        + `(CPU p50 ${r.cpuP50Ms.toFixed(2)} ms  p99 ${r.cpuP99Ms.toFixed(2)} ms  max ${r.cpuMaxMs.toFixed(2)} ms; ${r.frames} frames)  `
        + `${r.bytesPerFrame.toLocaleString('en-US')} bytes/frame  applying 1,000 changes ${r.applyMsPer1000.toFixed(2)} ms  (${
          r.changes.toLocaleString('en-US')
        } changes, ${r.rowsHeld.toLocaleString('en-US')} rows held)\n`,
    )
  }
}
process.stdout.write(`host: sorting 1,000,000 doubles took ${hostSpeed()} CPU ms\n`)
process.stdout.write(JSON.stringify(results) + '\n')
