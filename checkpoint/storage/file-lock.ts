// A lock in a local (or mounted) directory: a folder of claim files, one per process that wants
// the lock, each written whole (temporary file, then rename) and naming its process.
//
// Taking it: list the claims; a live one that won refuses. Otherwise write ours, then list again:
// with no other live claim there, we hold it, mark our claim won (refusals name only won claims)
// and delete the stale ones. If another live claim appeared,
// both sides may have written theirs at the same moment: ours goes, and we retry after a random
// pause. Safety: two takers that both hold would each have listed before the other's claim
// existed, i.e. each listed before it wrote its own, which cannot be. A kill -9 leaves a claim
// whose pid is gone (or belongs to a newer process): stale, and taken over by the next taker.
// Claims of other hosts (a shared mount) cannot be checked by pid: the holder touches its claim
// every few seconds, and one untouched for a lease's length is stale.
import { randomBytes } from 'node:crypto'
import { unlinkSync } from 'node:fs'
import { mkdir, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { fsReason } from '../../common/fs-errors.js'
import { claimIsLive, DEFAULT_LEASE, LockLoss, parseClaim, type HeldLock, type LeaseTiming, type LockAttempt, type LockClaim, type TakenOver } from './lock.js'

/** A claim file as found in a lock folder. */
export interface StoredClaim {
  readonly file: string
  /** Undefined when the file cannot be parsed as a claim. */
  readonly claim: LockClaim | undefined
  /** When its holder last touched it (ms since the epoch). */
  readonly renewedAt: number
  /**
   * False while its taker is still checking for rivals (it may withdraw it); true once it won.
   * Claims written before this distinction carry no flag and count as won.
   */
  readonly held: boolean
}

export interface FileLockOptions {
  /** The help line of an error about the folder (what must be writable, and why). */
  readonly help: string
  readonly timing?: LeaseTiming
}

const CLAIM = /^claim-[A-Za-z0-9-]+\.json$/
const ATTEMPTS = 6

/** The claim file of an owner in a lock folder. */
export function claimFile(dir: string, ownerId: string): string {
  return join(dir, `claim-${ownerId}.json`)
}

/**
 * Takes the lock kept in folder `dir` (created if missing) for `claim`, or says which live claim holds it.
 *
 * @example
 * const attempt = await takeFileLock('/data/checkpoints/clicks-1/_lock', claim, { help: '…' })
 * if (attempt.kind === 'held') try { … } finally { await attempt.lock.release() }
 */
export async function takeFileLock(dir: string, claim: LockClaim, options: FileLockOptions): Promise<LockAttempt> {
  const timing = options.timing ?? DEFAULT_LEASE
  const mine = claimFile(dir, claim.ownerId)
  await fsCall('create the lock folder', dir, options.help, () => mkdir(dir, { recursive: true }))
  for (let attempt = 1;; attempt++) {
    const before = await judged(dir, options.help, timing)
    // Only a claim that won names a holder: a contender's claim may be withdrawn a moment later.
    const holder = before.find(c => c.live && c.held)
    if (holder !== undefined) return refusal(holder)
    await writeClaim(mine, claim, false, options.help)
    const now = await judged(dir, options.help, timing)
    const rival = now.find(c => c.live && c.file !== mine)
    if (rival === undefined) {
      await writeClaim(mine, claim, true, options.help)
      const tookOver: TakenOver[] = []
      for (const stale of before.filter(c => !c.live)) {
        await fsCall('delete the stale lock file', stale.file, options.help, () => rm(stale.file, { force: true }))
        tookOver.push({ holder: stale.claim, where: stale.file, why: stale.why })
      }
      return { kind: 'held', lock: new FileLock(mine, tookOver, timing) }
    }
    await rm(mine, { force: true })
    if (attempt === ATTEMPTS) return refusal(now.find(c => c.live && c.held) ?? rival)
    // Both wrote a claim at once and both stepped back: try again at different moments.
    await new Promise(r => setTimeout(r, 20 + Math.random() * 180))
  }
}

/** The claims in a lock folder ([] when it does not exist). */
export async function readFileClaims(dir: string, help: string): Promise<StoredClaim[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw lockFsError(e, 'list the lock folder', dir, help)
  }
  const found: StoredClaim[] = []
  for (const name of names.filter(n => CLAIM.test(n)).sort()) {
    const file = join(dir, name)
    try {
      const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)])
      found.push({ file, ...parseStored(text), renewedAt: info.mtimeMs })
    } catch (e) {
      // Released while we looked: not a claim any more.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw lockFsError(e, 'read the lock file', file, help)
    }
  }
  return found
}

/** A claim file's claim, and whether its taker marked it won (no flag: written before there was one). */
function parseStored(text: string): Pick<StoredClaim, 'claim' | 'held'> {
  const parsed = parseClaim(text) as (LockClaim & { held?: unknown }) | undefined
  if (parsed === undefined) return { claim: undefined, held: true }
  const { held, ...claim } = parsed
  return { claim, held: held !== false }
}

type Judged = StoredClaim & { readonly live: boolean; readonly why: string }

async function judged(dir: string, help: string, timing: LeaseTiming): Promise<Judged[]> {
  return (await readFileClaims(dir, help)).map(c => {
    if (c.claim === undefined) return { ...c, live: false, why: 'it cannot be read as a lock file' }
    return { ...c, ...claimIsLive(c.claim, c.renewedAt, timing) }
  })
}

function refusal(c: Judged): LockAttempt {
  return { kind: 'refused', holder: c.claim!, where: c.file, detail: c.why.startsWith('its process is running') ? undefined : c.why }
}

/**
 * Writes the claim under a temporary name and renames it into place (over the taker's earlier
 * version when it marks the claim won), so no reader sees half of one.
 */
async function writeClaim(file: string, claim: LockClaim, held: boolean, help: string): Promise<void> {
  // '.weir-tmp' names are skipped by checkpoint storage listings. No fsync: after a power cut no
  // holder is left anyway, and a lost claim is a free lock.
  const tmp = `${file}.${randomBytes(6).toString('hex')}.weir-tmp`
  try {
    await writeFile(tmp, JSON.stringify({ ...claim, held }, null, 1) + '\n', { flag: 'wx' })
    await rename(tmp, file)
  } catch (e) {
    await rm(tmp, { force: true })
    throw lockFsError(e, 'write the lock file', file, help)
  }
}

/** Held claims, removed synchronously if the process exits without releasing them (process.exit). */
const heldFiles = new Set<string>()
let exitHookInstalled = false

function removeHeldOnExit(): void {
  for (const file of heldFiles) {
    try {
      unlinkSync(file)
    } catch { /* gone already */ }
  }
}

class FileLock implements HeldLock {
  private readonly loss = new LockLoss()
  private readonly timer: NodeJS.Timeout
  private released = false
  readonly notes: readonly string[] = []

  constructor(readonly where: string, readonly tookOver: readonly TakenOver[], timing: LeaseTiming) {
    heldFiles.add(where)
    if (!exitHookInstalled) {
      exitHookInstalled = true
      process.on('exit', removeHeldOnExit)
    }
    // Touching the claim is what keeps it live for processes on other hosts sharing the folder.
    this.timer = setInterval(() => {
      void this.touch()
    }, timing.renewMs)
    this.timer.unref()
  }

  get lost(): AbortSignal {
    return this.loss.signal
  }

  lostReason(): WeirError | undefined {
    return this.loss.error
  }

  private async touch(): Promise<void> {
    if (this.released || this.loss.error !== undefined) return
    const now = new Date()
    try {
      await utimes(this.where, now, now)
    } catch (e) {
      if (this.released || (e as NodeJS.ErrnoException).code !== 'ENOENT') return
      this.loss.lose(`the lock file '${this.where}' was deleted while the lock was held`,
        'another process removed it (or judged it stale); this run stops, so that two runs never write the same checkpoints and output')
    }
  }

  async release(): Promise<void> {
    if (this.released) return
    this.released = true
    clearInterval(this.timer)
    heldFiles.delete(this.where)
    await unlink(this.where).catch(() => undefined)
  }
}

async function fsCall<T>(what: string, path: string, help: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (e) {
    throw lockFsError(e, what, path, help)
  }
}

/** A file-system failure on a lock, naming the path and what it means. */
export function lockFsError(e: unknown, what: string, path: string, help: string): WeirError {
  return WeirError.execution(`cannot ${what} '${path}': ${fsReason(e)}`, { help, cause: e })
}
