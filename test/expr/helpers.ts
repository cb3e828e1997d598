// Shared fixtures for the expression tests: columns, calls, a span, and evaluation that checks the
// scalar, predicate and Calc compilations agree.
import { expect } from 'vitest'
import type { Span } from '../../common/span.js'
import type { DataType } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { inputRef, literal, type Rex } from '../../core/rex.js'
import { compileCalc, compilePredicate, compileScalar, numberLiteral, resolveCall, stringLiteral } from '../../expr/index.js'

export const span: Span = { start: { offset: 7, line: 1, column: 8 }, end: { offset: 12, line: 1, column: 13 } }

export const col = inputRef
export const lit = literal
export const num = (text: string): Rex => numberLiteral(text)
export const str = (text: string): Rex => stringLiteral(text)
export const call = (name: string, ...args: Rex[]): Rex => resolveCall(name, args, span)

/** Evaluates `rex` over one row three ways (scalar, Calc projection, and as a predicate for booleans) and checks they agree. */
export function run(rex: Rex, row: unknown[] = []): unknown {
  const scalar = compileScalar(rex)(row)
  const batch = compileCalc([rex])({ rows: [row], kinds: null })
  expect(batch?.rows[0]?.[0]).toEqual(scalar)
  if (rex.type.kind === 'BOOLEAN') expect(compilePredicate(rex)(row)).toBe(scalar === true)
  return scalar
}

/** Evaluates a call of `name` on columns typed `types` holding `values`. */
export function apply(name: string, types: readonly DataType[], values: readonly unknown[]): unknown {
  return run(resolveCall(name, types.map((t, i) => inputRef(i, t)), span), [...values])
}

/** The WeirError thrown by `f`. */
export function errorOf(f: () => unknown): WeirError {
  try {
    f()
  } catch (e) {
    if (e instanceof WeirError) return e
    throw e
  }
  throw new Error('expected a WeirError')
}
