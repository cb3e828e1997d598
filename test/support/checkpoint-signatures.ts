// Editing the operator signatures stored in a checkpoint directory's manifests, as an older Weir would
// have written them: the layout tests restore such a checkpoint and expect it refused.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { isWeirError } from '../../common/errors.js'
import type { JobMetrics } from '../../runtime/executor.js'

/** Every `_metadata` manifest under `dir`. */
export function manifestPaths(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return manifestPaths(p)
    return name === '_metadata' ? [p] : []
  })
}

/**
 * Runs `edit` on the signature of every operator of kind `kind` in every manifest under `dir` and
 * writes the manifests back; returns how many signatures it edited.
 */
export function rewriteSignatures(dir: string, kind: string, edit: (signature: Record<string, unknown>) => void): number {
  let changed = 0
  for (const m of manifestPaths(dir)) {
    const manifest = JSON.parse(readFileSync(m, 'utf8')) as { operators: Record<string, { kind: string; signature: Record<string, unknown> }> }
    for (const op of Object.values(manifest.operators)) {
      if (op.kind !== kind) continue
      edit(op.signature)
      changed++
    }
    writeFileSync(m, JSON.stringify(manifest, null, 1))
  }
  return changed
}

/**
 * A layout test's refusal: a checkpoint `run` takes (cancelled at its first) whose `kind` signatures
 * `edit` turns into what the build before the layout wrote is refused on restore, with a message
 * matching `refused` (naming the operator and what changed).
 */
export async function expectOlderLayoutRefused(checkpoints: string, run: (checkpoints: string, cancelAt?: number) => Promise<JobMetrics>, kind: string,
  edit: (signature: Record<string, unknown>) => void, refused: RegExp): Promise<void>
{
  const first = await run(checkpoints, 1)
  expect(first.cancelled, 'the job must still run at its first checkpoint').toBe(true)
  expect(manifestPaths(checkpoints).length).toBeGreaterThan(0)
  expect(rewriteSignatures(checkpoints, kind, edit)).toBeGreaterThan(0)
  const e = await run(checkpoints).catch((x: unknown) => x)
  expect(isWeirError(e), String(e)).toBe(true)
  expect((e as Error).message).toMatch(refused)
}
