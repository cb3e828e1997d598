// Oracle tests for BETWEEN SYMMETRIC, SIMILAR TO and OVERLAY (expr/functions/similar.ts): the same
// projections over every generated row, in Weir and DuckDB. DuckDB has neither BETWEEN SYMMETRIC nor
// OVERLAY, and its SIMILAR TO takes a full regular expression, so each is spelled for DuckDB with
// what means the same there (noted inline).
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'
import { type Expr, expectSameProjection } from './projections.js'

const ROWS = 3000
const SEEDS = [5, 6]

/** SQL's definition of BETWEEN SYMMETRIC, in DuckDB's plain BETWEEN. */
const symmetric = (x: string, a: string, b: string): Expr => ({
  weir: `${x} BETWEEN SYMMETRIC ${a} AND ${b}`,
  duck: `((${x} BETWEEN ${a} AND ${b}) OR (${x} BETWEEN ${b} AND ${a}))`,
})

/**
 * OVERLAY as SUBSTRING(s, 1, p - 1) || r || SUBSTRING(s, p + len), the SQL standard's definition,
 * which Flink's shares for a position within s and a length above 0 (elsewhere Flink returns s, or
 * drops the rest of s: see test/expr/similar.test.ts), so DuckDB's side keeps s outside 1..length.
 */
const overlay = (s: string, r: string, p: string, len?: string): Expr => ({
  weir: `OVERLAY(${s} PLACING ${r} FROM ${p}${len === undefined ? '' : ` FOR ${len}`})`,
  duck: `CASE WHEN ${r} IS NULL THEN NULL WHEN (${p}) > length(${s}) THEN ${s} ELSE (substring(${s}, 1, (${p}) - 1) || ${r} || substring(${s}, (${p}) + ${
    len ?? `length(${r})`
  })) END`,
})

const FAMILIES: Record<string, readonly Expr[]> = {
  'BETWEEN SYMMETRIC': [
    symmetric('v', '50', '0'),
    symmetric('v', '0', '50'),
    symmetric('d', 'v', '10'),
    symmetric('x', 'd', 'v * 10'),
    symmetric('s', "'b'", 'k'),
    { weir: 'v NOT BETWEEN SYMMETRIC 40 AND -10', duck: 'NOT ((v BETWEEN 40 AND -10) OR (v BETWEEN -10 AND 40))' },
    { weir: 'd NOT BETWEEN SYMMETRIC v AND 0', duck: 'NOT ((d BETWEEN v AND 0) OR (d BETWEEN 0 AND v))' },
    { weir: 'v BETWEEN ASYMMETRIC 50 AND 0', duck: 'v BETWEEN 50 AND 0' },
  ],
  'SIMILAR TO, where DuckDB reads the same regular expression': [
    // % is DuckDB's .*, _ its . (no line breaks in the data); . is a wildcard in both (as in Calcite).
    { weir: "s SIMILAR TO '[a-z]+[0-9]?'", duck: "s SIMILAR TO '[a-z]+[0-9]?'" },
    { weir: "s SIMILAR TO '(alpha|Beta|x)[0-9]*'", duck: "s SIMILAR TO '(alpha|Beta|x)[0-9]*'" },
    { weir: "s SIMILAR TO '%(e|a)_'", duck: "s SIMILAR TO '.*(e|a).'" },
    { weir: "s NOT SIMILAR TO '_{2,4}'", duck: "s NOT SIMILAR TO '.{2,4}'" },
    { weir: "s SIMILAR TO '%[0-9]'", duck: "s SIMILAR TO '.*[0-9]'" },
    { weir: "s SIMILAR TO 'th!%%' ESCAPE '!'", duck: "s SIMILAR TO 'th%.*'" },
    { weir: "s SIMILAR TO 'zeta#_%' ESCAPE '#'", duck: "s SIMILAR TO 'zeta_.*'" },
    { weir: "s SIMILAR TO '%\\%'", duck: "s SIMILAR TO '.*\\\\.*'" },
    { weir: "s SIMILAR TO '%.%'", duck: "s SIMILAR TO '.*..*'" },
    { weir: "s SIMILAR TO '_.[a-z]%'", duck: "s SIMILAR TO '..[a-z].*'" },
    { weir: "s SIMILAR TO '%$%'", duck: "s SIMILAR TO '.*\\$.*'" },
    { weir: "s SIMILAR TO '[^a-z ]%'", duck: "s SIMILAR TO '[^a-z ].*'" },
    // A pattern from a column (compiled per distinct value).
    { weir: "s SIMILAR TO k || '%'", duck: "s SIMILAR TO k || '.*'" },
    { weir: "s SIMILAR TO CONCAT('%', k, '_')", duck: "s SIMILAR TO '.*' || k || '.'" },
  ],
  OVERLAY: [
    overlay('s', "'XY'", '1'),
    overlay('s', "'XY'", '3', '1'),
    overlay('s', 'k', '2', '10'),
    overlay('s', "''", '2', '2'),
    overlay('s', "'XY'", 'ABS(MOD(v, 9)) + 1'),
    overlay('s', 'k', 'ABS(MOD(v, 7)) + 1', 'ABS(MOD(v, 3)) + 1'),
    overlay("'This is an old string'", "' new'", '10', '5'),
  ],
}

describe.each(SEEDS)('BETWEEN SYMMETRIC, SIMILAR TO, OVERLAY vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: ROWS })
  })
  afterAll(async () => {
    await data?.close()
  })

  for (const [family, exprs] of Object.entries(FAMILIES)) {
    it(family, async () => {
      await expectSameProjection(data, exprs)
    })
  }

  it('in WHERE (NULL is not true)', async () => {
    await data.expectSame(
      "SELECT ts, k, v, s FROM t WHERE v BETWEEN SYMMETRIC 60 AND 20 AND s NOT SIMILAR TO '%[0-9]'",
      "SELECT ts, k, v, s FROM t WHERE ((v BETWEEN 60 AND 20) OR (v BETWEEN 20 AND 60)) AND s NOT SIMILAR TO '.*[0-9]'",
    )
  })
})
