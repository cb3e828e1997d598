// Oracle tests for the functions of expr/functions/{text,hash}.ts and the hyperbolic / radix ones of
// math.ts: the same projections over every generated row, in Weir and DuckDB, for the functions
// whose meaning Flink and DuckDB share (differences noted inline).
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'
import { type Expr, expectSameProjection, same } from './projections.js'

const ROWS = 3000
const SEEDS = [5, 6]

const FAMILIES: Record<string, readonly Expr[]> = {
  'STARTSWITH, ENDSWITH, INSTR, TRANSLATE, CHR': [
    { weir: "STARTSWITH(s, 'a')", duck: "starts_with(s, 'a')" },
    { weir: 'STARTSWITH(s, k)', duck: 'starts_with(s, k)' },
    { weir: "STARTSWITH(s, '')", duck: "starts_with(s, '')" },
    { weir: "ENDSWITH(s, '1')", duck: "ends_with(s, '1')" },
    { weir: 'ENDSWITH(s, k)', duck: 'ends_with(s, k)' },
    same("INSTR(s, 'a')"),
    same('INSTR(s, k)'),
    // Literal from/to only: with a NULL fromStr Flink returns the input, DuckDB NULL.
    same("TRANSLATE(s, 'aeiou', 'AE')"),
    same("TRANSLATE(s, 'abc', 'xyz')"),
    // Flink's CHR takes the low 8 bits; DuckDB's chr is the code point: the same below 256.
    same('CHR(v + 51)'),
  ],
  'base64, regular expressions': [
    // DuckDB encodes a BLOB: encode() gives the string's UTF-8 bytes, decode() reads them back.
    { weir: 'TO_BASE64(s)', duck: 'to_base64(encode(s))' },
    { weir: 'FROM_BASE64(TO_BASE64(s))', duck: 'decode(from_base64(to_base64(encode(s))))' },
    { weir: 'TO_BASE64(CONCAT(s, k))', duck: 'to_base64(encode(s || k))' },
    { weir: "REGEXP_COUNT(s, '[aeiou]')", duck: "len(regexp_extract_all(s, '[aeiou]'))" },
    { weir: "REGEXP_COUNT(s, 'a|e')", duck: "len(regexp_extract_all(s, 'a|e'))" },
    // Flink gives NULL when nothing matches, DuckDB ''; the match is never empty when there is one.
    { weir: "REGEXP_SUBSTR(s, '[0-9]+')", duck: "NULLIF(regexp_extract(s, '[0-9]+'), '')" },
    { weir: "REGEXP_SUBSTR(s, '[a-e]+')", duck: "NULLIF(regexp_extract(s, '[a-e]+'), '')" },
    // 1-based position of the first match, 0 when none (DuckDB: the position of the extracted text).
    { weir: "REGEXP_INSTR(s, '[0-9]')",
      duck: "CASE WHEN s IS NULL THEN NULL WHEN regexp_matches(s, '[0-9]') THEN instr(s, regexp_extract(s, '[0-9]')) ELSE 0 END" },
  ],
  'HEX, BIN, hyperbolic functions, COT': [
    // Flink widens an INT to a long (64-bit two's complement for negatives), as DuckDB's hex of a BIGINT.
    { weir: 'HEX(v)', duck: 'hex(CAST(v AS BIGINT))' },
    same('HEX(b)'),
    same('BIN(b)'),
    { weir: 'BIN(v)', duck: 'bin(CAST(v AS BIGINT))' },
    same('HEX(s)'),
    same('SINH(x / 100)'),
    same('COSH(x / 100)'),
    same('TANH(x / 100)'),
    same('SINH(v)'),
    same('COT(x + 0.01)'),
    // DuckDB refuses COT(0) (Flink gives Infinity): an argument that is never 0.
    same('COT(d + 0.005)'),
  ],
  'MD5, SHA1, SHA256': [
    same('MD5(s)'),
    same('SHA1(s)'),
    same('SHA256(s)'),
    { weir: 'MD5(CONCAT(k, s))', duck: 'md5(k || s)' },
    { weir: 'SHA2(s, 256)', duck: 'sha256(s)' },
  ],
}

describe.each(SEEDS)('more scalar functions vs DuckDB, seed %i', seed => {
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

  it('WHERE with the new predicates', async () => {
    await data.expectSame(
      "SELECT ts, k, v, s FROM t WHERE STARTSWITH(s, 'b') OR (ENDSWITH(s, '3') AND INSTR(s, 'e') > 0)",
      "SELECT ts, k, v, s FROM t WHERE starts_with(s, 'b') OR (ends_with(s, '3') AND instr(s, 'e') > 0)",
    )
  })
})
