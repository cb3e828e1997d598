// The public API of the scalar expression layer: binding calls and casts to typed Rex, literals,
// common types, and compiling Rex to JavaScript (scalar, predicate, and whole Calc batches).
export { callableFunctionNames, resolveCall, functionDef, functionNames, suggestFunction } from './functions.js'
export { castTo, canCast, implicitCast } from './cast.js'
export { commonType, comparisonType, typeName } from './coercion.js'
export { numberLiteral, stringLiteral, booleanLiteral, nullLiteral, intervalLiteral, timestampLiteral, timestampLtzLiteral, dateLiteral, timeLiteral,
  binaryLiteral } from './literals.js'
export { compileScalar, compilePredicate, compileCalc, calcSource, evalConstant, NO_WATERMARK } from './compiler.js'
export type { EvalEnv } from './compiler.js'
export type { FunctionDef, BindContext, Impl, CallRex } from './registry.js'
