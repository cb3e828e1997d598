// LAG in an OVER clause, and the window functions a stream cannot compute (LEAD, CUME_DIST,
// PERCENT_RANK, NTILE), refused as Flink's streaming mode refuses them, each saying why.
import type * as ast from '../../grammar/ast.js'
import { WeirError } from '../../common/errors.js'
import { formatType, sameType, withNullable, withoutTimeAttr } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { evalConstant } from '../../expr/index.js'
import { implicitCast } from '../../expr/cast.js'
import { commonType } from '../../expr/coercion.js'
import type { LagArgs, OverCall, OverFrame } from '../logical/over.js'
import { bindExpr } from './expr-binder.js'
import type { Scope } from './scope.js'

/** Window functions whose value depends on rows after the current one, or on the whole partition. */
const NOT_STREAMABLE: Readonly<Record<string, { readonly why: string; readonly help: string }>> = {
  LEAD: {
    why: "a row's LEAD is a row that comes after it, and an OVER query emits each row as the watermark passes it",
    help: 'read the value back from the later row instead: LAG(x) OVER (PARTITION BY k ORDER BY ts) pairs each row with the one before it',
  },
  CUME_DIST: {
    why: 'it divides by the number of rows of the whole partition, which a stream never has',
    help:
      'rank rows as they come with RANK() OVER (PARTITION BY k ORDER BY ts), or compute it per window: FROM TABLE(TUMBLE(…)) … GROUP BY window_start, window_end',
  },
  PERCENT_RANK: {
    why: 'it divides by the number of rows of the whole partition, which a stream never has',
    help:
      'rank rows as they come with RANK() OVER (PARTITION BY k ORDER BY ts), or compute it per window: FROM TABLE(TUMBLE(…)) … GROUP BY window_start, window_end',
  },
  NTILE: {
    why: 'its buckets are cut from the number of rows of the whole partition, which a stream never has',
    help: 'number rows as they come with ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts), and bucket them by that number',
  },
}

/** Refuses LEAD, CUME_DIST, PERCENT_RANK and NTILE (Flink's streaming mode refuses them too); other names pass. */
export function refuseUnstreamable(call: ast.FunctionCall): void {
  const fn = call.name.value.toUpperCase()
  const reason = NOT_STREAMABLE[fn]
  if (reason === undefined) return
  throw WeirError.unsupported(`${fn} is not supported on a stream: ${reason.why} (Flink's streaming mode refuses it too)`, {
    span: call.span,
    help: reason.help,
  })
}

/**
 * `LAG(value [, offset [, default]]) OVER (PARTITION BY … ORDER BY ts)`: the offset a non-negative
 * whole-number constant (default 1), the default of the value's type (a NULL, or a value that
 * converts to it without widening it). As in Flink (and SQL), LAG takes no ROWS or RANGE frame.
 */
export function bindLag(call: ast.FunctionCall, spec: ast.WindowSpec, scope: Scope, add: (r: Rex) => number, frame: OverFrame, name: string): OverCall {
  const usage = 'write LAG(value [, offset [, default]]) OVER (PARTITION BY … ORDER BY ts)'
  if (call.star || call.distinct || call.filter || call.nullTreatment || call.args.length < 1 || call.args.length > 3) {
    const what = call.star ? '*' : call.distinct ? 'DISTINCT' : call.filter ? 'FILTER' : call.nullTreatment ? `${call.nullTreatment.value} NULLS` : undefined
    throw WeirError.plan(what ? `LAG does not take ${what}` : `LAG takes one to three arguments, got ${call.args.length}`, { span: call.span, help: usage })
  }
  if (spec.frame) {
    throw WeirError.plan('LAG takes no ROWS or RANGE frame', {
      span: spec.frame.span,
      help: `remove the frame (LAG counts rows back from the current one whatever the frame; Flink refuses one too): ${usage}`,
    })
  }
  const value = bindExpr(call.args[0]!, { scope, clause: 'the argument of LAG' })
  const offset = call.args[1] === undefined ? 1 : lagOffset(call.args[1], scope, usage)
  const valueType = withoutTimeAttr(value.type)
  let dflt: Rex | undefined
  if (call.args[2] !== undefined) {
    const d = bindExpr(call.args[2], { scope, clause: 'the default of LAG' })
    const common = commonType([valueType, d.type])
    if (d.type.kind !== 'NULL' && (common === null || !sameType(withNullable(common, valueType.nullable), valueType))) {
      throw WeirError.plan(`LAG's default must have the type of its value, ${formatType(valueType)}, but it is ${formatType(d.type)}`, {
        span: call.args[2].span,
        help: `CAST the default: LAG(…, ${offset}, CAST(… AS ${formatType(withNullable(valueType, true))}))`,
      })
    }
    if (d.type.kind !== 'NULL') dflt = implicitCast(d, withNullable(valueType, d.type.nullable), call.args[2].span)
  }
  // NULL before the partition has `offset` rows, unless a NOT NULL default stands in.
  const nullable = valueType.nullable || (offset > 0 && (dflt === undefined || dflt.type.nullable))
  const lag: LagArgs = { arg: add(value), offset, default: dflt === undefined ? null : add(dflt) }
  return { fn: 'LAG', lag, frame, type: withNullable(valueType, nullable), name, span: call.span }
}

function lagOffset(e: ast.Expr, scope: Scope, usage: string): number {
  const help = `the offset counts rows back from the current one: a whole number ≥ 0 written in the query; ${usage}`
  const rex = bindExpr(e, { scope, clause: 'the offset of LAG' })
  if (rex.kind !== 'Literal' && !isConstant(rex)) throw WeirError.plan("LAG's offset must be a constant", { span: e.span, help })
  const v = evalConstant(rex)
  const n = typeof v === 'bigint' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw WeirError.plan(`LAG's offset must be a whole number ≥ 0, but it is ${v === null ? 'NULL' : String(v)}`, { span: e.span, help })
  }
  if (n > 100_000) throw WeirError.plan(`LAG's offset ${n} is too large (at most 100000: each key keeps that many values)`, { span: e.span, help })
  return n
}

function isConstant(rex: Rex): boolean {
  switch (rex.kind) {
    case 'Literal':
      return true
    case 'Call':
      return rex.args.every(isConstant)
    default:
      return false
  }
}
