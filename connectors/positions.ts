// Restored split positions of sources that have one split (datagen, nexmark).
import { WeirError } from '../common/errors.js'
import type { SplitPosition } from './api.js'

/**
 * The position a checkpoint holds for a source with one split, or null (a fresh start, or the split
 * had produced nothing yet). `parse` returns the position if an object has the connector's shape
 * (described by `shape` in the error), else null.
 */
export function singleSplitPosition<P>(
  restored: readonly (SplitPosition | null)[] | undefined,
  table: string,
  connector: string,
  shape: string,
  parse: (p: object) => P | null,
): P | null {
  if (restored === undefined) return null
  if (restored.length !== 1) {
    throw WeirError.checkpoint(`the checkpoint holds ${restored.length} split positions for table '${table}', but a ${connector} source has 1 split`, {
      help: `was the checkpoint taken with another connector for '${table}'?`,
    })
  }
  const p = restored[0] ?? null
  if (p === null) return null
  const position = typeof p === 'object' ? parse(p) : null
  if (position === null) {
    throw WeirError.checkpoint(`the checkpoint holds an invalid position for table '${table}': ${JSON.stringify(p)}`, {
      help: `a ${connector} source's position is ${shape}; was the checkpoint taken with another connector for '${table}'?`,
    })
  }
  return position
}
