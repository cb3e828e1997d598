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
