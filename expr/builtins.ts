// Every built-in scalar operator and function, by canonical name and alias.
import type { FunctionDef } from './registry.js'
import { ARITHMETIC } from './functions/arithmetic.js'
import { LOGIC } from './functions/logic.js'
import { CONDITIONAL } from './functions/conditional.js'
import { STRING } from './functions/string.js'
import { MATH } from './functions/math.js'
import { TIME } from './functions/time.js'
import { MORE } from './functions/more.js'

const DEFINITIONS: readonly FunctionDef[] = [...ARITHMETIC, ...LOGIC, ...CONDITIONAL, ...STRING, ...MATH, ...TIME, ...MORE]

export const BY_NAME = new Map<string, FunctionDef>()
for (const def of DEFINITIONS) {
  for (const name of def.names) {
    if (BY_NAME.has(name)) throw new Error(`function ${name} is defined twice`)
    BY_NAME.set(name, def)
  }
}

/** The definition behind a canonical operator name as stored in a Rex (the compiler's lookup). */
export function functionDef(op: string): FunctionDef | undefined {
  return BY_NAME.get(op)
}

/**
 * The functions a user calls by name (not operators such as AND or IS NULL), aliases included,
 * sorted. A definition that only special syntax reaches has a signature naming that syntax, not
 * itself (FLOOR_TO is `FLOOR(x TO unit)`): it is not callable by its own name, so it is left out.
 */
export function callableFunctionNames(): string[] {
  return DEFINITIONS.filter(d => d.names.includes(/^([A-Z_0-9]+)\(/.exec(d.signature)?.[1] ?? '')).flatMap(d => d.names).sort()
}

/** Every name resolveCall accepts (operators, functions and aliases), sorted. */
export function functionNames(): string[] {
  return [...BY_NAME.keys()].sort()
}
