// Editing the operator signatures stored in a checkpoint directory's manifests, as an older Weir would
// have written them: the layout tests restore such a checkpoint and expect it refused.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

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
