// Oracle test for the ARRAY_*, MAP_* and collection-returning string functions: arrays and maps
// built from each generated row (NULL elements included), taken apart by the new functions in Weir
// and by DuckDB's list_*, string_split, regexp_extract_all and map_* functions. Only where both
// engines mean the same thing: DuckDB's list_distinct drops NULLs (Flink keeps one), its
// list_position gives NULL where Flink gives 0, its array_to_string of only NULLs is NULL, and its
// string_split of '' is [''] where Flink's SPLIT gives []; those are adjusted or left to the unit tests.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { OracleData } from './oracle.js'

describe.each([11, 12])('collection functions vs DuckDB, seed %i', seed => {
  let data: OracleData
  beforeAll(async () => {
    data = await OracleData.create({ seed, rows: 1500 })
  })
  afterAll(async () => {
    await data?.close()
  })

  it('ARRAY_* over an array with NULL elements built per row', async () => {
    await data.expectSame(
      `SELECT ts, v, ARRAY_REVERSE(a)[1], ARRAY_SLICE(a, 2, 3)[1], ARRAY_SLICE(a, 2)[3], ARRAY_POSITION(a, COALESCE(v, 0)), ARRAY_CONTAINS(a, 5),
         ARRAY_MAX(a), ARRAY_MIN(a), CARDINALITY(ARRAY_CONCAT(a, a, ARRAY[7])), ARRAY_APPEND(a, 3)[5], ARRAY_PREPEND(a, 3)[1],
         ARRAY_SORT(a)[2], ARRAY_SORT(a)[4], ARRAY_SORT(a, FALSE)[1], ARRAY_SORT(a, TRUE, FALSE)[1], CARDINALITY(ARRAY_REMOVE(a, 5)),
         COALESCE(ARRAY_JOIN(ss, '-'), ''), ARRAY_JOIN(ss, '-', '?')
       FROM (SELECT ts, v, ARRAY[v, MOD(v, 7), CAST(NULL AS INT), v * 2] AS a, ARRAY[k, s, k] AS ss FROM t)`,
      `SELECT ts, v, list_reverse(a)[1], list_slice(a, 2, 3)[1], list_slice(a, 2, 4)[3], COALESCE(list_position(a, COALESCE(v, 0)), 0), list_contains(a, 5),
         list_max(a), list_min(a), len(list_concat(list_concat(a, a), [7])), list_append(a, 3)[5], list_prepend(3, a)[1],
         list_sort(a, 'ASC', 'NULLS FIRST')[2], list_sort(a, 'ASC', 'NULLS FIRST')[4], list_sort(a, 'DESC', 'NULLS LAST')[1],
         list_sort(a, 'ASC', 'NULLS LAST')[1], len(list_filter(a, x -> x IS DISTINCT FROM 5)),
         COALESCE(array_to_string(ss, '-'), ''), array_to_string(list_transform(ss, x -> COALESCE(x, '?')), '-')
       FROM (SELECT ts, v, [v, v % 7, NULL::INTEGER, v * 2] AS a, [k, s, k] AS ss FROM t)`,
    )
  })

  it('SPLIT and REGEXP_EXTRACT_ALL over the string column', async () => {
    await data.expectSame(
      `SELECT ts, s, CARDINALITY(SPLIT(s, 'a')), SPLIT(s, 'a')[1], SPLIT(s, 'a')[2], ARRAY_JOIN(SPLIT(s, 'e'), '+'),
         CARDINALITY(REGEXP_EXTRACT_ALL(s, '([a-z])([0-9]|a)', 2)), REGEXP_EXTRACT_ALL(s, '([a-z])([0-9]|a)')[1],
         REGEXP_EXTRACT_ALL(s, '[aeiou]+', 0)[2]
       FROM t WHERE s <> ''`,
      `SELECT ts, s, len(string_split(s, 'a')), string_split(s, 'a')[1], string_split(s, 'a')[2], array_to_string(string_split(s, 'e'), '+'),
         len(regexp_extract_all(s, '([a-z])([0-9]|a)', 2)), regexp_extract_all(s, '([a-z])([0-9]|a)', 1)[1],
         regexp_extract_all(s, '[aeiou]+', 0)[2]
       FROM t WHERE s <> ''`,
    )
  })

  it('MAP_KEYS, MAP_VALUES, MAP_ENTRIES, MAP_FROM_ARRAYS, MAP_UNION over maps built per row', async () => {
    await data.expectSame(
      `SELECT ts, v, MAP_KEYS(m)[2], MAP_VALUES(m)[1], MAP_VALUES(m)[2], CARDINALITY(MAP_ENTRIES(m)), MAP_ENTRIES(m)[2].\`value\`,
         MAP_FROM_ARRAYS(ARRAY['x', 'y'], ARRAY[v, v + 1])['y'], MAP_UNION(m, MAP['b', 0, 'c', v])['b'], CARDINALITY(MAP_UNION(m, MAP['c', 1]))
       FROM (SELECT ts, v, MAP['a', v, 'b', MOD(v, 4)] AS m FROM t)`,
      `SELECT ts, v, map_keys(m)[2], map_values(m)[1], map_values(m)[2], len(map_entries(m)), map_entries(m)[2].value,
         map(['x', 'y'], [v, v + 1])['y'], 0, 3
       FROM (SELECT ts, v, map(['a', 'b'], [v, v % 4]) AS m FROM t)`,
    )
  })

  it('= and <> between arrays and rows in WHERE', async () => {
    await data.expectSame(
      `SELECT ts, v, k FROM t WHERE v IS NOT NULL AND ARRAY[v, MOD(v, 3)] = ARRAY[MOD(v, 3), v] OR ROW(k, 1) = ROW('a', 1)`,
      `SELECT ts, v, k FROM t WHERE v IS NOT NULL AND [v, v % 3] = [v % 3, v] OR {'a': k, 'b': 1} = {'a': 'a', 'b': 1}`,
    )
    await data.expectSame(
      `SELECT ts, v FROM t WHERE ARRAY[v, 1] <> ARRAY[2, 1] AND SPLIT(s, 'a') = ARRAY['', 'lph', '']`,
      `SELECT ts, v FROM t WHERE [v, 1] <> [2, 1] AND string_split(s, 'a') = ['', 'lph', '']`,
    )
  })
})
