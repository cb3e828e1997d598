// What a running SELECT prints, by 'sql-client.execution.result-mode': tableau rows as they come,
// or a LiveResult (table mode: retractions applied; changelog mode in the terminal: the changes)
// shown live and printed whole when the SELECT ends; then a line on how it ended.
import type { SelectConsumer } from '../../index.js'
import { count, StreamingTable, renderTable } from '../format.js'
import { LiveResult } from './live-result.js'
import type { RunningSelect, SelectEnd, Tone } from './repl-session.js'

export interface SelectOutput {
  readonly consume: SelectConsumer
  /** The result the terminal shows live (none in tableau mode: rows are printed as they come). */
  readonly live?: LiveResult
  /** Prints what is left and how the SELECT ended. */
  finish(end: SelectEnd): void
}

/**
 * The output of one SELECT. `liveChangelog`: changelog mode keeps the changes for a live view (the
 * terminal); without it (a pipe) changes are printed as they come, as tableau rows are.
 */
export function selectOutput(select: RunningSelect, print: (text: string, tone: Tone) => void, liveChangelog: boolean): SelectOutput {
  const mode = select.settings.resultMode
  if (mode === 'tableau' || (mode === 'changelog' && !liveChangelog)) {
    const table = new StreamingTable(select.schema, text => print(text.replace(/\n$/, ''), 'result'))
    return {
      consume: (_, batch) => table.rows(batch.rows, batch.kinds),
      finish: end => {
        table.end()
        print(endLine(select, end), 'info')
      },
    }
  }
  const live = new LiveResult(select.schema, mode, select.settings.maxRows)
  return {
    consume: (_, batch) => live.apply(batch),
    live,
    finish: end => {
      print(renderTable(live.columns, live.rows(0, live.size)), 'result')
      if (live.capped) print(capNote(live), 'warning')
      print(endLine(select, end, live), 'info')
    },
  }
}

export function capNote(live: LiveResult): string {
  return `max rows reached: only the latest ${live.maxRows.toLocaleString('en-US')} ${
    live.mode === 'table' ? 'rows' : 'changes'
  } are kept ('sql-client.display.max-rows')`
}

/** "finished: 3 rows, 5 changes, 120 rows read in 0.4 s" and the like. */
function endLine(select: RunningSelect, end: SelectEnd, live?: LiveResult): string {
  const seconds = ((Date.now() - select.startedAt) / 1000).toFixed(1)
  if ('failed' in end) return `query '${select.name}' failed after ${seconds} s`
  const m = end.metrics
  const changes = live !== undefined && live.mode === 'table' ? `, ${count(live.changes, 'change')}` : ''
  return `query '${select.name}' ${m.cancelled ? 'stopped' : 'finished'}${changes}; ${count(m.sourceRecordsRead, 'row')} read in ${seconds} s`
}
