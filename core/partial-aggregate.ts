// Two-phase aggregation's partial rows: what a LocalGroupAggregate emits per group key and input
// batch, and its GlobalGroupAggregate merges — the group keys, then one accumulator in the layout
// of operators/aggregates.ts (slot 0 the row count, then each call's slots). The planner names and
// types these columns (EXPLAIN, the exchange's schema); the operators check the layout matches.
import { T, withoutTimeAttr, type DataType, type Field } from '../common/types.js'
import { WeirError } from '../common/errors.js'
import type { AggCall } from './aggregates.js'

/** The functions whose accumulators merge (COUNT, SUM, MIN, MAX, AVG; not DISTINCT, not user aggregates). */
const MERGEABLE: ReadonlySet<string> = new Set(['COUNT', 'SUM', 'MIN', 'MAX', 'AVG'])

/** Whether a call's partial accumulators merge into its final one, or why not. */
export function unmergeable(a: AggCall): string | undefined {
  if (a.user !== undefined) return `the user aggregate ${a.name} is split by no rule`
  if (!MERGEABLE.has(a.fn)) return `${a.fn} (${a.name}) has no partial accumulator to merge`
  if (a.distinct) return `${a.fn}(DISTINCT …) (${a.name}) needs its values, not a partial count`
  return undefined
}

/** The accumulator columns of `aggs`: their fields (after the keys), and each call's column indices among them. */
export interface PartialColumns {
  readonly fields: readonly Field[]
  readonly slots: readonly (readonly number[])[]
}

/**
 * The accumulator's columns of mergeable `aggs`, named as Flink names a local aggregate's
 * (`count$1`, `sum$2`…): slot 0 `count1$0` (the rows of the group), then per call COUNT [count],
 * SUM and AVG [sum, count of non-NULL values], MIN and MAX [the extreme, NULL while none].
 *
 * @example partialColumns([avg]).fields.map(f => f.name) // ['count1$0', 'sum$1', 'count$2']
 */
export function partialColumns(aggs: readonly AggCall[]): PartialColumns {
  const fields: Field[] = [{ name: 'count1$0', type: T.bigint(false) }]
  const slots: number[][] = []
  const add = (name: string, type: DataType): number => {
    fields.push({ name: `${name}$${fields.length}`, type })
    return fields.length - 1
  }
  for (const a of aggs) {
    switch (a.fn) {
      case 'COUNT':
        slots.push([add('count', T.bigint(false))])
        break
      case 'SUM':
      case 'AVG':
        slots.push([add('sum', sumType(a)), add('count', T.bigint(false))])
        break
      case 'MIN':
      case 'MAX':
        slots.push([add(a.fn.toLowerCase(), withoutTimeAttr({ ...(a.argType ?? a.type), nullable: true }))])
        break
      default:
        throw WeirError.internal(`${a.fn} has no partial accumulator`)
    }
  }
  return { fields, slots }
}

/** The running sum's type, as operators/aggregates.ts keeps it: in the argument's integer width, 64 bits, doubles, or the argument's decimal scale. */
function sumType(a: AggCall): DataType {
  const arg = a.argType
  switch (arg?.kind) {
    case 'DECIMAL':
      return T.decimal(38, arg.scale, false)
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
      return a.fn === 'SUM' ? { ...arg, nullable: false } : T.bigint(false)
    case 'BIGINT':
      return T.bigint(false)
    default:
      return T.double(false)
  }
}
