// The links between the threads of a job (threads.ts): what one thread's subtasks send to subtasks on
// another is queued per link and posted in one message after each pump, batches encoded as bytes
// (batch-codec.ts) into a ring of shared memory of the link's own (a message names where), never
// cloned; a batch that does not fit in the ring goes in an ArrayBuffer transferred with the message.
// (Transferring or copying an ArrayBuffer per message costs 20–50 times a message of numbers when
// the receiving thread is busy.) A subtask is named by its place in the job's topological order, the
// same on every thread. Messages of one link arrive in order, so a channel's items do too.
//
// Backpressure: every message in flight between any two threads counts in one shared counter; the
// job's thread stops reading its sources while it is at the limit, and the worker threads never wait
// (a worker waiting on another could wait in a cycle). What the sources stop sending bounds what
// every thread holds.
import type { Barrier, Item, Task } from './subtasks.js'
import { decodeBatchKeys, encodeBatchBytes } from './batch-codec.js'

/** An item as it travels: its subtask by index in the job's order, a batch as bytes in the link's ring (or in `data`). */
export type WireItem =
  | { readonly t: 'batch'; readonly task: number; readonly ch: number; readonly data: ArrayBuffer }
  | { readonly t: 'ring'; readonly task: number; readonly ch: number; readonly at: number; readonly length: number; readonly end: number }
  | { readonly t: 'wm'; readonly task: number; readonly ch: number; readonly wm: number }
  | { readonly t: 'end'; readonly task: number; readonly ch: number }
  | { readonly t: 'barrier'; readonly task: number; readonly ch: number; readonly barrier: Barrier }
  | { readonly t: 'idle'; readonly task: number; readonly ch: number; readonly idle: boolean }

export interface ItemsMessage {
  readonly t: 'items'
  /** The sending thread (its ring). */
  readonly from: number
  readonly items: readonly WireItem[]
}

const RING_BYTES = 4 << 20

/**
 * One link's ring of shared memory: the sender writes batches at its head, the receiver releases
 * them in order once decoded. Positions are byte counts since the start, so they only grow; the
 * receiver's release count is the one shared number.
 */
export class Ring {
  private readonly bytes: Uint8Array
  private readonly released: BigInt64Array
  private readonly size: number
  /** Sender side: bytes written (wrap-around padding included). */
  private written = 0

  constructor(readonly buffer: SharedArrayBuffer) {
    this.released = new BigInt64Array(buffer, 0, 1)
    this.bytes = new Uint8Array(buffer, 8)
    this.size = buffer.byteLength - 8
  }

  static create(): SharedArrayBuffer {
    return new SharedArrayBuffer(8 + RING_BYTES)
  }

  /** Copies `data` into the ring: where it lies, and the count to release once read; null when it does not fit now. */
  put(data: Uint8Array): { at: number; end: number } | null {
    const len = (data.length + 7) & ~7
    let start = this.written
    let pos = start % this.size
    if (pos + len > this.size) {
      start += this.size - pos
      pos = 0
    }
    if (start + len - Number(Atomics.load(this.released, 0)) > this.size) return null
    this.bytes.set(data, pos)
    this.written = start + len
    return { at: pos + 8, end: this.written }
  }

  /** Receiver side: everything up to `end` was read. */
  release(end: number): void {
    Atomics.store(this.released, 0, BigInt(end))
  }
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
  /** Resolves once the messages in flight are below the limit; `check` may throw to end the wait (a failure). */
  async room(check?: () => void): Promise<void> {
    while (this.value >= MAX_MESSAGES_IN_FLIGHT) {
      check?.()
      const wait = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, t?: number): { async: boolean; value: Promise<string> | string } })
        .waitAsync(this.counter, 0, this.value, 50)
      if (wait.async) await wait.value
    }
  }
}

/** Items queued for one other thread. */
export class Link {
  private items: WireItem[] = []
  private transfer: ArrayBuffer[] = []

  constructor(private readonly target: PostTarget, private readonly inFlight: InFlight, private readonly ring: Ring, private readonly from: number) {}

  /** Queues `item` for the subtask at `index` of the job's order. */
  push(index: number, item: Item): void {
    switch (item.t) {
      case 'batch': {
        const bytes = encodeBatchBytes(item.batch, item.keys)
        const put = this.ring.put(bytes)
        if (put !== null) {
          this.items.push({ t: 'ring', task: index, ch: item.ch, at: put.at, length: bytes.length, end: put.end })
          return
        }
        const data = new ArrayBuffer(bytes.length)
        new Uint8Array(data).set(bytes)
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
    const message: ItemsMessage = { t: 'items', from: this.from, items: this.items }
    this.inFlight.sent()
    this.target.postMessage(message, this.transfer)
    this.items = []
    this.transfer = []
  }
}

/** Puts the items of a message on the queues of this thread's subtasks; `ring` is the ring of the link it came on. */
export function receiveItems(message: ItemsMessage, order: readonly Task[], ring: Ring): void {
  for (const w of message.items) {
    const task = order[w.task]!
    switch (w.t) {
      case 'batch':
        task.queue.push(received(task, w.ch, w.data, 0, w.data.byteLength))
        break
      case 'ring':
        task.queue.push(received(task, w.ch, ring.buffer, w.at, w.length))
        ring.release(w.end)
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

/** A batch that crossed to `task`: the keys that came with it are its (BatchKeys.seed), as a hash exchange on this thread gives them. */
function received(task: Task, ch: number, data: ArrayBufferLike, at: number, length: number): Item {
  const input = task.chInput[ch]!
  const edge = task.node.inputs[input]
  const columns = task.batchKeys !== null && edge?.exchange.kind === 'hash' ? edge.exchange.keys : null
  const { batch, keys } = decodeBatchKeys(data, at, length, columns)
  if (keys !== null) task.batchKeys!.seed(batch.rows, input, keys)
  return { t: 'batch', ch, batch }
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

/** A ring for every link between the job's thread and `workers` workers: [from + 1][to + 1]. */
export function createRings(workers: number): (SharedArrayBuffer | null)[][] {
  return Array.from({ length: workers + 1 }, (_, a) => Array.from({ length: workers + 1 }, (_, b) => (a === b ? null : Ring.create())))
}
