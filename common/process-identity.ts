// Which process holds a lock, told apart from a later process that reuses its pid: a pid with the
// process's start time (Linux: /proc/<pid>/stat), and the pid space it belongs to, so that a pid
// seen from another host or container is never checked against this machine's processes.
import { readFileSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

/** A process as a lock file records it. */
export interface ProcessIdentity {
  readonly pid: number
  /** Its start time in clock ticks since boot (/proc/<pid>/stat field 22); absent where /proc is not. */
  readonly startTime?: string
  readonly host: string
  /** The boot and pid namespace the pid is valid in; absent where /proc is not. */
  readonly pidSpace?: string
}

/** Whether a recorded process still runs: 'elsewhere' when it is in another pid space (host, container). */
export type ProcessState = 'running' | 'gone' | 'elsewhere'

let self: ProcessIdentity | undefined

/** This process. */
export function thisProcess(): ProcessIdentity {
  self ??= { pid: process.pid, startTime: startTimeOf(process.pid), host: hostname(), pidSpace: pidSpace() }
  return self
}

/**
 * Whether `p` still runs. A pid that exists but started at another time is another process (the
 * pid was reused), so 'gone'; so is a zombie. Without /proc (not Linux) a live pid counts as running.
 *
 * @example processState({ pid: 4242, startTime: '102761', host: 'vm', pidSpace: '…' })  // 'gone' after a kill -9
 */
export function processState(p: ProcessIdentity): ProcessState {
  const here = thisProcess()
  const samePidSpace = p.pidSpace !== undefined && here.pidSpace !== undefined ? p.pidSpace === here.pidSpace : p.host === here.host
  if (!samePidSpace) return 'elsewhere'
  if (!Number.isSafeInteger(p.pid) || p.pid <= 0) return 'gone'
  try {
    process.kill(p.pid, 0)
  } catch (e) {
    // EPERM: it exists but belongs to another user.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return 'gone'
  }
  const stat = readStat(p.pid)
  if (stat === undefined) return here.startTime === undefined ? 'running' : 'gone'
  if (stat.state === 'Z' || stat.state === 'X') return 'gone'
  if (p.startTime !== undefined && stat.startTime !== p.startTime) return 'gone'
  return 'running'
}

/** `pid`'s start time (clock ticks since boot), or undefined where it cannot be read. */
export function startTimeOf(pid: number): string | undefined {
  return readStat(pid)?.startTime
}

function readStat(pid: number): { state: string; startTime: string } | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const state = fields[0]
  const startTime = fields[19]
  return state === undefined || startTime === undefined ? undefined : { state, startTime }
}

/** This boot's id and this process's pid namespace: equal for two processes whose pids mean the same. */
function pidSpace(): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return `${boot}/${readlinkSync('/proc/self/ns/pid')}`
  } catch {
    return undefined
  }
}
