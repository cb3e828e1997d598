// The logical Unnest node: a FROM item's rows joined to the elements of a collection they hold
// (`t CROSS JOIN UNNEST(t.arr) AS u(x)`, Flink's Correlate). Planned by planner/bind/unnest.ts.
import type { Span } from '../../common/span.js'
import type { Field } from '../../common/types.js'
import type { UnnestSpec } from '../../core/unnest.js'
import type { LogicalPlan } from './nodes.js'

/** The spec's values over `input`; `fields` are the input's then the element's (then the position). */
export interface Unnest extends Omit<UnnestSpec, 'kind'> {
  readonly kind: 'Unnest'
  readonly input: LogicalPlan
  readonly fields: readonly Field[]
  readonly span: Span
}
