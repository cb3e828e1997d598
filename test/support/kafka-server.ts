// A real Apache Kafka broker for tests: one per call, run by scripts/kafka-server.sh on 127.0.0.1 in a
// fresh temporary folder, installed into .weir-tools/kafka on first use. It can be stopped and
// started again on the same folder (same address, same data), as a broker outage would be.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Kafka, logLevel } from 'kafkajs'

export interface KafkaBroker {
  /** e.g. '127.0.0.1:40323': 'properties.bootstrap.servers', or kafkajs' `brokers: [bootstrap]`. */
  readonly bootstrap: string
  /** The broker's folder: its data, settings (server.properties) and log (server.log). */
  readonly dir: string
  /** A kafkajs client of the broker (quiet: a test asserts on what it gets, not on client logs). */
  client(clientId?: string): Kafka
  /** Stops the broker and waits for it to exit; its data stays for start(). */
  stop(): Promise<void>
  /** Starts the stopped broker again on the same folder, at the same address. */
  start(): Promise<void>
  /** Stops the broker and removes its folder. */
  close(): Promise<void>
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const SCRIPT = join(ROOT, 'scripts', 'kafka-server.sh')
/** Covers a first-time install (Maven fetches ~45 MB of jars: a minute or two) plus a start on a
 *  busy machine (10–20 s with two cores shared; the script itself gives up after 180 s). */
const START_TIMEOUT_MS = 420_000
/** The broker's clean shutdown takes a few seconds; the script kills it after 60 s. */
const STOP_TIMEOUT_MS = 120_000

/**
 * Starts a broker in a new temporary folder and resolves once it answers.
 * Give the calling hook a long timeout (e.g. `beforeAll(…, 450_000)`): the first call may install Kafka.
 *
 * @example
 * const broker = await startKafkaBroker()
 * try { … broker.client().producer() … } finally { await broker.close() }
 */
export async function startKafkaBroker(): Promise<KafkaBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-kafka-'))
  // A test process that ends without calling close() must not leave a broker behind (the script
  // starts it in its own session, so nothing else would stop it).
  const killOnExit = (): void => {
    killBroker(dir)
    rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', killOnExit)
  let bootstrap: string
  try {
    bootstrap = await run('start', dir, START_TIMEOUT_MS)
  } catch (e) {
    killBroker(dir)
    process.removeListener('exit', killOnExit)
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  const client = (clientId = 'weir-test'): Kafka => new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING })
  try {
    if (!/^127\.0\.0\.1:\d+$/.test(bootstrap)) throw new Error(`${SCRIPT} start printed '${bootstrap}', not a bootstrap address`)
    await warmUp(client('weir-test-warm-up'))
  } catch (e) {
    await run('stop', dir, STOP_TIMEOUT_MS).catch(() => {})
    killBroker(dir)
    process.removeListener('exit', killOnExit)
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
  return {
    bootstrap,
    dir,
    client,
    stop: async () => {
      await run('stop', dir, STOP_TIMEOUT_MS)
    },
    start: async () => {
      const again = await run('start', dir, START_TIMEOUT_MS)
      if (again !== bootstrap) throw new Error(`the broker came back at ${again}, not at ${bootstrap}`)
      await warmUp(client('weir-test-warm-up'))
    },
    close: async () => {
      try {
        await run('stop', dir, STOP_TIMEOUT_MS)
      } finally {
        killBroker(dir)
        process.removeListener('exit', killOnExit)
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/**
 * Waits until the broker's group and transaction coordinators serve requests. A fresh broker creates
 * its internal topics on first use, and a restarted one loads them after it has started; until then
 * kafkajs gets retriable errors that some of its calls do not retry (a transaction's sendOffsets
 * fails with NOT_COORDINATOR on a fresh broker, admin.fetchOffsets with COORDINATOR_LOAD_IN_PROGRESS
 * after a restart). The script sets one partition per internal topic, so one group and one
 * transactional id cover every group and transactional id.
 */
async function warmUp(kafka: Kafka): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    await retrying(() => admin.describeGroups(['weir-test-warm-up'])) // throws while the coordinator is not ready
  } finally {
    await admin.disconnect()
  }
  const producer = kafka.producer({ transactionalId: 'weir-test-warm-up', idempotent: true, maxInFlightRequests: 1 })
  await retrying(() => producer.connect()) // initialises a producer id: the transaction coordinator answers
  await producer.disconnect()
}

/** Retries what fails with an error Kafka calls retriable (a coordinator that is loading or has not
 *  been created yet, a leader moving) for up to 90 s, where kafkajs does not retry it itself. */
async function retrying<T>(what: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 90_000
  for (;;) {
    try {
      return await what()
    } catch (e) {
      if ((e as { retriable?: boolean }).retriable !== true || Date.now() > deadline) throw e
      await new Promise(r => setTimeout(r, 200))
    }
  }
}

/** Runs `kafka-server.sh COMMAND DIR` and resolves with the last line it printed on stdout. */
function run(command: 'start' | 'stop', dir: string, timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, command, dir], { cwd: ROOT, timeout, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error !== null) {
        const why = error.killed ? `did not finish within ${timeout / 1000}s` : `failed (${error.code ?? error.signal})`
        reject(new Error(`${SCRIPT} ${command} ${dir} ${why}; its output:\n${stderr.slice(-4000)}${logTail(dir)}`))
        return
      }
      resolve(stdout.trim().split('\n').at(-1) ?? '')
    })
  })
}

function logTail(dir: string): string {
  try {
    return `\nthe broker's log (end):\n${readFileSync(join(dir, 'server.log'), 'utf8').slice(-4000)}`
  } catch {
    return ''
  }
}

/** SIGKILLs the broker of `dir`, if its pid file names a live process: a last resort when stop() was
 *  not called or failed. Synchronous, so that it can run in an 'exit' handler. */
function killBroker(dir: string): void {
  let pid: number
  try {
    pid = Number(readFileSync(join(dir, 'broker.pid'), 'utf8').trim())
  } catch {
    return
  }
  if (!Number.isInteger(pid) || pid <= 0) return
  try {
    // Only a process whose command line names this folder's settings is ours (a pid can be reused).
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join(dir, 'server.properties'))) return
    process.kill(pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}
