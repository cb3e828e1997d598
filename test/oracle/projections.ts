// The scalar oracle tests' shape: families of expressions, each spelled for Weir and (where it differs)
// for DuckDB, projected over every generated row in both engines and compared.
import type { OracleData } from './oracle.js'

/** A column of the projection, spelled for each engine (DuckDB's spelling defaults to Weir's). */
export interface Expr {
  readonly weir: string
  readonly duck?: string
}

/** An expression both engines spell alike. */
export const same = (sql: string): Expr => ({ weir: sql })

/** Projects `exprs` over every row of t in Weir and DuckDB and expects the same rows. */
export async function expectSameProjection(data: OracleData, exprs: readonly Expr[]): Promise<void> {
  const cols = (engine: 'weir' | 'duck') => exprs.map((e, i) => `${engine === 'duck' ? e.duck ?? e.weir : e.weir} AS c${i}`).join(', ')
  // ts and s are carried along so that a differing row says where it came from.
  await data.expectSame(`SELECT ts, s, ${cols('weir')} FROM t`, `SELECT ts, s, ${cols('duck')} FROM t`)
}
