// What a stateful operator's state means, as plain JSON stored in each checkpoint: restoring state
// into an operator whose keys, aggregates or window differ would silently give wrong results, so a
// job whose operators changed is refused with the change named.
import type { DataType, Field } from '../common/types.js'
import type { AggCall } from './aggregates.js'
import type { JobGraph, PhysicalNode } from './job-graph.js'
import { keepsAppendedRows } from './join-layout.js'
import { describeRowCall, isFrameCall } from './over-aggregate.js'
import { slicesHop } from './window-slicing.js'

/** Operators that keep their input rows themselves in state (not accumulators over them). */
const STORES_ROWS: ReadonlySet<string> = new Set([
  'UpsertMaterialize',
  'Join',
  'TemporalJoin',
  'SemiJoin',
  'SetOp',
  'ScalarJoin',
  'MarkerJoin',
  'IntervalJoin',
  'WindowJoin',
  'WindowSemiJoin',
  'OverAggregate',
  'Deduplicate',
  'Rank',
])

/**
 * Fields a signature gained after checkpoints were first written: a checkpoint without one was
 * written before it existed and is not refused for lacking it.
 */
const LATER_FIELDS: ReadonlySet<string> = new Set(['rows', 'partitionBy', 'states'])

/**
 * The parts of a stateful operator that decide the layout and meaning of its state. An operator that
 * stores its input rows also gives their column types: the query above it decides which columns
 * reach it (columns are pruned), so a changed SELECT can change the stored rows' shape, and rows
 * of the old shape read as the new one would silently give wrong values.
 */
export function operatorSignature(node: PhysicalNode, graph: JobGraph): Record<string, unknown> {
  const own = ownSignature(node)
  if (!STORES_ROWS.has(node.spec.kind)) return own
  return { ...own, rows: node.inputs.map(i => rowShape(graph.nodes.find(n => n.id === i.node)!.schema)) }
}

/** A stored row's columns as their encoding sees them: the type, without nullability or time attribute. */
function rowShape(schema: readonly Field[]): string {
  return schema.map(f => typeShape(f.type)).join(', ')
}

/**
 * A FLOAT stays 'DOUBLE' (its values are stored as the same doubles, and checkpoints taken while FLOAT was
 * read as DOUBLE restore); a year-month INTERVAL holds months, not milliseconds, so it has its own shape.
 */
function typeShape(t: DataType): string {
  if (t.kind === 'INTERVAL' && t.yearMonth === true) return 'INTERVAL YEAR TO MONTH'
  return t.kind === 'DECIMAL' ? `DECIMAL(${t.precision}, ${t.scale})` : t.kind
}

function ownSignature(node: PhysicalNode): Record<string, unknown> {
  const spec = node.spec
  switch (spec.kind) {
    case 'GroupAggregate':
      return { kind: spec.kind, keys: keyNames(node, spec.keys.length), aggregates: spec.aggs.map(describeAgg), inputUpdating: spec.inputUpdating }
    case 'WindowAggregate':
      // layout 'key-slices': a HOP keeps its slices' accumulators in one entry per key, with one timer
      // (operators/hop-slices.ts). Before: no layout (accumulators per window), then 'slices' (an entry
      // per (key, slice) and a timer per (key, window)); neither is read any more.
      return { kind: spec.kind, keys: keyNames(node, spec.keys.length), aggregates: spec.aggs.map(describeAgg), window: { ...spec.window },
        time: spec.timeDomain, ...(slicesHop(spec) ? { layout: 'key-slices' } : {}), ...(spec.attached ? { attached: { ...spec.attached } } : {}) }
    case 'Join': {
      // Which side is outer and how each side is keyed decide what its entries mean.
      // appended: an inner insert-only side without a unique key keeps chunks of rows in a list
      // (core/join-layout.ts) since the field was added; such a side of an earlier checkpoint was a map.
      const side = (s: typeof spec.left) => ({ keys: s.keys.length, uniqueKey: s.uniqueKey ?? null, outer: s.outer,
        ...(keepsAppendedRows(s) ? { appended: true } : {}) })
      // layout: how the rows are stored (a side without a unique key keys each row by its hash since the
      // field was added; a checkpoint without it stored rows under their encoding and is refused).
      return { kind: spec.kind, joinType: spec.joinType, left: side(spec.left), right: side(spec.right), layout: 'row-hash' }
    }
    case 'TemporalJoin':
      // Event and processing time keep different state under the same key.
      return { kind: spec.kind, joinType: spec.joinType, time: spec.timeDomain, keys: spec.rightKeys.length }
    case 'OverAggregate':
      // Frames decide what the retained rows and accumulators hold; the partition keys, how state is keyed.
      return { kind: spec.kind, keys: spec.partitionKeys.map(i => `$${i}`), time: spec.timeDomain, calls: spec.calls.map(
        c => (isFrameCall(c) ? `${describeAgg(c.agg)} ${c.frame.unit} ${c.frame.preceding ?? 'UNBOUNDED'}` : describeRowCall(c, i => `$${i}`)),
      ) }
    case 'IntervalJoin':
      // The bounds decide when each side's rows are removed; the time domain, which timers hold them.
      // layout: a list per (key, time bucket, side) since 'time-bucket-lists'; 'time-buckets' kept a
      // bucket's rows as one value, which this operator no longer reads: such a checkpoint is refused.
      return { kind: spec.kind, joinType: spec.joinType, keys: spec.left.keys.length, time: spec.timeDomain, lower: spec.lower, upper: spec.upper,
        layout: 'time-bucket-lists' }
    case 'WindowJoin':
      return { kind: spec.kind, joinType: spec.joinType, keys: spec.left.keys.length, window: { ...spec.window }, layout: 'side-cells' }
    case 'UpsertMaterialize':
      return { kind: spec.kind, keys: spec.keys.map(i => node.schema[i]!.name) }
    case 'SemiJoin':
      // NOT IN keeps its probe rows by their value since layout 'probe-by-value'; before, in one
      // list per key, which it no longer reads (restored, they would be silently lost).
      return spec.nullAware === undefined ? { kind: spec.kind } : { kind: spec.kind, layout: 'probe-by-value' }
    case 'WindowSemiJoin':
      // NOT IN keeps the right values, the others whether the window has a right row.
      return { kind: spec.kind, anti: spec.anti, notIn: spec.nullAware !== undefined, keys: spec.leftKeys.length, window: { ...spec.window } }
    case 'ProcessFunction':
      // A user's process function: its key, and each state's backend name and shape. A new state
      // is fine on restore (it starts empty); a removed or retyped one is refused (PROCESS_STATES).
      return { kind: spec.kind, function: spec.function, partitionBy: keyNames(node, spec.keys.length),
        states: Object.fromEntries(spec.states.map(s => [s.name, s.codec === undefined ? s.kind : `${s.kind}/${s.codec}`])) }
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
    if (was[field] === undefined && LATER_FIELDS.has(field)) continue
    if (field === 'function') continue // renaming the function in SQL keeps its state
    if (field === 'states' && was['kind'] === 'ProcessFunction') {
      const change = describeStatesChange(String(now['function'] ?? was['function']), was[field] as Record<string, string>,
        (now[field] ?? {}) as Record<string, string>)
      if (change !== null) changes.push(change)
      continue
    }
    const a = JSON.stringify(was[field]), b = JSON.stringify(now[field])
    if (a !== b) changes.push(`${field} ${show(was[field])} → ${show(now[field])}`)
  }
  return changes.length === 0 ? null : changes.join('; ')
}

const SHAPES: Readonly<Record<string, string>> = { value: 'valueState', list: 'listState', map: 'mapState' }

/** A state's recorded kind ('value', or 'value/<codec id>' for a codec other than the default) as the user declares it. */
function shapeOf(recorded: string): string {
  const slash = recorded.indexOf('/')
  const kind = slash < 0 ? recorded : recorded.slice(0, slash)
  const shape = SHAPES[kind] ?? kind
  return slash < 0 ? shape : `${shape} with codec ${recorded.slice(slash + 1)}`
}

/**
 * A process function's states, by backend name → kind: each one the checkpoint has must still be
 * declared with the same kind (its entries would be lost, or misread); a new one starts empty.
 */
function describeStatesChange(fn: string, was: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): string | null {
  const changes: string[] = []
  for (const [name, kind] of Object.entries(was)) {
    const is = now[name]
    if (is === undefined) {
      changes.push(`process function '${fn}' no longer declares state '${name}' (${shapeOf(kind)}), which the checkpoint holds` +
        ` (declare ${SHAPES[kind.split('/')[0]!] ?? kind}('${name}'${kind.includes('/') ? ', { codec }' : ''}) again to keep it)`)
    } else if (is !== kind) {
      changes.push(`process function '${fn}' declares state '${name}' as ${shapeOf(is)}, but the checkpoint holds it as ${shapeOf(kind)}` +
        ` (declare it as ${shapeOf(kind)} again, or give the new state another name: a new state starts empty)`)
    }
  }
  return changes.length === 0 ? null : changes.join('; ')
}

function show(v: unknown): string {
  if (v === undefined) return '(none)'
  if (Array.isArray(v)) return `[${v.map(x => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ')}]`
  return typeof v === 'string' ? v : JSON.stringify(v)
}
