// What a job failure says about where it happened: the operator subtask that was running, and for an
// expression error the input row it failed on, rendered with its column names.
import { WeirError } from '../common/errors.js'
import type { Field } from '../common/types.js'
import { formatValue } from '../common/values.js'
import { compileCalc, compileScalar } from '../expr/index.js'
import type { Batch, Row } from '../core/batch.js'
import { type JobGraph, type PhysicalNode, sourceReadColumns } from '../core/job-graph.js'

/** The operator subtask an error came from (ids as in the plan, e.g. '3-calc'). */
export interface FailedOperator {
  readonly id: string
  readonly kind: string
  readonly subtask: number
  readonly parallelism: number
}

/**
 * An error raised while an operator ran: its own message, span, help and record position, plus which
 * operator and, where it can be known, the input row. The engine names the job and the operator as
 * EXPLAIN prints it.
 */
export class OperatorFailure extends WeirError {
  constructor(
    error: WeirError,
    readonly operator: FailedOperator,
    /** The input row the expression failed on, as `name=value, …`. */
    readonly row: string | undefined,
    /** The notes of the original error (the ones this class adds come first in `notes`). */
    readonly originalNotes: readonly string[],
  ) {
    super(error.kind, error.message, {
      span: error.span,
      record: error.record,
      help: error.help,
      cause: error.cause ?? error,
      notes: [`in operator ${operator.id} (${operator.kind}${operator.parallelism > 1 ? `, subtask ${operator.subtask + 1} of ${operator.parallelism}` : ''})`,
        ...(row === undefined ? [] : [`input row: ${row}`]), ...originalNotes],
    })
    this.name = 'OperatorFailure'
  }
}

interface Subtask {
  readonly node: PhysicalNode
  readonly index: number
  readonly parallelism: number
}

/**
 * `e`, thrown while `task` processed something, as an OperatorFailure. `input` is the batch it
 * processed (a source: the physical rows it read) and which input it came on, to find the failing
 * row where expressions are pure (a calc: projection, filter; a source's computed columns and
 * watermark). Runs only on the error path.
 */
export function operatorFailure(e: unknown, task: Subtask, graph: JobGraph, input?: { readonly batch: Batch; readonly input: number }): OperatorFailure {
  if (e instanceof OperatorFailure) return e
  const error = e instanceof WeirError
    ? e
    : WeirError.execution(e instanceof Error ? e.message : String(e), {
      cause: e,
      help: 'if this does not point at your data or setup, it is a bug in Weir: please report it with the SQL',
    })
  const row = error.kind === 'execution' && input !== undefined ? failingRow(task.node, input.batch.rows) : undefined
  const operator = { id: task.node.id, kind: task.node.spec.kind, subtask: task.index, parallelism: task.parallelism }
  const spec = task.node.spec
  // A source decodes only the columns the job reads: the others are not in the row (not NULL in the record).
  const shown = spec.kind === 'Source' ? sourceReadColumns(spec) : undefined
  return new OperatorFailure(error, operator, row === undefined ? undefined : formatRow(row, inputFields(graph, task.node, input!.input), shown), error.notes)
}

/** The columns of the rows a node reads on `input`: a source's physical columns, else its input's output. */
function inputFields(graph: JobGraph, node: PhysicalNode, input: number): readonly Field[] {
  if (node.spec.kind === 'Source') return node.spec.physicalSchema
  const from = node.inputs[input]?.node
  return graph.nodes.find(n => n.id === from)?.schema ?? []
}

/** The first row the node's expressions fail on when evaluated alone, if it has pure per-row expressions. */
function failingRow(node: PhysicalNode, rows: readonly Row[]): Row | undefined {
  const spec = node.spec
  let evaluate: ((row: Row) => unknown) | undefined
  if (spec.kind === 'Calc') {
    const calc = compileCalc(spec.projection, spec.condition)
    evaluate = row => calc({ rows: [row], kinds: null })
  } else if (spec.kind === 'Source') {
    const calc = compileCalc(spec.projection, spec.filter)
    const watermark = spec.watermark ? compileScalar(spec.watermark.expr) : undefined
    evaluate = row => {
      watermark?.(row)
      return calc({ rows: [row], kinds: null })
    }
  }
  if (evaluate === undefined) return undefined
  for (const row of rows) {
    try {
      evaluate(row)
    } catch {
      return row
    }
  }
  return undefined
}

const MAX_VALUE = 80

/**
 * A row as `name=value, …`: strings quoted as SQL literals, long values cut; with `shown`, only the
 * columns it marks.
 * @example formatRow([5, 'a'], [{ name: 'id', type: T.bigint() }, { name: 's', type: T.string() }]) // "id=5, s='a'"
 */
export function formatRow(row: Row, fields: readonly Field[], shown?: readonly boolean[]): string {
  return fields.flatMap((f, i) => {
    if (shown?.[i] === false) return []
    const v = row[i]
    let text = typeof v === 'string' ? `'${v.replaceAll("'", "''")}'` : formatValue(v, f.type)
    if (text.length > MAX_VALUE) text = text.slice(0, MAX_VALUE) + '…'
    return [`${f.name}=${text}`]
  }).join(', ')
}
