// Subtask metrics every thread of a job sees: four numbers per subtask in one SharedArrayBuffer, so
// the job's thread reads what a worker's subtasks count (SHOW JOBS, the job's metrics) as they count.
import type { OperatorMetrics } from '../core/operator.js'

const FIELDS = 4

export function sharedMetricsBuffer(subtasks: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.max(1, subtasks) * FIELDS * 8)
}

class SharedMetrics implements OperatorMetrics {
  constructor(private readonly a: Float64Array, private readonly at: number) {}
  get lateRecordsDropped(): number {
    return this.a[this.at]!
  }
  set lateRecordsDropped(v: number) {
    this.a[this.at] = v
  }
  get rowsIn(): number {
    return this.a[this.at + 1]!
  }
  set rowsIn(v: number) {
    this.a[this.at + 1] = v
  }
  get rowsOut(): number {
    return this.a[this.at + 2]!
  }
  set rowsOut(v: number) {
    this.a[this.at + 2] = v
  }
  get rowsSkipped(): number {
    return this.a[this.at + 3]!
  }
  set rowsSkipped(v: number) {
    this.a[this.at + 3] = v
  }
}

/** The metrics of subtask `index` (in the job's order) in `buffer`. */
export function sharedMetrics(buffer: SharedArrayBuffer): (index: number) => OperatorMetrics {
  const a = new Float64Array(buffer)
  return index => new SharedMetrics(a, index * FIELDS)
}
