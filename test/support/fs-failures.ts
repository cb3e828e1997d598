// Real file-system failures for tests, also when the tests run as root: root ignores permission
// bits, so a child that must meet EACCES runs as an unprivileged user; a full (ENOSPC) or read-only
// (EROFS) disk is a small tmpfs, where mounting works (root).
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process'
import { chmodSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const NOBODY = 65534

/** Whether this process ignores permission bits (and so a chmod alone does not make a file unreadable to it). */
export const isRoot = process.getuid?.() === 0

/**
 * Spawn options for a child that permission bits apply to: as root, the user 'nobody'; otherwise
 * this user, to whom chmod applies already.
 */
export function unprivileged(): Pick<SpawnSyncOptions, 'uid' | 'gid'> {
  return isRoot ? { uid: NOBODY, gid: NOBODY } : {}
}

/** A fresh temporary folder that the unprivileged child may use (mkdtemp makes it 0700). */
export function sharedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o777)
  return dir
}

/** Mounts a tmpfs of `kb` KB at `dir` (read-only with `readOnly`); false where mounting is not allowed. */
export function mountTmpfs(dir: string, kb: number, readOnly = false): boolean {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k,mode=0777${readOnly ? ',ro' : ''}`, 'tmpfs', dir], { stdio: 'ignore' })
  return r.status === 0
}

export function unmount(dir: string): void {
  execFileSync('umount', [dir], { stdio: 'ignore' })
}
