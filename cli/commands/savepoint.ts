// `weir savepoint FILE.sql`: asks the `weir run FILE.sql` running in this directory to take a
// savepoint and stop, and waits until it has.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { renderError, WeirError } from '../../common/errors.js'
import type { CliArgs } from '../main.js'
import { RUN_DIR } from './paths.js'

/** Sends SIGTERM to the `weir run` of these jobs and waits until it has taken its savepoint and stopped. */
export async function savepoint(args: CliArgs): Promise<number> {
  const { jobNamePrefix } = args
  const runFile = join(RUN_DIR, `${jobNamePrefix}.pid`)
  let pid: number
  try {
    pid = Number(readFileSync(runFile, 'utf8'))
  } catch {
    process.stderr.write(renderError(WeirError.execution(`no running job of '${jobNamePrefix}.sql' in this directory`, {
      help: `start it with 'weir run ${jobNamePrefix}.sql' from this directory first`,
    })) + '\n')
    return 1
  }
  try {
    process.kill(pid, 'SIGTERM')
  } catch {
    rmSync(runFile, { force: true })
    process.stderr.write(renderError(WeirError.execution(`the job of '${jobNamePrefix}.sql' (pid ${pid}) is not running any more`)) + '\n')
    return 1
  }
  process.stderr.write(`asked pid ${pid} for a savepoint; waiting for it to stop…\n`)
  while (isAlive(pid)) await new Promise(r => setTimeout(r, 100))
  process.stderr.write(`stopped; 'weir run ${jobNamePrefix}.sql' resumes from the savepoint\n`)
  return 0
}

/** Whether a process runs (an exited one its parent has not reaped yet does not). */
function isAlive(pid: number): boolean {
  try { process.kill(pid, 0) } catch { return false }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}
