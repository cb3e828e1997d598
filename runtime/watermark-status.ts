// Idle inputs, as Flink's watermark status: a producer with nothing that could move its watermark (a
// source subtask that owns no split, or whose splits are all idle) says so, and its consumers then
// take the minimum over their other channels instead of waiting for it. A subtask whose open input
// channels are all idle is idle in turn and says so downstream; the first channel to become active
// again makes it active before anything else that channel sends.
import { broadcast, type Task } from './subtasks.js'

/**
 * The watermark of a subtask's input: the minimum over its channels that are not idle (an ended
 * channel counts as Infinity). Null while every channel still open is idle: the watermark stays.
 */
export function inputWatermark(task: Task): number | null {
  let wm = Infinity
  let active = false
  let open = false
  for (let ch = 0; ch < task.chWatermark.length; ch++) {
    if (!task.chEnded[ch]) open = true
    if (task.chIdle[ch]! && !task.chEnded[ch]) continue
    if (!task.chEnded[ch]) active = true
    const w = task.chWatermark[ch]!
    if (w < wm) wm = w
  }
  return active || !open ? wm : null
}

/** Tells the consumers of `task` that it became idle or active, when it did. */
export function setIdle(task: Task, idle: boolean): void {
  if (task.idle === idle) return
  task.idle = idle
  broadcast(task, ch => ({ t: 'idle', ch, idle }))
}

/** A channel became idle, active, or ended: the subtask is idle when every channel still open is. */
export function updateIdle(task: Task): void {
  let open = false
  for (let ch = 0; ch < task.chIdle.length; ch++) {
    if (task.chEnded[ch]) continue
    open = true
    if (!task.chIdle[ch]) return setIdle(task, false)
  }
  if (open) setIdle(task, true)
}
