// What a sink writer is created with from its table alone (SinkSpec): the same for a sink on the job's
// thread (executor.ts, which adds restore, exactly-once and logging) and one on a worker (sink-parallelism.ts).
import type { SinkContext } from '../connectors/api.js'
import type { SinkSpec } from '../core/job-graph.js'

/** The table's part of a SinkContext. */
export function sinkTableContext(
  spec: SinkSpec,
): Pick<SinkContext, 'table' | 'options' | 'schema' | 'metadata' | 'partitionKeys' | 'staticPartition' | 'overwrite' | 'changelog' | 'primaryKey'> {
  return {
    table: spec.table,
    options: spec.options,
    schema: spec.schema,
    ...(spec.metadata ? { metadata: spec.metadata } : {}),
    ...(spec.partitionKeys ? { partitionKeys: spec.partitionKeys } : {}),
    ...(spec.staticPartition ? { staticPartition: spec.staticPartition } : {}),
    ...(spec.overwrite ? { overwrite: true } : {}),
    changelog: spec.inputChangelog,
    primaryKey: spec.primaryKey,
  }
}
