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

/**
 * Whether a child as that user can run `weir` from this checkout at all: as root, the checkout may
 * lie in a folder only root may enter (a CI clone under /root), and then those tests cannot run.
 */
export function canRunUnprivileged(bin: string): boolean {
  if (!isRoot) return true
  const r = spawnSync(process.execPath, [bin, '--version'], { stdio: 'ignore', timeout: 30_000, cwd: tmpdir(), ...unprivileged() })
  return r.status === 0
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
