// Windows as the planner binds them (the window table functions) and the operators assign them:
// the logical plan's window nodes and the job graph's window specs hold the same values.

/**
 * Window assignment, in milliseconds.
 *
 * @example TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE) → { kind: 'TUMBLE', size: 60000, offset: 0 }
 */
export type WindowSpec =
  | { readonly kind: 'TUMBLE'; readonly size: number; readonly offset: number }
  | { readonly kind: 'HOP'; readonly slide: number; readonly size: number; readonly offset: number }
  | { readonly kind: 'CUMULATE'; readonly step: number; readonly maxSize: number; readonly offset: number }
  | { readonly kind: 'SESSION'; readonly gap: number }

/** Which clock a window's time attribute runs on: a rowtime column (event) or PROCTIME() (processing). */
export type TimeDomain = 'event' | 'processing'
