// A worker thread of a job (threads.ts): runs subtask `worker` (≥ 1) of each parallel operator — its state
// backend, timers and operator, opened here (restored from the checkpoint being restored) — on the
// items the other threads send it and on what its source subtasks read (worker-sources.ts), sends what they produce on, takes their snapshots when barriers
// align and uploads them itself, telling the job's thread what to list in the manifest.
import { rm } from 'node:fs/promises'
import { parentPort, workerData, type MessagePort } from 'node:worker_threads'
import { safeFileName } from '../common/names.js'
import { loadConnectors } from '../connectors/catalog.js'
import { loadOperators } from '../operators/catalog.js'
import { encodeObject, putObject } from '../checkpoint/objects.js'
import { openCheckpointStorage } from '../checkpoint/storage/index.js'
import type { CheckpointStorage } from '../checkpoint/storage/api.js'
import type { StoredObject } from '../checkpoint/objects.js'
import type { StateHandle } from '../state/handles.js'
import { makeStagingDir } from '../state/backend.js'
import { barrierArrived, channelEnded } from './alignment.js'
import type { CheckpointRef, SubtaskData, SubtaskManifest } from './checkpoint.js'
import { checkpointTarget } from './checkpoint-coordinator.js'
import { openOperator } from './operator-setup.js'
import { openSplitSink } from './sink-parallelism.js'
import { dropAhead } from './read-ahead.js'
import { sharedMetrics, STAT } from './shared-metrics.js'
import { stateAtEnd, snapshotTaken } from './subtask-stats.js'
import { buildSubtasks, type Barrier, type Task } from './subtasks.js'
import { TaskRunner, type Alignment } from './task-runner.js'
import { InFlight, Link, linkRemoteTasks, receiveItems, Ring, type ItemsMessage, type PostTarget } from './thread-links.js'
import { FLAG_ABORTED, toWire, type FromWorker, type ToWorker, type WorkerInit, type WorkerStats, type WireError } from './thread-protocol.js'
import { MAIN_THREAD, threadOf } from './threads.js'
import { currentThreadId } from './thread-priority.js'
import { WorkerSources } from './worker-sources.js'

const init = workerData as WorkerInit
const port = parentPort!
const send = (m: FromWorker, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer)

const graph = init.graph
// Only the connectors this job reads and writes (the job's thread has them all).
await loadConnectors(graph.nodes.flatMap(n => (n.spec.kind === 'Source' || n.spec.kind === 'Sink' ? [n.spec.connector] : [])))
// Likewise only the operators of its graph; its state backend is imported as its first subtask opens (state/backends.ts).
await loadOperators(graph.nodes.map(n => n.spec))
const { order } = buildSubtasks(graph, sharedMetrics(init.metrics))
const local = order.filter(t => threadOf(t, true, graph.config.parallelism) === init.worker)
const flags = new Int32Array(init.flags)
const inFlight = new InFlight(init.inFlight)

// Links: to the job's thread on the parent port, to each other worker on its own port.
const self = init.worker
const ring = (from: number, to: number): Ring => new Ring(init.rings[from + 1]![to + 1]!)
const main = new Link(port as unknown as PostTarget, inFlight, ring(self, MAIN_THREAD), self)
const peers = init.peers.map((p, v) => (p === null ? null : new Link(p as unknown as PostTarget, inFlight, ring(self, v), self)))
/** The rings of the links into this worker, by sending thread + 1. */
const incoming = init.rings.map((_, from) => (from - 1 === self ? null : ring(from - 1, self)))
linkRemoteTasks(order, t => threadOf(t, true, graph.config.parallelism), init.worker, thread => (thread === MAIN_THREAD ? main : peers[thread]!))
const flush = (): void => {
  main.flush()
  for (const p of peers) p?.flush()
}

const s3 = graph.config.s3
const restore: CheckpointRef | undefined = init.restore === undefined ? undefined : {
  manifest: init.restore.manifest,
  base: openCheckpointStorage(init.restore.baseUri, s3),
  location: init.restore.location,
}
const storages = init.checkpoint === undefined ? undefined : {
  storage: openCheckpointStorage(init.checkpoint.storageUri, s3),
  savepointStorage: openCheckpointStorage(init.checkpoint.savepointUri, s3),
}
let staging: Promise<string> | undefined
const tmpDir = (): Promise<string> => (staging ??= makeStagingDir(init.stateDir))

/** The checkpoint announced last: a subtask that finishes without its barrier snapshots for it. */
let announced: Barrier | null = null

/** A subtask's snapshot: timers and state, uploaded here; the job's thread is told at once and when uploaded. */
async function snapshot(task: Task, barrier: Barrier): Promise<void> {
  await dropAhead(task)
  const started = performance.now()
  task.snapshotted = barrier.id
  const index = order.indexOf(task)
  send({ t: 'snapshot', checkpoint: barrier.id, task: index })
  if (!task.stateful) {
    snapshotTaken(task, barrier.id, started)({})
    send({ t: 'uploaded', checkpoint: barrier.id, task: index, subtask: null })
    return
  }
  const { base, prefix } = checkpointTarget(storages!, barrier)
  const own = `${prefix}${safeFileName(task.node.id)}-${task.index}/`
  const data: SubtaskData = { timers: task.timers!.snapshot() }
  const encoded = encodeObject(data)
  const watermark = task.watermark
  const state = await task.state!.checkpoint({
    storage: base,
    ownPrefix: own,
    sharedPrefix: 'shared/',
    selfContained: barrier.savepoint,
    checkpointId: barrier.id,
    tmpDir,
  })
  const stored = snapshotTaken(task, barrier.id, started)
  const upload = async (): Promise<SubtaskManifest> => {
    const [dataObject, handle] = await Promise.all([encoded.then(gz => putObject(base as CheckpointStorage, own + 'data.bin.gz', gz)), state.upload]) as [
      StoredObject,
      StateHandle,
    ]
    stored({ data: dataObject, state: handle })
    return { index: task.index, keyGroups: task.range, data: dataObject, state: handle, watermark }
  }
  upload().then(
    subtask => send({ t: 'uploaded', checkpoint: barrier.id, task: index, subtask }),
    e => send({ t: 'upload-failed', checkpoint: barrier.id, task: index, error: toWire(e) }),
  )
}

const alignment: Alignment = {
  barrierArrived: (task, ch, barrier) => barrierArrived(task, ch, barrier, snapshot),
  channelEnded: task => channelEnded(task, snapshot),
  async taskFinished(task) {
    if (announced !== null && task.snapshotted < announced.id) await snapshot(task, announced)
  },
}

let runner: TaskRunner
let sources: WorkerSources
const fail = (e: unknown): void => send({ t: 'failed', error: toWire(e) })

function onItems(m: ItemsMessage): void {
  receiveItems(m, order, incoming[m.from + 1]!)
  runner.pump().then(() => inFlight.done(), e => {
    inFlight.done()
    fail(e)
  })
}

async function stats(countStored: boolean): Promise<WorkerStats> {
  const entries: [number, number][] = []
  let diskBytes: number | undefined
  let storedEntries: number | undefined
  for (const task of local) {
    if (task.stateful) entries.push([order.indexOf(task), stateAtEnd(task)])
    if (task.state?.storageStats === undefined) continue
    const s = await task.state.storageStats(countStored)
    task.stats[STAT.stateBytes] = s.diskBytes
    diskBytes = (diskBytes ?? 0) + s.diskBytes
    if (s.storedEntries !== undefined) storedEntries = (storedEntries ?? 0) + s.storedEntries
  }
  const skippedRecords = sources.skippedRecords()
  return { entries, ...(diskBytes === undefined ? {} : { diskBytes }), ...(storedEntries === undefined ? {} : { storedEntries }),
    ...(skippedRecords === 0 ? {} : { skippedRecords }) }
}

async function close(): Promise<void> {
  runner?.stop()
  const errors: WireError[] = []
  const closing: unknown[] = []
  await sources?.close(closing)
  for (const e of closing) errors.push(toWire(e))
  for (const task of local) {
    await task.operator?.close?.()?.catch?.((e: unknown) => errors.push(toWire(e)))
    await dropAhead(task).catch(() => undefined)
    await task.state?.close().catch(e => errors.push(toWire(e)))
    await task.sink?.close().catch(e => errors.push(toWire(e)))
  }
  // Working state is not durable: checkpoints are. Its folders go.
  for (const task of local) await task.state?.destroy?.().catch(() => undefined)
  const dir = await staging?.catch(() => undefined)
  if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined)
  send({ t: 'closed', errors })
  port.close()
  for (const p of init.peers) p?.close()
}

async function start(): Promise<void> {
  runner = new TaskRunner(graph, local, alignment, {
    aborted: () => Atomics.load(flags, FLAG_ABORTED) === 1,
    onTimerDue: () => {
      runner.fireDue().catch(fail)
    },
    afterPump: flush,
  })
  for (const p of init.peers) {
    if (p === null) continue
    ;(p as unknown as MessagePort).on('message', (m: ItemsMessage) => onItems(m))
  }
  port.on('message', (m: ToWorker) => {
    switch (m.t) {
      case 'items':
        onItems(m)
        return
      case 'announce': {
        announced = m.barrier
        // The barrier goes in at this thread's sources now; their positions are the checkpoint's.
        send({ t: 'source-positions', checkpoint: m.barrier.id, parts: sources.inject(m.barrier) })
        // Subtasks that finished before this checkpoint's barrier went in snapshot now.
        runner.exclusive(async () => {
          for (const task of local) {
            if (task.finished && task.node.spec.kind !== 'Source' && task.snapshotted < m.barrier.id) await snapshot(task, m.barrier)
          }
        }).catch(fail)
        runner.pump().catch(fail)
        return
      }
      case 'run':
        sources.run().catch(fail)
        return
      case 'abort':
        sources.abort()
        return
      case 'completed':
        sources.checkpointCompleted(m.checkpoint, m.sources)
        return
      case 'stats':
        stats(m.countStored).then(s => send({ t: 'stats', stats: s }), fail)
        return
      case 'close':
        close().catch(fail)
        return
    }
  })
  sources = new WorkerSources(graph, local.filter(t => t.node.spec.kind === 'Source'), runner, inFlight,
    parts => send({ t: 'source-positions', checkpoint: 0, parts }))
  const setup = { graph, restore, stateDir: init.stateDir, tmpDir }
  for (const task of local) {
    if (task.node.spec.kind === 'Sink') await openSplitSink(task, graph)
    else if (task.node.spec.kind !== 'Source') await openOperator(task, setup)
  }
  await sources.open(restore?.manifest)
  // Cancelled before it started: its sources read nothing.
  if (Atomics.load(flags, FLAG_ABORTED) === 1) sources.abort()
  send({ t: 'ready', thread: currentThreadId() })
  // The job's thread waits for this where sink subtasks run here: they write what reaches them after its own subtasks end.
  runner.allFinished().then(() => send({ t: 'finished' }), fail)
}

start().catch(fail)
