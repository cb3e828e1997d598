// UNNEST as the planner binds it and the operator runs it: the logical plan's Unnest node and the job
// graph's spec hold the same values.
import type { Rex } from './rex.js'

/**
 * What one element of the collection becomes: `scalar` one column (an array's element), `row` the
 * fields of an array's ROW element (NULL fields for a NULL element), `map` two columns, key and value.
 */
export type UnnestShape = 'scalar' | 'row' | 'map'

/**
 * `t CROSS JOIN UNNEST(collection) [WITH ORDINALITY]` (Flink's Correlate over its UNNEST function):
 * each input row once per element, the input's columns then the element's `width` columns, then the
 * 1-based position (INT) with ordinality. Each output row has its input row's kind. A NULL or empty
 * collection yields no row, or with `outer` (LEFT JOIN UNNEST … ON TRUE) the input row once, the
 * element's columns (and position) NULL. Stateless.
 */
export interface UnnestSpec {
  readonly kind: 'Unnest'
  /** The collection: an ARRAY or MAP over the input row. */
  readonly collection: Rex
  readonly shape: UnnestShape
  /** The element's column count: 1 for a scalar, the ROW's field count, 2 for a map. */
  readonly width: number
  readonly ordinality: boolean
  readonly outer: boolean
}
