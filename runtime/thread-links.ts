// The links between the threads of a job (threads.ts): what one thread's subtasks send to subtasks on
// another is queued per link and posted in one message after each pump, batches encoded as bytes
// (batch-codec.ts) and transferred, never cloned. A subtask is named by its place in the job's
// topological order, the same on every thread. Messages of one link arrive in order, so a channel's
// items do too.
//
// Backpressure: every message in flight between any two threads counts in one shared counter; the
// job's thread stops reading its sources while it is at the limit, and the worker threads never wait
// (a worker waiting on another could wait in a cycle). What the sources stop sending bounds what
// every thread holds.
import type { Barrier, Item, Task } from './subtasks.js'
import { decodeBatch, encodeBatch } from './batch-codec.js'

/** An item as it travels: its subtask by index in the job's order, a batch as bytes. */
export type WireItem =
  | { readonly t: 'batch'; readonly task: number; readonly ch: number; readonly data: ArrayBuffer }
  | { readonly t: 'wm'; readonly task: number; readonly ch: number; readonly wm: number }
  | { readonly t: 'end'; readonly task: number; readonly ch: number }
  | { readonly t: 'barrier'; readonly task: number; readonly ch: number; readonly barrier: Barrier }
  | { readonly t: 'idle'; readonly task: number; readonly ch: number; readonly idle: boolean }

export interface ItemsMessage {
  readonly t: 'items'
  readonly items: readonly WireItem[]
}

/** What a link posts on: a worker, a MessagePort or the worker's parentPort. */
export interface PostTarget {
  postMessage(message: unknown, transfer?: readonly ArrayBuffer[]): void
}

/** Messages in flight between threads beyond which the sources wait. */
export const MAX_MESSAGES_IN_FLIGHT = 16

/** The shared counter of messages in flight (index 0 of an Int32Array over a SharedArrayBuffer). */
export class InFlight {
  readonly counter: Int32Array
  constructor(buffer: SharedArrayBuffer) {
    this.counter = new Int32Array(buffer)
  }
  static create(): SharedArrayBuffer {
    return new SharedArrayBuffer(4)
  }
  sent(): void {
    Atomics.add(this.counter, 0, 1)
  }
  /** A message was received and its items processed. */
  done(): void {
    Atomics.sub(this.counter, 0, 1)
    Atomics.notify(this.counter, 0)
  }
  get value(): number {
    return Atomics.load(this.counter, 0)
  }
}

/** Items queued for one other thread. */
export class Link {
  private items: WireItem[] = []
  private transfer: ArrayBuffer[] = []

  constructor(private readonly target: PostTarget, private readonly inFlight: InFlight) {}

  /** Queues `item` for the subtask at `index` of the job's order. */
  push(index: number, item: Item): void {
    switch (item.t) {
      case 'batch': {
        const data = encodeBatch(item.batch)
        this.items.push({ t: 'batch', task: index, ch: item.ch, data })
        this.transfer.push(data)
        return
      }
      case 'wm':
        this.items.push({ t: 'wm', task: index, ch: item.ch, wm: item.wm })
        return
      case 'end':
        this.items.push({ t: 'end', task: index, ch: item.ch })
        return
      case 'barrier':
        this.items.push({ t: 'barrier', task: index, ch: item.ch, barrier: item.barrier })
        return
      case 'idle':
        this.items.push({ t: 'idle', task: index, ch: item.ch, idle: item.idle })
        return
    }
  }

  /** Posts what is queued, as one message. */
  flush(): void {
    if (this.items.length === 0) return
    const message: ItemsMessage = { t: 'items', items: this.items }
    this.inFlight.sent()
    this.target.postMessage(message, this.transfer)
    this.items = []
    this.transfer = []
  }
}

/** Puts the items of a message on the queues of this thread's subtasks. */
export function receiveItems(message: ItemsMessage, order: readonly Task[]): void {
  for (const w of message.items) {
    const task = order[w.task]!
    switch (w.t) {
      case 'batch':
        task.queue.push({ t: 'batch', ch: w.ch, batch: decodeBatch(w.data) })
        break
      case 'wm':
        task.queue.push({ t: 'wm', ch: w.ch, wm: w.wm })
        break
      case 'end':
        task.queue.push({ t: 'end', ch: w.ch })
        break
      case 'barrier':
        task.queue.push({ t: 'barrier', ch: w.ch, barrier: w.barrier })
        break
      case 'idle':
        task.queue.push({ t: 'idle', ch: w.ch, idle: w.idle })
        break
    }
  }
}

/**
 * Points every subtask that runs on another thread at the link to that thread. `home(task)` is the
 * thread a subtask runs on (-1: the job's thread, w: worker w), `self` this thread.
 */
export function linkRemoteTasks(order: readonly Task[], home: (task: Task) => number, self: number, linkTo: (thread: number) => Link): void {
  order.forEach((task, index) => {
    const at = home(task)
    if (at === self) return
    const link = linkTo(at)
    task.send = item => link.push(index, item)
  })
}
