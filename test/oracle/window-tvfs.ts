// The window TVFs the window-join oracle tests use: Weir's SQL for each, and DuckDB's emulation of it
// (each row with its windows' [ws, we) in ms).

/** DuckDB emulation of a window TVF over `src` with the rows' [ws, we) in ms. */
export const DUCK_WINDOWS = {
  TUMBLE: (src: string) => `SELECT *, tms - tms % 5000 AS ws, tms - tms % 5000 + 5000 AS we FROM (SELECT *, epoch_ms(ts) AS tms FROM ${src})`,
  HOP: (src: string) =>
    `SELECT r.*, g.ws, g.ws + 6000 AS we FROM (SELECT *, epoch_ms(ts) AS tms FROM ${src}) r,
       LATERAL (SELECT unnest(generate_series(r.tms - r.tms % 2000 - 4000, r.tms - r.tms % 2000, 2000)) AS ws) g`,
  CUMULATE: (src: string) =>
    `SELECT r.*, r.tms - r.tms % 6000 AS ws, g.we FROM (SELECT *, epoch_ms(ts) AS tms FROM ${src}) r,
       LATERAL (SELECT unnest(generate_series(r.tms - r.tms % 2000 + 2000, r.tms - r.tms % 6000 + 6000, 2000)) AS we) g`,
}
export const WEIR_WINDOWS = {
  TUMBLE: (src: string) => `TUMBLE(TABLE ${src}, DESCRIPTOR(ts), INTERVAL '5' SECOND)`,
  HOP: (src: string) => `HOP(TABLE ${src}, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)`,
  CUMULATE: (src: string) => `CUMULATE(TABLE ${src}, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)`,
}

/** The rows of `src` (a table or a parenthesized query) with the epoch milliseconds of `ts` as `tms`. */
const withMs = (src: string) => `SELECT *, epoch_ms(ts) AS tms FROM ${src}`

/** DuckDB: each row with the [ws, we) (epoch ms) of every window that contains it. */
export const duckWindows = {
  tumble: (size: number, src = 't') => `SELECT *, tms - tms % ${size} AS ws, tms - tms % ${size} + ${size} AS we FROM (${withMs(src)})`,
  // Flink's HOP: windows [start, start + size) for every start that is a multiple of slide.
  hop: (slide: number, size: number) =>
    `SELECT r.*, g.ws, g.ws + ${size} AS we FROM (${withMs('t')}) r,
       LATERAL (SELECT unnest(generate_series(r.tms - r.tms % ${slide} - ${size} + ${slide}, r.tms - r.tms % ${slide}, ${slide})) AS ws) g`,
  // CUMULATE: windows [cs, cs + step·i) inside each max-size tumbling window cs.
  cumulate: (step: number, max: number) =>
    `SELECT r.*, r.tms - r.tms % ${max} AS ws, g.we FROM (${withMs('t')}) r,
       LATERAL (SELECT unnest(generate_series(r.tms - r.tms % ${step} + ${step}, r.tms - r.tms % ${max} + ${max}, ${step})) AS we) g`,
  // SESSION: a row at t covers [t, t + gap); sessions that intersect or touch merge (Flink's
  // TimeWindow.intersects is inclusive), so a new session starts where the gap to the previous row
  // of the partition exceeds `gap`. window_end is the last row's time + gap.
  session: (gap: number, partition: string) => {
    const over = partition ? `PARTITION BY ${partition}` : ''
    return `SELECT *, MIN(tms) OVER (${over ? `${over}, sid` : 'PARTITION BY sid'}) AS ws,
                      MAX(tms) OVER (${over ? `${over}, sid` : 'PARTITION BY sid'}) + ${gap} AS we
      FROM (SELECT *, SUM(fresh) OVER (${over} ORDER BY tms ROWS UNBOUNDED PRECEDING) AS sid
            FROM (SELECT *, CASE WHEN tms - LAG(tms) OVER (${over} ORDER BY tms) <= ${gap} THEN 0 ELSE 1 END AS fresh
                  FROM (${withMs('t')})))`
  },
}
