// A count, per thread, of the user function calls skipped under 'weir.udf.on-error' = 'skip'. The
// calls run inside an operator's synchronous processBatch / onTimer, so the task runner reads the
// count before and after each call and adds the difference to that task's skipped rows
// (JobMetrics.skippedRecords), as a process function's skipped rows are counted.
let total = 0

/** One more call skipped on this thread. */
export function noteSkippedCall(): void {
  total++
}

/** The calls skipped on this thread so far. */
export function skippedCallsSoFar(): number {
  return total
}
