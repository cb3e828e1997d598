// A job graph as the runtime runs it: every node as one or more subtasks ('parallelism.default' for
// keyed operators, each owning a contiguous key-group range), and the channels between them — a hash
// exchange routes each row to the subtask owning its key group. What flows on a channel is an Item.
import { invariant } from '../common/assert.js'
import { WeirError } from '../common/errors.js'
import type { Batch, Row } from '../core/batch.js'
import type { JobGraph, PhysicalNode, SourceSpec } from '../core/job-graph.js'
import type { Operator, OperatorContext, OperatorMetrics } from '../core/operator.js'
import type { KeyRef, Namespace } from '../core/keyed-state.js'
import type { SubtaskStateBackend } from '../state/backend.js'
import type { StateHandle } from '../state/handles.js'
import { keyGroupRange, subtaskOf } from '../state/key-encoding.js'
import type { SinkWriter } from '../connectors/api.js'
import { loadedConnector } from '../connectors/catalog.js'
import { operatorTraits } from '../operators/catalog.js'
import type { TimerServiceImpl } from './timers.js'
import { keysByColumns, type BatchKeys, type KeysOf } from './batch-keys.js'
import { parallelismOption } from './parallelism-option.js'
import { sinkParallelism, sinkShipping } from './sink-parallelism.js'
import { localMetrics, type SubtaskMetrics } from './shared-metrics.js'

export interface Barrier {
  readonly id: number
  readonly savepoint: boolean
}

export type Item =
  /** `keys`: the rows' keys, on a batch a hash exchange routes to another thread (they travel with it). */
  | { readonly t: 'batch'; readonly ch: number; readonly batch: Batch; readonly keys?: readonly KeyRef[] }
  | { readonly t: 'wm'; readonly ch: number; readonly wm: number }
  | { readonly t: 'end'; readonly ch: number }
  | { readonly t: 'barrier'; readonly ch: number; readonly barrier: Barrier }
  /** The producer is idle (it has no input that could move its watermark) or active again: see watermark-status.ts. */
  | { readonly t: 'idle'; readonly ch: number; readonly idle: boolean }

/** Where a subtask's output goes for one consumer input: one target, or routed by key group. */
export interface OutEdge {
  readonly targets: readonly Task[]
  /** The channel this producer has at each target. */
  readonly channels: readonly number[]
  /** The keys of a batch's rows, whose key groups pick their targets (a hash exchange into several subtasks), or null: every row to targets[0]. */
  readonly route: KeysOf | null
  /** With no route and several targets (a sink's REBALANCE, sink-parallelism.ts): the target of the next batch, round-robin. */
  readonly spread?: { next: number }
  readonly maxParallelism: number
}

/** One subtask of a node. */
export interface Task {
  readonly node: PhysicalNode
  readonly index: number
  readonly parallelism: number
  readonly range: { readonly start: number; readonly end: number }
  readonly outputs: OutEdge[]
  readonly queue: Item[]
  /** Per input channel: its logical input, watermark, whether it ended, whether it delivered the pending barrier. */
  readonly chInput: number[]
  readonly chWatermark: number[]
  readonly chEnded: boolean[]
  readonly chBarrier: boolean[]
  /** Per input channel: its producer said it is idle, so the channel does not hold the watermark back. */
  readonly chIdle: boolean[]
  /** This subtask told its consumers it is idle. */
  idle: boolean
  endedChannels: number
  /** Barrier being aligned, and the items of channels that already delivered it. */
  pendingBarrier: Barrier | null
  held: Item[]
  watermark: number
  finished: boolean
  operator?: Operator
  ctx?: OperatorContext
  timers?: TimerServiceImpl
  state?: SubtaskStateBackend<StateHandle>
  sink?: SinkWriter
  // What the operator declared (OperatorTraits), unpacked for the per-batch path.
  /** It keeps keyed state that checkpoints must capture. */
  readonly stateful: boolean
  /** Expired state is swept after each batch. */
  readonly hasTtl: boolean
  /** Every row is processed as its own batch. */
  readonly rowAtATime: boolean
  /** The timer domains it registers in: only these are fired. */
  readonly eventTimers: boolean
  readonly processingTimers: boolean
  readonly metrics: OperatorMetrics
  /** The runtime's numbers of this subtask, at shared-metrics.ts's STAT offsets (busy time, watermark, checkpoints…). */
  readonly stats: Float64Array
  /**
   * Set when this subtask runs on another thread (threads.ts): what is sent to it goes there, encoded.
   * Null when it runs on this one: items go on its queue.
   */
  send: ((item: Item) => void) | null
  /** The id of the last checkpoint this subtask snapshotted for (0: none). */
  snapshotted: number
  /**
   * The batch whose state is being read ahead: the next state access of this subtask is processing
   * it (anything else waits for the read and drops it). See read-ahead.ts.
   */
  ahead: { readonly item: Item; readonly loaded: Promise<void> } | null
  /** Keys of the batches being prefetched and processed (ctx.keysOf). */
  batchKeys: BatchKeys | null
  /** Request objects for a batch's rows, reused from batch to batch (a prefetch reads its requests before it returns). */
  readonly requests: { key: KeyRef; namespace: Namespace | undefined }[]
}

/** The subtasks of a job graph, connected. */
export interface Subtasks {
  readonly byNode: ReadonlyMap<string, readonly Task[]>
  /** Every subtask, in topological order (producers before consumers). */
  readonly order: readonly Task[]
}

/** Makes the subtasks of every node of `graph` and the channels between them. */
export function buildSubtasks(graph: JobGraph, metricsOf?: (index: number) => SubtaskMetrics): Subtasks {
  const maxParallelism = graph.config.maxParallelism
  const defaultParallelism = graph.config.parallelism
  if (defaultParallelism > maxParallelism) {
    throw WeirError.plan(`'parallelism.default' = ${defaultParallelism} exceeds 'pipeline.max-parallelism' = ${maxParallelism}`, {
      help: 'each subtask owns at least one key group; lower the parallelism or raise the max-parallelism',
    })
  }
  const byNode = new Map<string, Task[]>()
  const order: Task[] = []
  for (const node of graph.nodes) {
    const parallelism = parallelismOf(node, defaultParallelism, id => byNode.get(id)?.length)
    const traits = operatorTraits(node.spec, graph.config)
    const tasks: Task[] = []
    for (let i = 0; i < parallelism; i++) {
      const m = metricsOf?.(order.length) ?? localMetrics()
      const task: Task = {
        node,
        index: i,
        parallelism,
        range: keyGroupRange(i, parallelism, maxParallelism),
        outputs: [],
        queue: [],
        chInput: [],
        chWatermark: [],
        chEnded: [],
        chBarrier: [],
        chIdle: [],
        idle: false,
        endedChannels: 0,
        pendingBarrier: null,
        held: [],
        watermark: -Infinity,
        finished: false,
        stateful: traits.keyedState,
        hasTtl: traits.ttlSweep,
        rowAtATime: traits.input === 'row',
        eventTimers: traits.timers.includes('event'),
        processingTimers: traits.timers.includes('processing'),
        metrics: m.metrics,
        stats: m.stats,
        send: null,
        snapshotted: 0,
        ahead: null,
        batchKeys: null,
        requests: [],
      }
      tasks.push(task)
      order.push(task)
    }
    byNode.set(node.id, tasks)
  }
  for (const node of graph.nodes) connect(node, byNode, maxParallelism)
  return { byNode, order }
}

/** How many subtasks each node of `graph` runs (as buildSubtasks makes them), by node id: EXPLAIN JSON_EXECUTION_PLAN prints them. */
export function nodeParallelisms(graph: JobGraph): Map<string, number> {
  const out = new Map<string, number>()
  for (const node of graph.nodes) out.set(node.id, parallelismOf(node, graph.config.parallelism, id => out.get(id)))
  return out
}

/**
 * Sources whose connector splits (Kafka: its partitions) and keyed operators run as many subtasks as
 * 'parallelism.default' (a source its 'scan.parallelism' where it has one); sinks that split as
 * their input (or their 'sink.parallelism': sink-parallelism.ts); other sources and sinks, VALUES and
 * SELECT results as one; forward chains follow their input.
 */
function parallelismOf(node: PhysicalNode, p: number, of: (id: string) => number | undefined): number {
  switch (node.spec.kind) {
    case 'Source':
      return loadedConnector(node.spec.connector).source?.splittable === true ? scanParallelism(node.spec, p) : 1
    case 'Sink':
      return sinkParallelism(node.spec, of(node.inputs[0]!.node) ?? 1, p)
    case 'Values':
    case 'Collect':
      return 1
    default:
      break
  }
  if (node.inputs.some(e => e.exchange.kind === 'single')) return 1
  if (node.inputs.some(e => e.exchange.kind === 'hash')) return p
  const ps = node.inputs.map(e => of(e.node) ?? 1)
  return ps.every(x => x === ps[0]) ? ps[0] ?? 1 : 1
}

/** A splitting source's parallelism: its table's 'scan.parallelism' (as in Flink, at most the job's), else the job's `p`. */
function scanParallelism(spec: SourceSpec, p: number): number {
  return parallelismOption(spec.table, spec.options, 'scan.parallelism', p) ?? p
}

/** Creates the channels from every producer subtask into the subtasks of `node`. */
function connect(node: PhysicalNode, byNode: ReadonlyMap<string, readonly Task[]>, maxParallelism: number): void {
  const consumers = byNode.get(node.id)!
  node.inputs.forEach((planned, input) => {
    const producers = byNode.get(planned.node)
    invariant(producers, `unknown input ${planned.node}`)
    const shipping = node.spec.kind === 'Sink' ? sinkShipping(node.spec, producers.length, consumers.length) : planned.exchange
    const edge = { node: planned.node, exchange: shipping }
    const addChannel = (t: Task): number => {
      t.chInput.push(input)
      t.chWatermark.push(-Infinity)
      t.chEnded.push(false)
      t.chBarrier.push(false)
      t.chIdle.push(false)
      return t.chInput.length - 1
    }
    for (const producer of producers) {
      if (edge.exchange.kind === 'hash' && consumers.length > 1) {
        // Per batch, so rows of one key share its KeyRef (batch-keys.ts): a key is hashed once, not per row.
        const keysOf = keysByColumns(edge.exchange.keys, maxParallelism)
        producer.outputs.push({ targets: consumers, channels: consumers.map(addChannel), route: keysOf, maxParallelism })
      } else if (edge.exchange.kind === 'rebalance') {
        // Each producer starts at its own subtask, so p producers into p' subtasks share the load from the first batch.
        producer.outputs.push({ targets: consumers, channels: consumers.map(addChannel), route: null, spread: { next: producer.index }, maxParallelism })
      } else if (producers.length === consumers.length) {
        const target = consumers[producer.index]!
        producer.outputs.push({ targets: [target], channels: [addChannel(target)], route: null, maxParallelism })
      } else {
        invariant(consumers.length === 1,
          `cannot connect ${producers.length} subtasks of ${edge.node} to ${consumers.length} of ${node.id} with a ${edge.exchange.kind} exchange`)
        producer.outputs.push({ targets: consumers, channels: [addChannel(consumers[0]!)], route: null, maxParallelism })
      }
    }
  })
}

/** Sends a batch a subtask produced down its channels, each row to the subtask its key group goes to. */
export function emit(task: Task, batch: Batch): void {
  task.metrics.rowsOut += batch.rows.length
  for (const out of task.outputs) {
    if (out.route === null) {
      const t = out.spread === undefined ? 0 : out.spread.next++ % out.targets.length
      deliver(out.targets[t]!, { t: 'batch', ch: out.channels[t]!, batch })
      continue
    }
    const n = out.targets.length
    const rows: Row[][] = Array.from({ length: n }, () => [])
    const kinds: number[][] | null = batch.kinds ? Array.from({ length: n }, () => []) : null
    // The keys of the rows for a subtask on this thread: it keys its state by the same columns, so it
    // takes them as they are (BatchKeys.seed) instead of computing them again. A subtask on another
    // thread gets them with the rows (thread-links.ts), unless it is a sink (which keys nothing).
    const keyed: (KeyRef[] | null)[] = out.targets.map(t =>
      (t.send === null ? t.batchKeys !== null : t.node.spec.kind !== 'Sink' && t.node.spec.kind !== 'Collect') ? [] : null
    )
    const keys = out.route(batch.rows)
    const maxP = out.maxParallelism
    for (let i = 0; i < batch.rows.length; i++) {
      const key = keys[i]!
      const t = subtaskOf(key.group, n, maxP)
      rows[t]!.push(batch.rows[i]!)
      keyed[t]?.push(key)
      if (kinds) kinds[t]!.push(batch.kinds![i]!)
    }
    for (let t = 0; t < n; t++) {
      if (rows[t]!.length === 0) continue
      const target = out.targets[t]!
      const ch = out.channels[t]!
      const routed = { rows: rows[t]!, kinds: kinds ? Uint8Array.from(kinds[t]!) : null }
      const k = keyed[t]!
      if (target.send !== null) target.send(k === null ? { t: 'batch', ch, batch: routed } : { t: 'batch', ch, batch: routed, keys: k })
      else {
        if (k !== null) target.batchKeys!.seed(routed.rows, target.chInput[ch]!, k)
        target.queue.push({ t: 'batch', ch, batch: routed })
      }
    }
  }
}

/** Sends a watermark, end or barrier to every channel this subtask feeds. */
export function broadcast(task: Task, make: (ch: number) => Item): void {
  for (const out of task.outputs) {
    for (let t = 0; t < out.targets.length; t++) deliver(out.targets[t]!, make(out.channels[t]!))
  }
}

/** Puts an item on a subtask's queue, or sends it to the thread the subtask runs on. */
function deliver(target: Task, item: Item): void {
  if (target.send === null) target.queue.push(item)
  else target.send(item)
}
