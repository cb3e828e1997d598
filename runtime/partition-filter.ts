// Partition pruning: of a source's pushed-down filter, the conjuncts that read partition columns only
// (PARTITIONED BY) and always give the same answer, as a test of a partition's values. The source
// skips the folders it fails; the whole filter still runs on every row read, so pruning only saves
// reading rows the filter would drop.
import type { Row } from '../core/batch.js'
import type { SourceSpec } from '../core/job-graph.js'
import { conjunctsOf, inputsUsed, isNonDeterministic, readsWatermark } from '../core/rex.js'
import { compilePredicate } from '../expr/index.js'

/**
 * A test of partition values (in PARTITIONED BY order) that every row of the partition would have to
 * pass; undefined when the filter says nothing of partitions alone.
 *
 * @example partitionFilter(spec)?.(['2024-05-01']) // false: WHERE dt = '2024-05-02' prunes that folder
 */
export function partitionFilter(spec: SourceSpec): ((values: Row) => boolean) | undefined {
  const keys = spec.partitionKeys ?? []
  if (keys.length === 0 || spec.filter === undefined) return undefined
  const at = keys.map(k => spec.physicalSchema.findIndex(f => f.name === k))
  const tests = conjunctsOf(spec.filter)
    .filter(c => {
      const used = [...inputsUsed(c)]
      return used.length > 0 && used.every(i => at.includes(i)) && !isNonDeterministic(c) && !readsWatermark(c)
    })
    .map(compilePredicate)
  if (tests.length === 0) return undefined
  const row: unknown[] = new Array(spec.physicalSchema.length).fill(null)
  return values => {
    for (let k = 0; k < at.length; k++) row[at[k]!] = values[k]
    return tests.every(t => t(row))
  }
}
