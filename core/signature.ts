// What a stateful operator's state means, as plain JSON stored in each checkpoint: restoring state
// into an operator whose keys, aggregates or window differ would silently give wrong results, so a
// job whose operators changed is refused with the change named.
import type { AggCall } from './aggregates.js'
import type { PhysicalNode } from './job-graph.js'

/** The parts of a stateful operator that decide the layout and meaning of its state. */
export function operatorSignature(node: PhysicalNode): Record<string, unknown> {
  const spec = node.spec
  switch (spec.kind) {
    case 'GroupAggregate':
      return { kind: spec.kind, keys: keyNames(node, spec.keys.length), aggregates: spec.aggs.map(describeAgg), inputUpdating: spec.inputUpdating }
    case 'WindowAggregate':
      return { kind: spec.kind, keys: keyNames(node, spec.keys.length), aggregates: spec.aggs.map(describeAgg), window: { ...spec.window },
        time: spec.timeDomain }
    case 'Join': {
      // Which side is outer and how each side is keyed decide what its entries mean.
      const side = (s: typeof spec.left) => ({ keys: s.keys.length, uniqueKey: s.uniqueKey ?? null, outer: s.outer })
      return { kind: spec.kind, joinType: spec.joinType, left: side(spec.left), right: side(spec.right) }
    }
    case 'TemporalJoin':
      // Event and processing time keep different state under the same key.
      return { kind: spec.kind, joinType: spec.joinType, time: spec.timeDomain, keys: spec.rightKeys.length }
    case 'OverAggregate':
      // Frames decide what the retained rows and accumulators hold; the partition keys, how state is keyed.
      return { kind: spec.kind, keys: spec.partitionKeys.map(i => `$${i}`), time: spec.timeDomain,
        calls: spec.calls.map(c => (c.fn === 'ROW_NUMBER' ? 'ROW_NUMBER()' : `${describeAgg(c.agg)} ${c.frame.unit} ${c.frame.preceding ?? 'UNBOUNDED'}`)) }
    case 'IntervalJoin':
      // The bounds decide when each side's rows are removed; the time domain, which timers hold them.
      return { kind: spec.kind, joinType: spec.joinType, keys: spec.left.keys.length, time: spec.timeDomain, lower: spec.lower, upper: spec.upper }
    case 'WindowJoin':
      return { kind: spec.kind, joinType: spec.joinType, keys: spec.left.keys.length, window: { ...spec.window } }
    case 'WindowSemiJoin':
      // NOT IN keeps the right values, the others whether the window has a right row.
      return { kind: spec.kind, anti: spec.anti, notIn: spec.nullAware !== undefined, keys: spec.leftKeys.length, window: { ...spec.window } }
    default:
      return { kind: spec.kind }
  }
}

/** Key columns as the operator's output names them (its first columns are the keys). */
function keyNames(node: PhysicalNode, n: number): string[] {
  return node.schema.slice(0, n).map(f => f.name)
}

function describeAgg(a: AggCall): string {
  const arg = a.arg === null ? '*' : `$${a.arg}`
  return `${a.fn}(${a.distinct ? 'DISTINCT ' : ''}${arg})${a.filter === null ? '' : ` FILTER $${a.filter}`}`
}

/** Null when both signatures mean the same state; otherwise what changed, e.g. "aggregates were COUNT(*), now COUNT(*), SUM($2)". */
export function describeSignatureChange(was: Readonly<Record<string, unknown>>, now: Readonly<Record<string, unknown>>): string | null {
  const changes: string[] = []
  for (const field of new Set([...Object.keys(was), ...Object.keys(now)])) {
    const a = JSON.stringify(was[field]), b = JSON.stringify(now[field])
    if (a !== b) changes.push(`${field} ${show(was[field])} → ${show(now[field])}`)
  }
  return changes.length === 0 ? null : changes.join('; ')
}

function show(v: unknown): string {
  if (v === undefined) return '(none)'
  if (Array.isArray(v)) return `[${v.map(x => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ')}]`
  return typeof v === 'string' ? v : JSON.stringify(v)
}
