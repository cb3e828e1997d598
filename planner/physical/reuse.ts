// Sub-plan reuse, as Flink's 'table.optimizer.reuse-sub-plan-enabled' and 'reuse-source-enabled': two
// operators of one job graph with the same spec over the same inputs (recursively) compute the same
// rows, so the second goes and its readers read the first (the runtime fans a node's output out to
// every reader, barriers and watermarks included). EXPLAIN prints the node once, with a reuse_id.
import type { JobConfig } from '../../common/config/index.js'
import { invariant } from '../../common/assert.js'
import { isNonDeterministic, type Rex } from '../../core/rex.js'
import type { PhysicalNode } from '../../core/job-graph.js'

/** The graph's nodes with every duplicate merged into its first occurrence, and what went into what. */
export interface ReusedNodes {
  readonly nodes: PhysicalNode[]
  /** A merged node's id → the id of the node its readers now read. */
  readonly reused: Record<string, string>
}

/**
 * Merges the operators of `nodes` that compute the same rows: same kind, same spec (expressions,
 * keys, windows, options; source positions in the plan aside), same output schema and changelog, and
 * inputs that are the same operators through the same exchanges. Ids of the operators kept do not
 * change, so a plan without duplicates is the plan it was.
 *
 * Never merged: sinks and a SELECT's collector (each writes its own rows), operators whose result is
 * not a function of their input (a non-deterministic function such as RAND() or NOW(), a user
 * function or aggregate, a process table function, processing time), and sources when
 * 'table.optimizer.reuse-source-enabled' is false.
 *
 * @example reuseSubPlans(nodes, config).reused // { '10-source': '1-source', '11-window-aggregate': '2-window-aggregate' }
 */
export function reuseSubPlans(nodes: readonly PhysicalNode[], config: JobConfig): ReusedNodes {
  if (!config.reuseSubPlan) return { nodes: [...nodes], reused: {} }
  const byId = new Map(nodes.map(n => [n.id, n]))
  // Each node's id after merging (its own, or its twin's); filled inputs first, so twins are found bottom-up.
  const canonical = new Map<string, string>()
  const firstOf = new Map<string, string>()
  const rewritten = new Map<string, PhysicalNode>()
  const visit = (id: string): string => {
    const done = canonical.get(id)
    if (done !== undefined) return done
    const node = byId.get(id)
    invariant(node !== undefined, `reuse: unknown input ${id}`)
    const inputs = node.inputs.map(e => ({ node: visit(e.node), exchange: e.exchange }))
    const same = inputs.every((e, i) => e.node === node.inputs[i]!.node)
    const next = same ? node : { ...node, inputs }
    rewritten.set(id, next)
    const digest = reusable(next, config) ? digestOf(next) : undefined
    let into = id
    if (digest !== undefined) {
      const first = firstOf.get(digest)
      if (first === undefined) firstOf.set(digest, id)
      else into = first
    }
    canonical.set(id, into)
    return into
  }
  for (const n of nodes) visit(n.id)
  const reused: Record<string, string> = {}
  const kept: PhysicalNode[] = []
  for (const n of nodes) {
    const into = canonical.get(n.id)!
    if (into === n.id) kept.push(rewritten.get(n.id)!)
    else reused[n.id] = into
  }
  return { nodes: kept, reused }
}

/** Whether the node's rows are a function of its inputs' rows alone, so a twin of it computes the same. */
function reusable(node: PhysicalNode, config: JobConfig): boolean {
  switch (node.spec.kind) {
    case 'Sink':
    case 'Collect':
    case 'ProcessFunction':
      return false
    case 'Source':
      return config.reuseSource && deterministic(node.spec)
    default:
      return deterministic(node.spec)
  }
}

/**
 * False when anything in a spec (plain data) makes its output vary between two runs over the same
 * input: a non-deterministic call or a user function (not declared deterministic: Weir has no such
 * declaration), a user aggregate, or processing time.
 */
function deterministic(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(deterministic)
  if (value === null || typeof value !== 'object') return true
  const o = value as Record<string, unknown>
  if (o['kind'] === 'Call' && typeof o['op'] === 'string' && Array.isArray(o['args'])) {
    const rex = value as Rex
    if (isNonDeterministic(rex) || (o['op'] as string).startsWith('udf:')) return false
  }
  if (o['timeDomain'] === 'processing') return false
  if ('fn' in o && o['user'] !== undefined) return false
  return Object.values(o).every(deterministic)
}

/**
 * What a node computes, as text: its kind (from its id), spec, schema, changelog and inputs (by their
 * ids after merging). Spans are left out: twins are written in two places of the query. Undefined
 * (never merged) when the spec holds a value this does not know how to compare.
 */
function digestOf(node: PhysicalNode): string | undefined {
  const kind = node.id.slice(node.id.indexOf('-') + 1)
  return stable([kind, node.spec, node.schema, node.changelog, node.inputs])
}

/** JSON with sorted keys, spans dropped, and each value's kind kept apart (1 and 1n, NaN and Infinity, a date and its number). */
function stable(value: unknown): string | undefined {
  switch (typeof value) {
    case 'bigint':
      return `"${value}n"`
    case 'undefined':
      return 'null'
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value)
    case 'string':
    case 'boolean':
      return JSON.stringify(value)
    case 'object':
      break
    default:
      return undefined
  }
  if (value === null) return 'null'
  if (value instanceof Date) return `"date:${value.getTime()}"`
  if (value instanceof Uint8Array) return `"bytes:${Buffer.from(value).toString('hex')}"`
  const parts: string[] = []
  if (Array.isArray(value)) {
    for (const v of value) {
      const s = stable(v)
      if (s === undefined) return undefined
      parts.push(s)
    }
    return `[${parts.join(',')}]`
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined
  const o = value as Record<string, unknown>
  for (const k of Object.keys(o).sort()) {
    if (k === 'span' || o[k] === undefined) continue
    const s = stable(o[k])
    if (s === undefined) return undefined
    parts.push(`${JSON.stringify(k)}:${s}`)
  }
  return `{${parts.join(',')}}`
}
