// The built-in functions of Flink added after the first families (Flink 1.15–2.0 names): one list for builtins.ts.
import type { FunctionDef } from '../registry.js'
import { ARRAY_FUNCTIONS } from './array-functions.js'
import { COLLECTIONS } from './collections.js'
import { DISTINCT_TUPLE_FUNCTION } from './distinct-tuple.js'
import { HASH } from './hash.js'
import { INSPECT } from './inspect.js'
import { JSON_FUNCTIONS } from './json.js'
import { JSON_BUILD_FUNCTIONS } from './json-build.js'
import { MAP_FUNCTIONS } from './map-functions.js'
import { PRINTF } from './printf.js'
import { SIMILAR } from './similar.js'
import { STRING_COLLECTIONS } from './string-collections.js'
import { TEXT } from './text.js'
import { CONVERT_TZ } from './zones.js'
import { CURRENT_WATERMARK } from './watermark.js'
import { CHARSET_FUNCTIONS } from './charsets.js'
import { JSON_QUOTE_FUNCTIONS } from './json-quote.js'
import { CURRENT_DATABASE } from './session.js'

export const MORE: readonly FunctionDef[] = [...TEXT, PRINTF, ...HASH, ...INSPECT, ...SIMILAR, ...JSON_FUNCTIONS, ...JSON_BUILD_FUNCTIONS,
  DISTINCT_TUPLE_FUNCTION, CONVERT_TZ, ...COLLECTIONS, ...ARRAY_FUNCTIONS, ...MAP_FUNCTIONS, ...STRING_COLLECTIONS, CURRENT_WATERMARK, ...CHARSET_FUNCTIONS,
  ...JSON_QUOTE_FUNCTIONS, CURRENT_DATABASE]
