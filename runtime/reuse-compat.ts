// Restoring across a change in sub-plan reuse (planner/physical/reuse.ts). A merged operator's twin
// had its own state and its own source positions, taken at different points of the same input: no
// mapping of one plan's state onto the other's is exact, so such a checkpoint is refused by name.
import { WeirError } from '../common/errors.js'
import type { JobGraph } from '../core/job-graph.js'
import type { Manifest } from './checkpoint.js'

/**
 * Throws when the checkpoint's job merged other operators than `graph` does (one taken before reuse,
 * or with 'table.optimizer.reuse-sub-plan-enabled' set otherwise).
 */
export function checkReuseCompatible(manifest: Manifest, graph: JobGraph, where: string): void {
  const then = manifest.reused ?? {}
  const now = graph.reused ?? {}
  const differ = Object.keys(then).length !== Object.keys(now).length || Object.entries(now).some(([id, into]) => then[id] !== into)
  if (!differ) return
  const list = (m: Readonly<Record<string, string>>): string =>
    Object.keys(m).length === 0 ? 'none' : Object.entries(m).map(([id, into]) => `${id} into ${into}`).join(', ')
  const merges = Object.keys(now).length > 0
  throw WeirError.checkpoint(
    `the job no longer matches checkpoint '${where}': the query computes the same subquery more than once, and sub-plan reuse ` +
      `merged other operators when the checkpoint was taken (then: ${list(then)}; now: ${list(now)})`,
    {
      help: merges
        ? "restore it with SET 'table.optimizer.reuse-sub-plan-enabled' = 'false' (the plan the checkpoint was taken with), or start over with --fresh"
        : "restore it with 'table.optimizer.reuse-sub-plan-enabled' and 'table.optimizer.reuse-source-enabled' as they were when it was taken (both default to true), or start over with --fresh",
    },
  )
}
