// Before a job restores a checkpoint, or starts from scratch, on its own: output that its
// transactional sinks committed after that point is visible already, and the job would replay its
// input from there and write those rows a second time. The sinks keep the record of what each
// commit made visible apart from the checkpoints (the filesystem sink: a commit log beside its
// files), so this holds when the newer checkpoint is damaged or gone. Exact de-duplication of
// regenerated rows is impossible in general (a query may not give the same rows twice), so a
// fall back past committed output is refused, and a start the user asked for is warned about.
import { WeirError } from '../common/errors.js'
import { checkpointList, type CommittedOutput } from '../connectors/api.js'
import { getConnector } from '../connectors/registry.js'
import type { CheckpointRef, SkippedCheckpoint } from '../runtime/checkpoint.js'
import type { JobGraph } from '../core/job-graph.js'

interface Found {
  readonly table: string
  readonly output: CommittedOutput
}

/** What the job's sinks committed after `restore` (after nothing: everything they committed). */
async function committedAfter(graph: JobGraph, restore: CheckpointRef | undefined): Promise<Found[]> {
  const found: Found[] = []
  for (const node of graph.nodes) {
    const spec = node.spec
    if (spec.kind !== 'Sink') continue
    const sink = getConnector(spec.connector).sink
    if (sink?.committedAfter === undefined) continue
    const output = await sink.committedAfter({
      table: spec.table,
      options: spec.options,
      jobName: graph.name,
      operatorId: node.id,
      restoredCommit: restore?.manifest.sinks[node.id],
      ...(spec.partitionKeys ? { partitionKeys: spec.partitionKeys } : {}),
    }, restore?.manifest.id ?? 0)
    if (output !== undefined) found.push({ table: spec.table, output })
  }
  return found
}

/**
 * Recovery chose `restore` (undefined: no checkpoint, start from scratch) after passing over
 * `skipped`. Throws when output committed after it is visible: a checkpoint after it was damaged,
 * deleted or never found. A start from scratch with nothing skipped (no checkpoint was ever found)
 * only warns: the job's checkpoints were removed, or it runs in another checkpoint folder.
 */
export async function checkRecoveryTarget(graph: JobGraph, restore: CheckpointRef | undefined, skipped: readonly SkippedCheckpoint[],
  log: (line: string) => void): Promise<void>
{
  const found = await committedAfter(graph, restore)
  if (found.length === 0) return
  if (restore === undefined && skipped.length === 0) {
    for (const f of found) {
      log(
        `warning: starting from scratch, but table '${f.table}' holds ${f.output.description} that an earlier run of this job committed; they will be written again`,
      )
    }
    return
  }
  const target = restore === undefined ? 'start from scratch' : `resume from ${restore.manifest.kind} ${restore.manifest.id}`
  const after = restore === undefined ? '' : ` after ${restore.manifest.kind} ${restore.manifest.id}`
  const first = found[0]!
  const others = found.length > 1 ? ` (and ${found.length - 1} more sink table${found.length > 2 ? 's' : ''})` : ''
  const notes = skipped.length > 0
    ? skipped.map(s => `${s.kind} ${s.id} cannot be restored: ${s.reason}`)
    : [`no checkpoint${after} was found; it was deleted, or is in another 'state.checkpoints.dir'`]
  throw WeirError.checkpoint(
    `job '${graph.name}' cannot ${target}: table '${first.table}' already holds ${first.output.description} committed by ${
      checkpoints(first.output)
    }${after}${others}, ` +
      `and a run from there would write them a second time`,
    {
      notes,
      help: `restore the damaged or missing checkpoint files and run again; or ${first.output.remedy} and run again; ` +
        `or, accepting duplicated rows, run with ${restore === undefined ? '--fresh' : `--from-${restore.manifest.kind} '${restore.location}'`}`,
    },
  )
}

/** A start the user chose (--from-checkpoint, --from-savepoint, --fresh): says what it writes twice. */
export async function warnCommittedAfter(graph: JobGraph, restore: CheckpointRef | undefined, log: (line: string) => void): Promise<void> {
  for (const f of await committedAfter(graph, restore)) {
    const from = restore === undefined ? 'scratch' : `${restore.manifest.kind} ${restore.manifest.id}`
    const when = restore === undefined ? `this job committed before (by ${checkpoints(f.output)})` : `committed after it (by ${checkpoints(f.output)})`
    log(`warning: starting from ${from}, but table '${f.table}' already holds ${f.output.description} ${when}; they will be written a second time`)
  }
}

function checkpoints(output: CommittedOutput): string {
  return checkpointList(output.checkpoints)
}
