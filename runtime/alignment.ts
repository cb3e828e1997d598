// Barrier alignment at one subtask, the same on every thread: a channel that delivered the barrier is
// held back until every channel has delivered it (or ended); then the subtask snapshots, forwards the
// barrier and goes on with the items it held.
import { broadcast, type Barrier, type Task } from './subtasks.js'

export type Snapshot = (task: Task, barrier: Barrier) => Promise<void>

/** A barrier arrived on channel `ch`: that channel is held back until every channel has delivered it. */
export async function barrierArrived(task: Task, ch: number, barrier: Barrier, snapshot: Snapshot): Promise<void> {
  task.chBarrier[ch] = true
  task.pendingBarrier = barrier
  await maybeAligned(task, snapshot)
}

/** A channel ended: it will never deliver the barrier being aligned. */
export async function channelEnded(task: Task, snapshot: Snapshot): Promise<void> {
  if (task.pendingBarrier !== null) await maybeAligned(task, snapshot)
}

/** Once every channel delivered the barrier (or ended): snapshot, forward it, release held items. */
async function maybeAligned(task: Task, snapshot: Snapshot): Promise<void> {
  const barrier = task.pendingBarrier!
  for (let ch = 0; ch < task.chInput.length; ch++) if (!task.chBarrier[ch] && !task.chEnded[ch]) return
  task.pendingBarrier = null
  task.chBarrier.fill(false)
  await snapshot(task, barrier)
  broadcast(task, ch => ({ t: 'barrier', ch, barrier }))
  if (task.held.length > 0) {
    // Not unshift(...held): spread arguments overflow the stack past ~100,000 items.
    const queued = task.held.concat(task.queue)
    task.queue.length = 0
    for (const item of queued) task.queue.push(item)
    task.held = []
  }
}
