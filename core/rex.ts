// Bound, typed scalar expressions (the planner's output, the compiler's input). Plain data, JSON-safe
// except that DECIMAL and large BIGINT literals hold a bigint.
import type { DataType } from '../common/types.js'
import type { Span } from '../common/span.js'

/**
 * A bound scalar expression.
 * - `Input`: column `index` of the operator's input row.
 * - `Literal`: a value in the engine's representation for `type` (see common/types.ts).
 * - `Call`: an operator or function by canonical upper-case name (see expr/functions.ts for the list),
 *   already type-checked, with implicit casts made explicit as CAST calls.
 */
export type Rex =
  | { readonly kind: 'Input'; readonly index: number; readonly type: DataType }
  | { readonly kind: 'Literal'; readonly value: unknown; readonly type: DataType }
  | { readonly kind: 'Call'; readonly op: string; readonly args: readonly Rex[]; readonly type: DataType; readonly span?: Span }

export function inputRef(index: number, type: DataType): Rex {
  return { kind: 'Input', index, type }
}

export function literal(value: unknown, type: DataType): Rex {
  return { kind: 'Literal', value, type }
}

/** Column indexes an expression reads. */
export function inputsUsed(rex: Rex, into: Set<number> = new Set()): Set<number> {
  if (rex.kind === 'Input') into.add(rex.index)
  else if (rex.kind === 'Call') { for (const a of rex.args) inputsUsed(a, into) }
  return into
}

/** Rewrites every Input index through `map` (used by projection push-down). */
export function remapInputs(rex: Rex, map: (index: number) => number): Rex {
  switch (rex.kind) {
    case 'Input':
      return { ...rex, index: map(rex.index) }
    case 'Literal':
      return rex
    case 'Call':
      return { ...rex, args: rex.args.map(a => remapInputs(a, map)) }
  }
}

/** Replaces Input i by exprs[i] (used to merge projections and push filters through them). */
export function substituteInputs(rex: Rex, exprs: readonly Rex[]): Rex {
  switch (rex.kind) {
    case 'Input':
      return exprs[rex.index]!
    case 'Literal':
      return rex
    case 'Call':
      return { ...rex, args: rex.args.map(a => substituteInputs(a, exprs)) }
  }
}

/** The conjuncts of a condition: `a AND (b AND c)` → [a, b, c]. */
export function conjunctsOf(rex: Rex): Rex[] {
  return rex.kind === 'Call' && rex.op === 'AND' ? rex.args.flatMap(conjunctsOf) : [rex]
}

/** True if evaluating the expression twice can give different results (PROCTIME, CURRENT_TIMESTAMP, RAND). */
export function isNonDeterministic(rex: Rex): boolean {
  if (rex.kind !== 'Call') return false
  if (NON_DETERMINISTIC.has(rex.op)) return true
  return rex.args.some(isNonDeterministic)
}

/** True if the expression reads the evaluating operator's watermark (CURRENT_WATERMARK). */
export function readsWatermark(rex: Rex): boolean {
  return rex.kind === 'Call' && (rex.op === 'CURRENT_WATERMARK' || rex.args.some(readsWatermark))
}

const NON_DETERMINISTIC = new Set(['PROCTIME', 'CURRENT_TIMESTAMP', 'LOCALTIMESTAMP', 'NOW', 'CURRENT_DATE', 'RAND', 'RAND_INTEGER', 'UUID',
  'CURRENT_WATERMARK'])
