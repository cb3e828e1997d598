// EXPLAIN ESTIMATED_COST: per operator, what Weir can derive about the rows it emits, and unknown for the
// rest — never a guess. A datagen source knows its row count ('number-of-rows', a sequence's length) and
// its pace ('rows-per-second', 10000 by default); a nexmark source its event count ('events.num'; a table
// holds a share of the events, so at most that many); a filesystem source the bytes of its files (its
// row count is unknown until read); VALUES its rows. Operators that pass every row on (a projection, an
// exchange, a sink, a sort without a limit) keep the input's figures; a filter or a limit gives an upper
// bound (≤); a union sums its inputs. What aggregates, joins and other operators emit depends on the data:
// unknown. The cumulative figure sums the rows every operator up to and including this one handles, as
// Flink's cumulative cost does, and is unknown when one of them is.
import { statSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { JobGraph, PhysicalNode } from '../core/job-graph.js'
import { resolveNexmarkConfig } from '../connectors/nexmark/config.js'

/** A count that is exact, an upper bound, or unknown. */
interface Figure {
  readonly value: number
  readonly bound: 'exact' | 'at-most'
}

interface Estimate {
  readonly rows: Figure | undefined
  readonly rate: Figure | undefined
  readonly cumulative: Figure | undefined
  readonly bytes?: number
}

/** The estimate of every node of `graph` as EXPLAIN prints it: `rows=[…], rate=[…], cumulativeRows=[…]`. */
export function estimatedCosts(graph: JobGraph): Map<string, string> {
  const byId = new Map(graph.nodes.map(n => [n.id, n]))
  const estimates = new Map<string, Estimate>()
  const estimateOf = (node: PhysicalNode): Estimate => {
    const known = estimates.get(node.id)
    if (known !== undefined) return known
    const inputs = node.inputs.map(e => estimateOf(byId.get(e.node)!))
    const own = nodeEstimate(node, inputs)
    const parts = [own.rows, ...inputs.map(i => i.cumulative)]
    const cumulative = parts.every(p => p !== undefined) ? sum(parts as Figure[]) : undefined
    const e = { ...own, cumulative }
    estimates.set(node.id, e)
    return e
  }
  const out = new Map<string, string>()
  for (const n of graph.nodes) {
    const e = estimateOf(n)
    const bytes = e.bytes === undefined ? '' : `, sourceBytes=[${e.bytes}]`
    out.set(n.id, `rows=[${show(e.rows)}], rate=[${show(e.rate, ' rows/s')}], cumulativeRows=[${show(e.cumulative)}]${bytes}`)
  }
  return out
}

function nodeEstimate(node: PhysicalNode, inputs: readonly Estimate[]): Omit<Estimate, 'cumulative'> {
  const spec = node.spec
  const first = inputs[0]
  switch (spec.kind) {
    case 'Source': {
      const own = sourceEstimate(spec.connector, spec.options, node)
      return spec.filter === undefined ? own : { ...own, rows: atMost(own.rows), rate: atMost(own.rate) }
    }
    case 'Values':
      return { rows: { value: spec.rows.length, bound: 'exact' }, rate: undefined }
    case 'Calc':
      return spec.condition === undefined ? { rows: first?.rows, rate: first?.rate } : { rows: atMost(first?.rows), rate: atMost(first?.rate) }
    case 'Sink':
    case 'Collect':
    case 'UpsertMaterialize':
      return { rows: first?.rows, rate: first?.rate }
    case 'Sort':
      if (spec.limit === null) return { rows: first?.rows, rate: first?.rate }
      return { rows: minFigure(atMost(first?.rows), { value: spec.limit, bound: 'at-most' }), rate: undefined }
    case 'Union': {
      const rows = inputs.every(i => i.rows !== undefined) ? sum(inputs.map(i => i.rows!)) : undefined
      const rate = inputs.every(i => i.rate !== undefined) ? sum(inputs.map(i => i.rate!)) : undefined
      return { rows, rate }
    }
    default:
      return { rows: undefined, rate: undefined }
  }
}

function sourceEstimate(connector: string, options: Readonly<Record<string, string>>, node: PhysicalNode): Omit<Estimate, 'cumulative'> {
  switch (connector) {
    case 'datagen':
      return { rows: datagenRows(options), rate: { value: Number(options['rows-per-second'] ?? 10_000), bound: 'exact' } }
    case 'nexmark': {
      const spec = node.spec.kind === 'Source' ? node.spec : undefined
      const events = resolveNexmarkConfig(options, spec?.physicalSchema ?? []).maxEvents
      return { rows: Number.isFinite(events) ? { value: events, bound: 'at-most' } : undefined, rate: undefined }
    }
    case 'filesystem': {
      const path = options['path']
      return { rows: undefined, rate: undefined, bytes: path === undefined ? undefined : bytesUnder(path) }
    }
    default:
      return { rows: undefined, rate: undefined }
  }
}

/** 'number-of-rows', or the shortest sequence column's length; undefined when the generator does not end. */
function datagenRows(options: Readonly<Record<string, string>>): Figure | undefined {
  let rows = options['number-of-rows'] === undefined ? Infinity : Number(options['number-of-rows'])
  for (const [key, value] of Object.entries(options)) {
    const m = /^fields\.(.+)\.kind$/.exec(key)
    if (m === null || value.trim().toLowerCase() !== 'sequence') continue
    const start = Number(options[`fields.${m[1]}.start`])
    const end = Number(options[`fields.${m[1]}.end`])
    if (Number.isFinite(start) && Number.isFinite(end)) rows = Math.min(rows, Math.max(0, end - start + 1))
  }
  return Number.isFinite(rows) ? { value: rows, bound: 'exact' } : undefined
}

/** The bytes of the file at `path`, or of the files under the directory (hidden ones skipped); undefined if unreadable. */
function bytesUnder(path: string): number | undefined {
  try {
    const st = statSync(path)
    if (!st.isDirectory()) return st.size
    let total = 0
    for (const name of readdirSync(path)) {
      if (name.startsWith('.') || name.startsWith('_')) continue
      const inner = bytesUnder(join(path, name))
      if (inner === undefined) return undefined
      total += inner
    }
    return total
  } catch {
    return undefined
  }
}

function atMost(f: Figure | undefined): Figure | undefined {
  return f === undefined ? undefined : { value: f.value, bound: 'at-most' }
}

function minFigure(a: Figure | undefined, b: Figure): Figure {
  return a === undefined || b.value < a.value ? b : a
}

function sum(fs: readonly Figure[]): Figure {
  return { value: fs.reduce((s, f) => s + f.value, 0), bound: fs.every(f => f.bound === 'exact') ? 'exact' : 'at-most' }
}

function show(f: Figure | undefined, unit = ''): string {
  if (f === undefined) return 'unknown'
  return `${f.bound === 'at-most' ? '≤' : ''}${f.value}${unit}`
}
