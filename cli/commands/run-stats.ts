// `weir run --stats`: every operator subtask's numbers as a compact table on stderr (stdout keeps the
// job's rows), every interval while a job runs and once when it ends. Rates and percentages are
// since the job's previous table (the first: since it started).
import type { JobInfo, JobMetrics, Session, SubtaskSample } from '../../index.js'

/** The columns of a table, in order; cells never hold two spaces in a row, so two or more part them. */
export const STATS_COLUMNS = ['operator', 'subtask', 'rows in', 'rows out', 'rows/s', 'busy %', 'backpr. %', 'watermark', 'state', 'last checkpoint'] as const

interface Previous {
  readonly at: number
  readonly subtasks: readonly SubtaskSample[]
}

export class StatsPrinter {
  private readonly previous = new Map<string, Previous>()
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly session: Session, private readonly intervalMs: number, private readonly write: (text: string) => void) {}

  /** Prints the running jobs' tables every interval until stop(). */
  start(): void {
    this.timer = setInterval(() => {
      for (const job of this.session.listJobs()) {
        if (job.endedAt === undefined && job.sample !== undefined) this.print(job, job.sample.subtasks, Date.now(), false)
      }
    }, this.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** The last table of a job that ended, from its metrics. */
  ended(job: JobInfo, metrics: JobMetrics): void {
    if (metrics.subtasks.length > 0) this.print(job, metrics.subtasks, job.endedAt ?? Date.now(), true)
  }

  private print(job: JobInfo, subtasks: readonly SubtaskSample[], now: number, last: boolean): void {
    const before = this.previous.get(job.id) ?? { at: job.startedAt, subtasks: [] }
    this.previous.set(job.id, { at: now, subtasks })
    const title = `stats of job '${job.name}' ${last ? 'at its end' : 'running'}, ${seconds(now - job.startedAt)} (rates since ${
      before.subtasks.length === 0 ? 'its start' : `${seconds(now - before.at)} ago`
    }):`
    this.write(title + '\n' + statsTable(subtasks, before.subtasks, Math.max(1, now - before.at)) + '\n')
  }
}

/** The table of `now`, with rates against `before` (the same subtasks, or none) over `elapsedMs`. */
export function statsTable(now: readonly SubtaskSample[], before: readonly SubtaskSample[], elapsedMs: number): string {
  const rows: string[][] = []
  let rowsIn = 0, rowsOut = 0, rate = 0, busy = 0, backpressured = 0, entries = 0, bytes = 0, stateful = false, e2e = -1
  now.forEach((s, i) => {
    const b = before[i]
    const dIn = s.rowsIn - (b?.rowsIn ?? 0)
    // A snapshot or batch longer than the interval counts whole when it ends: at most 100% of one thread.
    const dBusy = Math.min(elapsedMs, s.busyMs - (b?.busyMs ?? 0))
    const dBack = Math.min(elapsedMs, s.backpressuredMs - (b?.backpressuredMs ?? 0))
    rowsIn += s.rowsIn
    rowsOut += s.rowsOut
    rate += dIn
    busy += dBusy
    backpressured += dBack
    if (s.state !== undefined) {
      stateful = true
      entries += s.state.entries
      bytes += s.state.bytes ?? 0
    }
    if (s.checkpoint !== undefined) e2e = Math.max(e2e, s.checkpoint.endToEndMs)
    rows.push([
      s.operator,
      `${s.subtask + 1}/${s.parallelism}`,
      String(s.rowsIn),
      String(s.rowsOut),
      fixed((dIn * 1000) / elapsedMs, 0),
      fixed((100 * dBusy) / elapsedMs, 1),
      fixed((100 * dBack) / elapsedMs, 1),
      watermark(s.watermark),
      s.state === undefined ? '-' : `${s.state.entries} entries, ${s.state.bytes === undefined ? '? B' : size(s.state.bytes)}`,
      s.checkpoint === undefined
        ? '-'
        : `#${s.checkpoint.id} sync ${ms(s.checkpoint.syncMs)}, async ${ms(s.checkpoint.asyncMs)}, ${size(s.checkpoint.bytes)}, end-to-end ${
          ms(s.checkpoint.endToEndMs)
        }`,
    ])
  })
  rows.push([
    'total',
    String(now.length),
    String(rowsIn),
    String(rowsOut),
    fixed((rate * 1000) / elapsedMs, 0),
    fixed((100 * busy) / elapsedMs, 1),
    fixed((100 * backpressured) / elapsedMs, 1),
    '-',
    stateful ? `${entries} entries, ${size(bytes)}` : '-',
    e2e < 0 ? '-' : `end-to-end ${ms(e2e)}`,
  ])
  const widths = STATS_COLUMNS.map((c, i) => Math.max(c.length, ...rows.map(r => r[i]!.length)))
  // Names and text left, numbers right.
  const left = new Set([0, 7, 8, 9])
  const line = (cells: readonly string[]): string => cells.map((c, i) => (left.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd()
  return [line(STATS_COLUMNS), ...rows.map(line)].join('\n')
}

function fixed(x: number, digits: number): string {
  return Number.isFinite(x) ? x.toFixed(digits) : '-'
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

function ms(x: number): string {
  return x < 10 ? `${x.toFixed(1)} ms` : `${Math.round(x)} ms`
}

/** Event time as TIMESTAMP prints it (UTC); '-' before the first watermark, 'end' once the input ended. */
function watermark(wm: number | undefined): string {
  if (wm === undefined) return '-'
  if (wm === Infinity) return 'end'
  const d = new Date(wm)
  return Number.isNaN(d.getTime()) ? String(wm) : d.toISOString().replace('T', ' ').replace('Z', '')
}

function size(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`
}
