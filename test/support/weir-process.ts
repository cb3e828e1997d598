// `weir` as a user runs it, in a child process: started in a directory, its output collected, and
// helpers to wait for what it prints and for its exit.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

export const WEIR_BIN = join(process.cwd(), 'bin/weir.js')

export interface WeirProcess {
  readonly child: ChildProcess
  out(): string
  err(): string
  /** Resolves when `test` holds for what it printed so far. */
  until(test: (out: string, err: string) => boolean): Promise<void>
  /** The exit code (null when a signal ended it). */
  exited(): Promise<number | null>
}

const started = new Set<ChildProcess>()

/** Kills what a test started and left running (it failed before stopping it), so nothing outlives the test. */
export function killStarted(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  started.clear()
}

/** A fresh directory holding `job.sql` with this SQL. */
export function jobDir(sql: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-cli-'))
  writeFileSync(join(dir, 'job.sql'), sql)
  return dir
}

/** `weir` with a fault hook that kills it at a checkpoint's worst points (weir-with-faults.ts, built to dist/). */
export const WEIR_WITH_FAULTS_BIN = join(process.cwd(), 'dist/test/support/weir-with-faults.js')

/** Starts `weir ARGS…` in `cwd`. */
export function startWeir(cwd: string, ...args: string[]): WeirProcess {
  return startScript(WEIR_BIN, cwd, args)
}

/** Starts `weir ARGS…` in `cwd` killing itself (SIGKILL) the n-th time a checkpoint reaches a point: `crashAt` is '<point>:<n>'. */
export function startWeirWithFaults(cwd: string, crashAt: string, ...args: string[]): WeirProcess {
  return startScript(WEIR_WITH_FAULTS_BIN, cwd, ['--crash-at', crashAt, ...args])
}

function startScript(script: string, cwd: string, args: readonly string[]): WeirProcess {
  const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  started.add(child)
  let stdout = '', stderr = ''
  const waiting = new Set<() => void>()
  const wake = (): void => {
    for (const w of [...waiting]) w()
  }
  child.stdout!.on('data', d => {
    stdout += d
    wake()
  })
  child.stderr!.on('data', d => {
    stderr += d
    wake()
  })
  let closed = false
  // 'close', not 'exit': by then everything the process printed has been read.
  const exit = new Promise<number | null>(resolve =>
    child.on('close', code => {
      closed = true
      wake()
      resolve(code)
    })
  )
  return {
    child,
    out: () => stdout,
    err: () => stderr,
    until: test =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (test(stdout, stderr)) {
            waiting.delete(check)
            resolve()
          } else if (closed) {
            waiting.delete(check)
            reject(new Error(`weir exited before it printed what the test waits for:\n${stdout}\n${stderr}`))
          }
        }
        waiting.add(check)
        check()
      }),
    exited: () => exit,
  }
}
