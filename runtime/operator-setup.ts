// Opening an operator subtask, on whichever thread runs it: its keyed-state backend (filled from the
// checkpoint being restored, by key-group range), its timers (restored too, with the watermark they
// were taken at) and its operator, wired to emit into the subtask's channels.
import { STAT } from './shared-metrics.js'
import { invariant } from '../common/assert.js'
import { WeirError } from '../common/errors.js'
import type { JobGraph } from '../core/job-graph.js'
import type { Batch, Row } from '../core/batch.js'
import type { KeyRef } from '../core/keyed-state.js'
import type { OperatorContext } from '../core/operator.js'
import type { SubtaskStateBackend } from '../state/backend.js'
import { stateBackendFor } from '../state/backends.js'
import type { StateHandle } from '../state/handles.js'
import { makeKey } from '../state/key-encoding.js'
import { createOperator, operatorTraits } from '../operators/catalog.js'
import { loadUserFunctionsOf } from '../udf/load.js'
import { getObject } from '../checkpoint/objects.js'
import type { CheckpointRef, OperatorManifest, SubtaskData } from './checkpoint.js'
import { emit, type Task } from './subtasks.js'
import { TimerServiceImpl } from './timers.js'
import { BatchKeys, keysByColumns } from './batch-keys.js'

/** What opening an operator subtask needs of its job. */
export interface OperatorSetup {
  readonly graph: JobGraph
  readonly restore: CheckpointRef | undefined
  /** The job's folder in 'state.dir', where disk backends keep working state. */
  readonly stateDir: string
  /** Where backends stage files (SubtaskStateOptions.tmpDir). */
  readonly tmpDir: () => Promise<string>
}

/** Opens `task`'s state backend, timers and operator; its state is closed with the job whatever fails after. */
export async function openOperator(task: Task, setup: OperatorSetup): Promise<void> {
  const node = task.node
  const maxParallelism = setup.graph.config.maxParallelism
  const groupKeys = operatorTraits(node.spec, setup.graph.config).groupKeys ?? []
  const keyFns = node.inputs.map(edge => keysByColumns(edge.exchange.kind === 'hash' ? edge.exchange.keys : groupKeys, maxParallelism))
  const batchKeys = new BatchKeys(keyFns)
  task.batchKeys = batchKeys
  const old = setup.restore?.manifest.operators[node.id]
  const state = await createStateBackend(task, old, setup)
  // Closed and deleted with the job, whatever fails from here on.
  task.state = state
  const domains = [...(task.eventTimers ? ['event' as const] : []), ...(task.processingTimers ? ['processing' as const] : [])]
  const timers = new TimerServiceImpl(() => state.getCurrentKey() ?? NO_KEY, { maxParallelism, domains, operatorId: node.id })
  // Expressions compile when the operator is built: the user functions they call are loaded first.
  await loadUserFunctionsOf(node.spec)
  const operator = createOperator(node.spec)
  const ctx: OperatorContext = {
    operatorId: node.id,
    state,
    timers,
    metrics: task.metrics,
    config: setup.graph.config,
    output: { emit: (batch: Batch) => emit(task, batch) },
    keysOf: (rows: readonly Row[], input = 0) => batchKeys.of(rows, input),
  }
  task.operator = operator
  task.ctx = ctx
  task.timers = timers
  await operator.open(ctx)
  if (old !== undefined) await restoreTimers(task, old, setup.restore!)
}

/** The keyed-state backend for one subtask, per 'state.backend', filled from the checkpoint being restored. */
async function createStateBackend(task: Task, old: OperatorManifest | undefined, setup: OperatorSetup): Promise<SubtaskStateBackend<StateHandle>> {
  const settings = setup.graph.config.state
  const factory = await stateBackendFor(settings.backend, task.stateful)
  const overlapping = old?.subtasks.filter(s => s.keyGroups.start <= task.range.end && s.keyGroups.end >= task.range.start) ?? []
  for (const s of overlapping) {
    if (s.state.backend !== factory.name) {
      throw WeirError.checkpoint(`checkpoint '${setup.restore!.location}' holds ${s.state.backend} state, but 'state.backend' is now '${settings.backend}'`, {
        help: `set 'state.backend' = '${s.state.backend}' to restore it (a savepoint taken on either backend restores onto the same backend)`,
      })
    }
  }
  const restore = overlapping.length > 0 ? { handles: overlapping.map(s => s.state), storage: setup.restore!.base } : undefined
  return factory.create({
    jobName: setup.graph.name,
    operatorId: task.node.id,
    subtask: task.index,
    parallelism: task.parallelism,
    maxParallelism: setup.graph.config.maxParallelism,
    keyGroupRange: task.range,
    jobDir: setup.stateDir,
    cacheBytes: settings.cacheBytes,
    writeBufferBytes: settings.writeBufferBytes,
    tmpDir: setup.tmpDir,
  }, restore)
}

async function restoreTimers(task: Task, old: OperatorManifest, restore: CheckpointRef): Promise<void> {
  let watermark = Infinity
  let any = false
  for (const s of old.subtasks) {
    if (s.keyGroups.start > task.range.end || s.keyGroups.end < task.range.start) continue
    const data = await getObject<SubtaskData>(restore.base, s.data)
    task.timers!.restore(data.timers, task.range)
    watermark = Math.min(watermark, s.watermark ?? -Infinity)
    any = true
  }
  if (!any || watermark === -Infinity) return
  // The watermark comes back with the state: rows that were late before the checkpoint stay late.
  // Every timer at or before it had fired before the snapshot, so none fires here.
  task.watermark = watermark
  task.stats[STAT.watermark] = watermark
  task.chWatermark.fill(watermark)
  task.timers!.advanceWatermark(watermark, () => invariant(false, 'a restored timer was already due'))
}

const NO_KEY: KeyRef = makeKey([])
