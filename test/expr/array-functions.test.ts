// The ARRAY_* and MAP_* functions (expr/functions/array-functions.ts, map-functions.ts) and SPLIT,
// REGEXP_EXTRACT_ALL, STR_TO_MAP (string-collections.ts): each against what Flink's documentation
// (docs/data/sql_functions.yml, quoted) and runtime classes give, NULL arguments and elements, empty
// arrays, and the types refused when planned.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { renderError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import { callableFunctionNames } from '../../expr/builtins.js'
import { apply, call, col, errorOf } from './helpers.js'

const I = T.int()
const S = T.string()
const AI = T.array(I)
const AS = T.array(S)
const MSI = T.map(S, I)

describe('ARRAY_APPEND, ARRAY_PREPEND, ARRAY_CONCAT', () => {
  it('add at either end; a NULL element is added, a NULL array gives NULL', () => {
    // "Appends an element to the end of the array … If the array itself is null, the function will return null.
    // If an element to add is null, the null element will be added to the end of the array."
    expect(apply('ARRAY_APPEND', [AI, I], [[1, 2], 3])).toEqual([1, 2, 3])
    expect(apply('ARRAY_APPEND', [AI, I], [[1, 2], null])).toEqual([1, 2, null])
    expect(apply('ARRAY_APPEND', [AI, I], [null, 3])).toBe(null)
    expect(apply('ARRAY_APPEND', [AI, I], [[], 3])).toEqual([3])
    expect(apply('ARRAY_PREPEND', [AI, I], [[1, 2], 0])).toEqual([0, 1, 2])
    expect(apply('ARRAY_PREPEND', [AI, I], [[1, 2], null])).toEqual([null, 1, 2])
    expect(apply('ARRAY_PREPEND', [AI, I], [null, 0])).toBe(null)
  })

  it('widen the element type to hold the new element (ARRAY<INT> + BIGINT → ARRAY<BIGINT>)', () => {
    const r = call('ARRAY_APPEND', col(0, T.array(T.int(false), false)), col(1, T.bigint(false)))
    expect(r.type).toEqual(T.array(T.bigint(false), false))
    const n = call('ARRAY_APPEND', col(0, T.array(T.int(false), false)), col(1, T.int()))
    expect(n.type).toEqual(T.array(T.int(true), false))
  })

  it('ARRAY_CONCAT: all elements in order; NULL if any array is NULL', () => {
    // "This array contains all the elements in the first array, followed by all the elements in the second array …
    // If any input array is NULL, the function returns NULL."
    expect(apply('ARRAY_CONCAT', [AI, AI, AI], [[1, 2], [], [2, null]])).toEqual([1, 2, 2, null])
    expect(apply('ARRAY_CONCAT', [AI], [[1]])).toEqual([1])
    expect(apply('ARRAY_CONCAT', [AI, AI], [[1], null])).toBe(null)
    expect(call('ARRAY_CONCAT', col(0, AI), col(1, T.array(T.double()))).type).toEqual(T.array(T.double()))
  })
})

describe('ARRAY_CONTAINS, ARRAY_POSITION, ARRAY_REMOVE', () => {
  it('find NULL elements too; a NULL array gives NULL', () => {
    // "Returns whether the given element exists in an array. Checking for null elements in the array is supported.
    // If the array itself is null, the function will return null."
    expect(apply('ARRAY_CONTAINS', [AI, I], [[1, 2, 3], 2])).toBe(true)
    expect(apply('ARRAY_CONTAINS', [AI, I], [[1, 2, 3], 4])).toBe(false)
    expect(apply('ARRAY_CONTAINS', [AI, I], [[1, null], null])).toBe(true)
    expect(apply('ARRAY_CONTAINS', [AI, I], [[1, 2], null])).toBe(false)
    expect(apply('ARRAY_CONTAINS', [AI, I], [null, 1])).toBe(null)
    expect(apply('ARRAY_CONTAINS', [AI, I], [[], 1])).toBe(false)
  })

  it('ARRAY_POSITION is 1-based, 0 when absent, NULL for a NULL argument', () => {
    // "Returns 0 if the given value could not be found in the array. Returns null if either of the arguments are null.
    // … 1-based index."
    expect(apply('ARRAY_POSITION', [AI, I], [[5, 6, 6], 6])).toBe(2)
    expect(apply('ARRAY_POSITION', [AI, I], [[5, 6], 7])).toBe(0)
    expect(apply('ARRAY_POSITION', [AI, I], [[5, null], null])).toBe(null)
    expect(apply('ARRAY_POSITION', [AI, I], [null, 5])).toBe(null)
  })

  it('ARRAY_REMOVE removes every equal element, NULLs with a NULL needle, and keeps the order', () => {
    // "Removes all elements that equal to element from array. If the array itself is null, the function will return null. Keeps ordering of elements."
    expect(apply('ARRAY_REMOVE', [AI, I], [[1, 2, 1, 3], 1])).toEqual([2, 3])
    expect(apply('ARRAY_REMOVE', [AI, I], [[1, null, 2, null], null])).toEqual([1, 2])
    expect(apply('ARRAY_REMOVE', [AI, I], [null, 1])).toBe(null)
    expect(apply('ARRAY_REMOVE', [AI, I], [[], 1])).toEqual([])
  })

  it('compare nested elements by value, and a MAP whatever its entry order', () => {
    const AAI = T.array(AI)
    expect(apply('ARRAY_CONTAINS', [AAI, AI], [[[1, 2], [3]], [3]])).toBe(true)
    expect(apply('ARRAY_POSITION', [AAI, AI], [[[1, 2], [1, null]], [1, null]])).toBe(2)
    const AM = T.array(MSI)
    expect(apply('ARRAY_CONTAINS', [AM, MSI], [[[['a', 1], ['b', 2]]], [['b', 2], ['a', 1]]])).toBe(true)
    expect(apply('ARRAY_CONTAINS', [AM, MSI], [[[['a', 1], ['b', 2]]], [['b', 2], ['a', 3]]])).toBe(false)
  })
})

describe('ARRAY_DISTINCT, ARRAY_REVERSE, ARRAY_SLICE', () => {
  it('ARRAY_DISTINCT keeps first appearances in order, NULL once', () => {
    // "Returns an array with unique elements. If the array itself is null, the function will return null. Keeps ordering of elements."
    expect(apply('ARRAY_DISTINCT', [AI], [[1, 2, 1, null, 2, null]])).toEqual([1, 2, null])
    expect(apply('ARRAY_DISTINCT', [AI], [[]])).toEqual([])
    expect(apply('ARRAY_DISTINCT', [AI], [null])).toBe(null)
  })

  it('ARRAY_REVERSE', () => {
    // "Returns an array in reverse order. If the array itself is null, the function will return null."
    expect(apply('ARRAY_REVERSE', [AI], [[1, null, 3]])).toEqual([3, null, 1])
    expect(apply('ARRAY_REVERSE', [AI], [null])).toBe(null)
  })

  it('ARRAY_SLICE: 1-based inclusive offsets, negative from the end, 0 as the start', () => {
    // "Returns a subarray of the input array between 'start_offset' and 'end_offset' inclusive. The offsets are 1-based
    // however 0 is also treated as the beginning of the array. Positive values are counted from the beginning of the array
    // while negative from the end. If 'end_offset' is omitted then this offset is treated as the length of the array. If
    // 'start_offset' is after 'end_offset' or both are out of array bounds an empty array will be returned. Returns null if any input is null."
    const slice = (...v: unknown[]) => apply('ARRAY_SLICE', [AI, I, I].slice(0, v.length), v)
    const a = [1, 2, 3, 4, 5]
    expect(slice(a, 2, 4)).toEqual([2, 3, 4])
    expect(slice(a, 0, 2)).toEqual([1, 2])
    expect(slice(a, -2)).toEqual([4, 5])
    expect(slice(a, -3, -2)).toEqual([3, 4])
    expect(slice(a, 4, 2)).toEqual([])
    expect(slice(a, 7, 9)).toEqual([])
    expect(slice(a, -9, 2)).toEqual([1, 2])
    expect(slice(a, 3, 99)).toEqual([3, 4, 5])
    // Flink's ArraySliceFunction makes an end offset of 0 the first element.
    expect(slice(a, 0, 0)).toEqual([1])
    expect(slice([], 1, 2)).toEqual([])
    expect(slice(a, null, 2)).toBe(null)
    expect(slice(a, 1, null)).toBe(null)
    expect(slice(null, 1)).toBe(null)
  })
})

describe('ARRAY_SORT, ARRAY_MAX, ARRAY_MIN', () => {
  it('ARRAY_SORT: ascending NULLs first by default; ascending_order and null_first as documented', () => {
    // "defaulting to ascending order with NULLs at the start … ascending_order as true orders the array in ascending with
    // NULLs first, and setting it to false orders it in descending with NULLs last. Independently, null_first as true moves
    // NULLs to the beginning, and as false to the end … The function returns null if any input is null."
    const B = T.boolean()
    const sort = (...v: unknown[]) => apply('ARRAY_SORT', [AI, B, B].slice(0, v.length), v)
    const a = [3, null, 1, 2, null]
    expect(sort(a)).toEqual([null, null, 1, 2, 3])
    expect(sort(a, true)).toEqual([null, null, 1, 2, 3])
    expect(sort(a, false)).toEqual([3, 2, 1, null, null])
    expect(sort(a, true, false)).toEqual([1, 2, 3, null, null])
    expect(sort(a, false, true)).toEqual([null, null, 3, 2, 1])
    expect(sort([], false)).toEqual([])
    expect(sort(a, null)).toBe(null)
    expect(sort(a, true, null)).toBe(null)
    expect(apply('ARRAY_SORT', [AS], [['b', 'a', 'B']])).toEqual(['B', 'a', 'b'])
    expect(apply('ARRAY_SORT', [T.array(T.double())], [[2, NaN, -1]])).toEqual([-1, 2, NaN])
  })

  it('ARRAY_MAX and ARRAY_MIN skip NULLs; an empty or NULL array gives NULL', () => {
    // "Returns the maximum value from the array, if array itself is null, the function returns null."
    expect(apply('ARRAY_MAX', [AI], [[1, null, 7, 3]])).toBe(7)
    expect(apply('ARRAY_MIN', [AI], [[4, null, 7, 3]])).toBe(3)
    expect(apply('ARRAY_MAX', [AI], [[]])).toBe(null)
    expect(apply('ARRAY_MAX', [AI], [[null]])).toBe(null)
    expect(apply('ARRAY_MIN', [AI], [null])).toBe(null)
    expect(apply('ARRAY_MAX', [AS], [['pear', 'apple']])).toBe('pear')
    expect(apply('ARRAY_MIN', [T.array(T.bigint())], [[9007199254740993n, 5, -9007199254740993n]])).toBe(-9007199254740993n)
    expect(call('ARRAY_MAX', col(0, T.array(T.int(false), false))).type).toEqual(T.int(true))
  })
})

describe('ARRAY_UNION, ARRAY_EXCEPT, ARRAY_INTERSECT', () => {
  it('set operations without duplicates, in first-array order', () => {
    // ARRAY_UNION: "the elements in the union of array1 and array2, without duplicates. If any of the array is null, the function will return null."
    expect(apply('ARRAY_UNION', [AI, AI], [[1, 2, 2, null], [3, 1, null, 4]])).toEqual([1, 2, null, 3, 4])
    expect(apply('ARRAY_UNION', [AI, AI], [[1], null])).toBe(null)
    // Flink's CollectionFunctionsITCase: ARRAY_UNION([1, 2, NULL], ARRAY[1, NULL, 4]) = [1, 2, NULL, 4].
    expect(apply('ARRAY_UNION', [AI, AI], [[1, 2, null], [1, null, 4]])).toEqual([1, 2, null, 4])
    // ARRAY_EXCEPT: "the elements from array1 that are not in array2, without duplicates. If no elements remain … an empty
    // ARRAY. If one or both arguments are NULL, the function returns NULL. The order of the elements from array1 is kept."
    // Flink's CollectionFunctionsITCase: ARRAY_EXCEPT([1, 2, 2], ARRAY[1, NULL, 4]) = [2], ARRAY_EXCEPT([1, 2, 3, 2, 4, 2],
    // ARRAY[2, 2]) = [1, 3, 4], ARRAY_EXCEPT([NULL, NULL, 1], ARRAY[NULL, 42]) = [1], ARRAY_EXCEPT([1, 2, 2], CAST(NULL AS ARRAY<INT>)) = NULL.
    expect(apply('ARRAY_EXCEPT', [AI, AI], [[1, 2, 2], [1, null, 4]])).toEqual([2])
    expect(apply('ARRAY_EXCEPT', [AI, AI], [[1, 2, 3, 2, 4, 2], [2, 2]])).toEqual([1, 3, 4])
    expect(apply('ARRAY_EXCEPT', [AI, AI], [[null, null, 1], [null, 42]])).toEqual([1])
    expect(apply('ARRAY_EXCEPT', [AI, AI], [[1, 2, 2], null])).toBe(null)
    expect(apply('ARRAY_EXCEPT', [AI, AI], [null, [1]])).toBe(null)
    expect(apply('ARRAY_EXCEPT', [AI, AI], [[1, 2], [1, 2]])).toEqual([])
    expect(apply('ARRAY_EXCEPT', [AI, AI], [[null, 1, null, 2], [2]])).toEqual([null, 1])
    // ARRAY_INTERSECT: "the elements from array1 that are also in array2, without duplicates. If no elements that are both in
    // array1 and array2, the function returns an empty ARRAY. If any of the array is null, the function will return null."
    expect(apply('ARRAY_INTERSECT', [AI, AI], [[3, 1, 2, 1, null], [1, 3, null]])).toEqual([3, 1, null])
    expect(apply('ARRAY_INTERSECT', [AI, AI], [[1, 2], [3]])).toEqual([])
    // Flink's CollectionFunctionsITCase: ARRAY_INTERSECT([1, 1, 2], ARRAY[1, NULL, 4]) = [1]; ([NULL, NULL, 1], ARRAY[NULL, 42]) = [NULL].
    expect(apply('ARRAY_INTERSECT', [AI, AI], [[1, 1, 2], [1, null, 4]])).toEqual([1])
    expect(apply('ARRAY_INTERSECT', [AI, AI], [[null, null, 1], [null, 42]])).toEqual([null])
    expect(apply('ARRAY_INTERSECT', [AI, AI], [null, [3]])).toBe(null)
  })
})

describe('ARRAY_FLATTEN, MAP_CONTAINS_KEY (newer Flink 2.x)', () => {
  it('ARRAY_FLATTEN skips NULL inner arrays and keeps NULL elements', () => {
    // Flink's CollectionFunctionsITCase: [[1, 2], NULL, [3]] → [1, 2, 3]; [[1, NULL, 2], [3]] → [1, NULL, 2, 3]; NULL → NULL.
    const AAI = T.array(AI)
    expect(apply('ARRAY_FLATTEN', [AAI], [[[1, 2], null, [3]]])).toEqual([1, 2, 3])
    expect(apply('ARRAY_FLATTEN', [AAI], [[[1, null, 2], [3]]])).toEqual([1, null, 2, 3])
    expect(apply('ARRAY_FLATTEN', [AAI], [[]])).toEqual([])
    expect(apply('ARRAY_FLATTEN', [AAI], [null])).toBe(null)
    expect(errorOf(() => call('ARRAY_FLATTEN', col(0, AI))).message).toBe("cannot apply 'ARRAY_FLATTEN' to (ARRAY<INT>)")
  })

  it('MAP_CONTAINS_KEY finds a NULL key with a NULL needle; a NULL map gives NULL', () => {
    // Flink's MapContainsKeyFunction: "A NULL needle matches a NULL key, unlike SQL `NULL = NULL`".
    expect(apply('MAP_CONTAINS_KEY', [MSI, S], [[['a', 1], ['b', null]], 'b'])).toBe(true)
    expect(apply('MAP_CONTAINS_KEY', [MSI, S], [[['a', 1]], 'z'])).toBe(false)
    expect(apply('MAP_CONTAINS_KEY', [MSI, S], [[['a', 1], [null, 2]], null])).toBe(true)
    expect(apply('MAP_CONTAINS_KEY', [MSI, S], [[['a', 1]], null])).toBe(false)
    expect(apply('MAP_CONTAINS_KEY', [MSI, S], [null, 'a'])).toBe(null)
    expect(errorOf(() => call('MAP_CONTAINS_KEY', col(0, MSI), col(1, I))).message).toBe("cannot apply 'MAP_CONTAINS_KEY' to (MAP<STRING, INT>, INT)")
  })
})

describe('ARRAY_JOIN', () => {
  it('joins strings, omitting NULLs unless a replacement is given', () => {
    // "If nullReplacement is not specified, null elements in the array will be omitted from the resulting string. Returns
    // null if input array or delimiter or nullReplacement are null."
    const join = (...v: unknown[]) => apply('ARRAY_JOIN', [AS, S, S].slice(0, v.length), v)
    expect(join(['a', null, 'b'], '-')).toBe('a-b')
    expect(join(['a', null, 'b'], '-', 'x')).toBe('a-x-b')
    expect(join([], ',')).toBe('')
    expect(join(null, ',')).toBe(null)
    expect(join(['a'], null)).toBe(null)
    expect(join(['a'], ',', null)).toBe(null)
    // Flink's CollectionFunctionsITCase: ARRAY_JOIN(['a', 'b', NULL], '+', '') = 'a+b+'; ARRAY_JOIN([NULL, NULL, '1', NULL, NULL], '+') = '1'.
    expect(join(['a', 'b', null], '+', '')).toBe('a+b+')
    expect(join([null, null, '1', null, null], '+')).toBe('1')
    expect(join([null, null, '1', null, null], '+', ' ')).toBe(' + +1+ + ')
  })
})

describe('MAP_KEYS, MAP_VALUES, MAP_ENTRIES, MAP_FROM_ARRAYS, MAP_UNION', () => {
  const m = [['a', 1], ['b', null]]
  it('take a map apart', () => {
    // "Returns the keys of the map as array. No order guaranteed." (Weir keeps the map's own order.)
    expect(apply('MAP_KEYS', [MSI], [m])).toEqual(['a', 'b'])
    expect(apply('MAP_VALUES', [MSI], [m])).toEqual([1, null])
    expect(apply('MAP_ENTRIES', [MSI], [m])).toEqual([['a', 1], ['b', null]])
    expect(apply('MAP_KEYS', [MSI], [null])).toBe(null)
    expect(apply('MAP_KEYS', [MSI], [[]])).toEqual([])
    expect(call('MAP_ENTRIES', col(0, MSI)).type).toEqual(T.array(T.row([{ name: 'key', type: S }, { name: 'value', type: I }], false)))
    expect(call('MAP_KEYS', col(0, T.map(S, I, false))).type).toEqual(T.array(S, false))
  })

  it('a MAP key found by value: a nested key equal whatever its entry order', () => {
    const MM = T.map(MSI, S)
    expect(apply('ITEM', [MM, MSI], [[[[['a', 1], ['b', 2]], 'x']], [['b', 2], ['a', 1]]])).toBe('x')
    expect(apply('MAP_CONTAINS_KEY', [MM, MSI], [[[[['a', 1], ['b', 2]], 'x']], [['b', 2], ['a', 1]]])).toBe(true)
    expect(apply('MAP', [T.array(I), I, T.array(I), I], [[1], 1, [1], 2])).toEqual([[[1], 2]])
  })

  it('MAP_FROM_ARRAYS pairs keys with values; arrays of different lengths fail', () => {
    // "Returns a map created from an arrays of keys and values. Note that the lengths of two arrays should be the same."
    expect(apply('MAP_FROM_ARRAYS', [AS, AI], [['a', 'b'], [1, 2]])).toEqual([['a', 1], ['b', 2]])
    expect(apply('MAP_FROM_ARRAYS', [AS, AI], [['a', 'a'], [1, 2]])).toEqual([['a', 2]])
    expect(apply('MAP_FROM_ARRAYS', [AS, AI], [null, [1]])).toBe(null)
    expect(errorOf(() => apply('MAP_FROM_ARRAYS', [AS, AI], [['a'], [1, 2]])).message).toBe('MAP_FROM_ARRAYS got 1 key and 2 values')
  })

  it('MAP_UNION: later maps overwrite earlier values; NULL if any map is NULL', () => {
    // "If there are overlapping keys, the value from 'map2' will overwrite the value from 'map1' … If any of maps is null, return null."
    expect(apply('MAP_UNION', [MSI, MSI], [[['a', 1], ['b', 2]], [['b', 3], ['c', 4]]])).toEqual([['a', 1], ['b', 3], ['c', 4]])
    expect(apply('MAP_UNION', [MSI], [[['a', 1]]])).toEqual([['a', 1]])
    expect(apply('MAP_UNION', [MSI, MSI], [[['a', 1]], null])).toBe(null)
    expect(call('MAP_UNION', col(0, MSI), col(1, T.map(S, T.bigint()))).type).toEqual(T.map(S, T.bigint()))
  })
})

describe('SPLIT, REGEXP_EXTRACT_ALL, STR_TO_MAP', () => {
  it('SPLIT as documented', () => {
    // "If the delimiter is not found in the string, the original string is returned as the only element in the array. If the
    // delimiter is empty, every character in the string is split. If the string or delimiter is null, a null value is returned.
    // If the delimiter is found at the beginning or end of the string, or there are contiguous delimiters, then an empty
    // string is added to the array."
    const split = (a: unknown, b: unknown) => apply('SPLIT', [S, S], [a, b])
    expect(split('abc', ',')).toEqual(['abc'])
    expect(split('a,b,c', ',')).toEqual(['a', 'b', 'c'])
    expect(split(',a,,b,', ',')).toEqual(['', 'a', '', 'b', ''])
    expect(split('a->b->c', '->')).toEqual(['a', 'b', 'c'])
    expect(split('a😀b', '')).toEqual(['a', '😀', 'b'])
    expect(split('', ',')).toEqual([])
    expect(split(null, ',')).toBe(null)
    expect(split('a', null)).toBe(null)
  })

  it('REGEXP_EXTRACT_ALL: group 1 by default, 0 the whole match, a group out of range refused', () => {
    // FLINK-35931: REGEXP_EXTRACT_ALL('100-200, 300-400', '(\\d+)-(\\d+)', 1) gives [100, 300]; "extractIndex … starts
    // from 1, also the default value if not specified. 0 means matching the entire regular expression."
    const all = (...v: unknown[]) => apply('REGEXP_EXTRACT_ALL', [S, S, I].slice(0, v.length), v)
    expect(all('100-200, 300-400', '(\\d+)-(\\d+)', 1)).toEqual(['100', '300'])
    expect(all('100-200, 300-400', '(\\d+)-(\\d+)')).toEqual(['100', '300'])
    expect(all('100-200, 300-400', '(\\d+)-(\\d+)', 2)).toEqual(['200', '400'])
    expect(all('100-200, 300-400', '(\\d+)-(\\d+)', 0)).toEqual(['100-200', '300-400'])
    expect(all('abc', '(\\d+)', 1)).toEqual([])
    expect(all('a1b', '(a)|(b)', 2)).toEqual([null, 'b'])
    expect(all(null, '(\\d)')).toBe(null)
    expect(all('1', '(\\d)', null)).toBe(null)
    expect(errorOf(() => all('1-2', '(\\d+)', 2)).message).toBe("REGEXP_EXTRACT_ALL: group 2 is out of range [0, 1] for '(\\d+)'")
  })

  it('STR_TO_MAP: defaults , and =, delimiters are regular expressions', () => {
    // "string2 is the pair delimiter, default is ','. And string3 is the key-value delimiter, default is '='. Both pair
    // delimiter and key-value delimiter are treated as regular expressions."
    const map = (...v: unknown[]) => apply('STR_TO_MAP', [S, S, S].slice(0, v.length), v)
    expect(map('a=1,b=2')).toEqual([['a', '1'], ['b', '2']])
    expect(map('k1:v1|k2:v2', '\\|', ':')).toEqual([['k1', 'v1'], ['k2', 'v2']])
    expect(map('a=1;; b = 2', ';+\\s*', '\\s*=\\s*')).toEqual([['a', '1'], ['b', '2']])
    // Java's split: no trailing empty pairs; a pair without the key-value delimiter has a NULL value; '=' splits once.
    expect(map('a=1,,b,c=x=y,')).toEqual([['a', '1'], ['', null], ['b', null], ['c', 'x=y']])
    expect(map('a=1,a=2')).toEqual([['a', '2']])
    expect(map('')).toEqual([])
    expect(map(null)).toBe(null)
    expect(map('a=1', null, '=')).toBe(null)
  })
})

describe('bad arguments are refused when planned', () => {
  const refused: [string, string][] = [
    ['ARRAY_APPEND(1, 2)', "cannot apply 'ARRAY_APPEND' to (INT, INT)"],
    ["ARRAY_CONTAINS(ARRAY[1, 2], 'a')", "cannot apply 'ARRAY_CONTAINS' to (ARRAY<INT>, CHAR(1))"],
    ['ARRAY_CONTAINS(ARRAY[1, 2], 1.5)', "cannot apply 'ARRAY_CONTAINS' to (ARRAY<INT>, DECIMAL(2, 1))"],
    ["ARRAY_CONCAT(ARRAY[1], ARRAY['a'])", "cannot apply 'ARRAY_CONCAT' to (ARRAY<INT>, ARRAY<CHAR(1)>)"],
    ['ARRAY_SORT(ARRAY[ARRAY[1]])', "cannot apply 'ARRAY_SORT' to ARRAY<ARRAY<INT>>: its elements have no order"],
    ['ARRAY_MAX(ARRAY[ROW(1, 2)])', "cannot apply 'ARRAY_MAX' to ARRAY<ROW<EXPR$0 INT, EXPR$1 INT>>: its elements have no order"],
    ['ARRAY_MIN(ARRAY[TRUE, FALSE])', "cannot apply 'ARRAY_MIN' to ARRAY<BOOLEAN>: its elements have no order"],
    ["ARRAY_SLICE(ARRAY[1], 'a')", "cannot apply 'ARRAY_SLICE' to (ARRAY<INT>, CHAR(1))"],
    ["ARRAY_JOIN(ARRAY[1], ',')", "cannot apply 'ARRAY_JOIN' to (ARRAY<INT>, CHAR(1))"],
    ["MAP_KEYS(ARRAY['a'])", "cannot apply 'MAP_KEYS' to (ARRAY<CHAR(1)>)"],
    ["MAP_UNION(MAP['a', 1], MAP[1, 'a'])", "cannot apply 'MAP_UNION' to (MAP<CHAR(1), INT>, MAP<INT, CHAR(1)>)"],
    ["SPLIT('a', 1)", "cannot apply 'SPLIT' to (CHAR(1), INT)"],
    ["REGEXP_EXTRACT_ALL('a', '(a')", "invalid regular expression '(a'"],
    ["REGEXP_EXTRACT_ALL('a', '(a)', 2)", "group 2 of '(a)' does not exist: it has 1 group"],
    ["STR_TO_MAP('a', ',')", "'STR_TO_MAP' takes 1 or 3 arguments but was given 2"],
    ['ARRAY[1] < ARRAY[2]', "cannot apply '<' to ARRAY<INT> and ARRAY<INT>: ROW, ARRAY and MAP values have no order"],
    ["ARRAY[1] = ARRAY['a']", "cannot apply '=' to ARRAY<INT> and ARRAY<CHAR(1)>"],
    ['ROW(1, 2) = ROW(1, 2, 3)', "cannot apply '=' to ROW<EXPR$0 INT, EXPR$1 INT> and ROW<EXPR$0 INT, EXPR$1 INT, EXPR$2 INT>"],
  ]
  it.each(refused)('%s', async (expr, message) => {
    const sql = `SELECT ${expr}`
    const error = await new Session({ println: () => undefined }).executeSql(sql).then(() => undefined, (e: unknown) => e)
    const text = renderError(error, sql, 'q.sql')
    // Literal elements are NOT NULL; the messages print it inside the types, left out of the expectations above.
    expect(text.replaceAll(' NOT NULL', '')).toContain(message)
    // The caret is under the call: line 1, from column 8.
    expect(text).toContain('--> q.sql:1:8')
  })
})

it('SHOW FUNCTIONS lists every new function (and not the internal MAP_KEY)', () => {
  const names = callableFunctionNames()
  const added = ['ARRAY_APPEND', 'ARRAY_PREPEND', 'ARRAY_CONCAT', 'ARRAY_CONTAINS', 'ARRAY_DISTINCT', 'ARRAY_POSITION', 'ARRAY_REMOVE', 'ARRAY_REVERSE',
    'ARRAY_SLICE', 'ARRAY_SORT', 'ARRAY_UNION', 'ARRAY_EXCEPT', 'ARRAY_INTERSECT', 'ARRAY_MAX', 'ARRAY_MIN', 'ARRAY_JOIN', 'MAP_KEYS', 'MAP_VALUES',
    'MAP_ENTRIES', 'MAP_FROM_ARRAYS', 'MAP_UNION', 'MAP_CONTAINS_KEY', 'ARRAY_FLATTEN', 'SPLIT', 'REGEXP_EXTRACT_ALL', 'STR_TO_MAP']
  for (const n of added) expect(names).toContain(n)
  expect(names).not.toContain('MAP_KEY')
})
