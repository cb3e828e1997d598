// A source's positions in a checkpoint when it runs as several subtasks: stored per split (each
// subtask's splits after those of the subtasks before it), not per subtask, so a run at another
// parallelism gives every reader all of them and each resumes the splits it owns now. What a subtask
// restores besides (each split's event-time maximum, its watermark) is its own only when the
// subtasks are the same as when the checkpoint was taken.
import type { SplitPosition } from '../connectors/api.js'
import type { SourceManifest, SourceSubtaskManifest } from './checkpoint.js'

/** What one source subtask had read when a barrier passed. */
export interface SubtaskPositions {
  readonly positions: readonly (SplitPosition | null)[]
  readonly splitMax: readonly number[]
  readonly watermark: number
}

/** What one source subtask had read when a barrier passed, and which it is (it may run on another thread). */
export interface SourcePart {
  readonly node: string
  readonly table: string
  readonly index: number
  readonly positions: SubtaskPositions
}

/** The manifest's sources from the parts of every source subtask (of every thread). */
export function sourcesManifest(parts: readonly SourcePart[]): Record<string, SourceManifest> {
  const byNode = new Map<string, SourcePart[]>()
  for (const part of parts) {
    const list = byNode.get(part.node)
    if (list === undefined) byNode.set(part.node, [part])
    else list.push(part)
  }
  const sources: Record<string, SourceManifest> = {}
  for (const [id, subtasks] of byNode) {
    subtasks.sort((a, b) => a.index - b.index)
    sources[id] = sourceManifest(subtasks[0]!.table, subtasks.map(s => s.positions))
  }
  return sources
}

/** Where a source subtask starts from a checkpoint. */
export interface SubtaskStart {
  /** Every split's position, of all subtasks of the checkpointed run (SourceContext.restoredPositions). */
  readonly restoredPositions: readonly (SplitPosition | null)[]
  /** This subtask's own splits as the checkpoint recorded them, in order; null when the subtasks changed since. */
  readonly own: { readonly positions: readonly (SplitPosition | null)[]; readonly splitMax: readonly (number | null)[] } | null
  /**
   * The watermark it resumes: its own when the subtasks are unchanged; otherwise the lowest of all,
   * since splits held back by another subtask may now be its own (a higher one would make their rows late).
   */
  readonly watermark: number
}

/** The manifest entry of a source from its subtasks' positions, in subtask order. */
export function sourceManifest(table: string, subtasks: readonly SubtaskPositions[]): SourceManifest {
  return {
    table,
    positions: subtasks.flatMap(s => s.positions),
    splitMax: subtasks.flatMap(s => s.splitMax),
    watermark: Math.min(...subtasks.map(s => s.watermark)),
    subtasks: subtasks.map(s => ({ splits: s.positions.length, watermark: s.watermark })),
  }
}

/** Where subtask `index` of `parallelism` resumes from `old` (a checkpoint's entry for its source). */
export function subtaskStart(old: SourceManifest, index: number, parallelism: number): SubtaskStart {
  const layout: readonly SourceSubtaskManifest[] = old.subtasks ?? [{ splits: old.positions.length, watermark: old.watermark }]
  const lowest = old.watermark ?? -Infinity
  if (layout.length !== parallelism) return { restoredPositions: old.positions, own: null, watermark: lowest }
  const from = layout.slice(0, index).reduce((n, s) => n + s.splits, 0)
  const to = from + layout[index]!.splits
  return {
    restoredPositions: old.positions,
    own: { positions: old.positions.slice(from, to), splitMax: old.splitMax.slice(from, to) },
    watermark: layout[index]!.watermark ?? -Infinity,
  }
}

/** Subtask `index`'s own positions in a manifest this run wrote (what its reader reports as committed). */
export function ownPositions(manifest: SourceManifest, index: number): readonly (SplitPosition | null)[] {
  const layout = manifest.subtasks
  if (layout === undefined) return manifest.positions
  const from = layout.slice(0, index).reduce((n, s) => n + s.splits, 0)
  return manifest.positions.slice(from, from + (layout[index]?.splits ?? 0))
}
