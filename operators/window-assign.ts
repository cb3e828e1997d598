// The window TVFs without aggregation (TUMBLE, HOP, CUMULATE): appends window_start, window_end and
// window_time to each row, one output row per window the row falls into. Stateless.
import { WeirError } from '../common/errors.js'
import type { Batch, Row } from '../core/batch.js'
import type { WindowAssignSpec } from '../core/job-graph.js'
import { STATELESS, type Operator, type OperatorContext, type OperatorDescriptor } from '../core/operator.js'
import { assignWindowEnds, maxWindowsPerRow, validateWindow, windowStartOf, type AlignedWindowSpec } from './windows.js'

/**
 * Rows whose time attribute is NULL are dropped and counted in `lateRecordsDropped`.
 *
 * @example
 * new WindowAssignOperator({ kind: 'WindowAssign', window: { kind: 'HOP', slide: 5_000, size: 10_000, offset: 0 }, timeIndex: 1, timeDomain: 'event' })
 */
export class WindowAssignOperator implements Operator {
  readonly spec: WindowAssignSpec
  private readonly window: AlignedWindowSpec
  private readonly ends: Float64Array
  private ctx!: OperatorContext

  constructor(spec: WindowAssignSpec) {
    if (spec.window.kind === 'SESSION') {
      throw WeirError.unsupported('a SESSION window can only be used in a window aggregate', {
        help: 'GROUP BY window_start, window_end (and keys) over the SESSION window, or use TUMBLE, HOP or CUMULATE to list rows with their windows',
      })
    }
    validateWindow(spec.window)
    this.spec = spec
    this.window = spec.window
    this.ends = new Float64Array(maxWindowsPerRow(spec.window))
  }

  open(ctx: OperatorContext): void {
    this.ctx = ctx
  }

  processBatch(batch: Batch, _input: number): void {
    const rows = batch.rows
    const n = rows.length
    if (n === 0) return
    const ctx = this.ctx
    const eventTime = this.spec.timeDomain === 'event'
    const procTime = eventTime ? 0 : ctx.timers.currentProcessingTime()
    const timeIndex = this.spec.timeIndex
    const window = this.window
    const ends = this.ends
    const kinds = batch.kinds
    const out: Row[] = []
    const outKinds: number[] | null = kinds === null ? null : []
    let dropped = 0
    for (let i = 0; i < n; i++) {
      const row = rows[i]!
      const ts = eventTime ? row[timeIndex] as number | null : procTime
      if (ts == null) {
        dropped++
        continue
      }
      const count = assignWindowEnds(window, ts, ends)
      const width = row.length
      for (let w = 0; w < count; w++) {
        const end = ends[w]!
        const o: Row = new Array(width + 3)
        for (let c = 0; c < width; c++) o[c] = row[c]
        o[width] = windowStartOf(window, end)
        o[width + 1] = end
        o[width + 2] = end - 1
        out.push(o)
        if (outKinds !== null) outKinds.push(kinds![i]!)
      }
    }
    ctx.metrics.lateRecordsDropped += dropped
    if (out.length === 0) return
    ctx.output.emit({ rows: out, kinds: outKinds === null ? null : Uint8Array.from(outKinds) })
  }
}

/** Reads the processing-time clock (PROCTIME windows) but registers no timers. */
export const windowAssign: OperatorDescriptor<WindowAssignSpec> = {
  traits: () => STATELESS,
  create: spec => new WindowAssignOperator(spec),
}
