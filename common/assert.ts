// Exhaustiveness and internal-invariant helpers.
import { WeirError } from './errors.js'

/** For `switch` over a closed union: a new member fails the build until every switch handles it. */
export function assertNever(value: never): never {
  throw WeirError.internal(`unexpected value ${JSON.stringify((value as { kind?: unknown })?.kind ?? value)}`)
}

/** An invariant that only a bug can break. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw WeirError.internal(message)
}
