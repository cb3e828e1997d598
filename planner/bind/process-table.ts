// Binds a call of a user's process table function in FROM: `f(input => TABLE t PARTITION BY k, arg => v)`.
// The PARTITION BY columns are the key; scalar arguments must be constants the function declares.
import type * as ast from '../../grammar/ast.js'
import { formatType, isNumeric, withoutTimeAttr, type DataType, type Field } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { closest } from '../../common/names.js'
import { evalConstant } from '../../expr/index.js'
import type { FunctionRegistry } from '../functions.js'
import type { ProcessTable } from '../logical/nodes.js'
import { Scope } from './scope.js'
import { bindExpr } from './expr-binder.js'
import type { BoundRelation } from './join-binder.js'

type ArgValue = string | number | boolean | null

export function bindProcessTable(call: ast.TableFunctionCall, functions: FunctionRegistry, bindInput: (from: ast.FromItem) => BoundRelation): BoundRelation {
  const fn = functions.resolve(call.name)
  const tables = call.args.filter((a): a is Extract<ast.TableFunctionArg, { kind: 'TableArg' }> => a.kind === 'TableArg')
  const usage = `${fn.name}(input => TABLE t PARTITION BY key_column${fn.args.map(a => `, ${a.name} => …`).join('')})`
  if (tables.length !== 1) {
    throw WeirError.plan(`${fn.name} takes one TABLE argument, got ${tables.length}`, { span: tables.length ? tables[1]!.span : call.span,
      help: `call it as ${usage}` })
  }
  const table = tables[0]!
  if (table.partitionBy.length === 0) {
    throw WeirError.plan(`the TABLE argument of ${fn.name} needs PARTITION BY: its state is kept per key`, { span: table.span,
      help: `partition the input by the columns that key the state: ${usage}` })
  }
  const input = bindInput(table.input)
  const keys = table.partitionBy.map(k => input.scope.resolve(k))
  for (const need of fn.input) {
    const at = input.plan.fields.findIndex(f => f.name.toLowerCase() === need.name.toLowerCase())
    if (at < 0) {
      throw WeirError.plan(`${fn.name} reads column '${need.name}', which its input does not have`, { span: table.input.span,
        help: `the input's columns: ${input.plan.fields.map(f => f.name).join(', ')}; rename with a subquery: TABLE (SELECT … AS ${need.name} FROM …)` })
    }
    const have = withoutTimeAttr(input.plan.fields[at]!.type)
    if (!compatible(have, need.type)) {
      throw WeirError.plan(`${fn.name} reads '${need.name}' as ${formatType(need.type)}, but the input's is ${formatType(have)}`, { span: table.input.span,
        help: `CAST it in a subquery: TABLE (SELECT …, CAST(${need.name} AS ${formatType(need.type)}) AS ${need.name} FROM …)` })
    }
  }
  const args: Record<string, ArgValue> = {}
  for (const a of call.args) {
    if (a.kind !== 'ScalarArg') continue
    if (a.name === undefined) throw WeirError.plan(`the scalar arguments of ${fn.name} are passed by name`, { span: a.span, help: `call it as ${usage}` })
    const decl = fn.args.find(d => d.name.toLowerCase() === a.name!.value.toLowerCase())
    if (decl === undefined) {
      const guess = closest(a.name.value, fn.args.map(d => d.name))
      throw WeirError.plan(`${fn.name} has no argument '${a.name.value}'`, { span: a.name.span, help: guess
        ? `did you mean '${guess}'?`
        : fn.args.length
        ? `its arguments: ${fn.args.map(d => d.name).join(', ')}`
        : `${fn.name} takes no scalar argument` })
    }
    if (decl.name in args) throw WeirError.plan(`argument '${decl.name}' is given twice`, { span: a.span })
    args[decl.name] = constantArg(a, decl, fn.name)
  }
  for (const d of fn.args) if (!(d.name in args)) args[d.name] = null
  const keyFields = keys.map(k => ({ name: input.plan.fields[k]!.name, type: withoutTimeAttr(input.plan.fields[k]!.type) }))
  const clash = fn.output.find(o => keyFields.some(k => k.name.toLowerCase() === o.name.toLowerCase()))
  if (clash !== undefined) {
    throw WeirError.plan(`${fn.name} outputs a column '${clash.name}', which is also a PARTITION BY column (output rows start with the key)`, {
      span: call.name.span,
      help: `rename the output column in the function's module`,
    })
  }
  const fields: Field[] = [...keyFields, ...fn.output]
  const node: ProcessTable = { kind: 'ProcessTable', input: input.plan, fn, keys, args, fields, span: call.span }
  return { plan: node, scope: Scope.of(fields, call.alias?.value ?? fn.name) }
}

function compatible(have: DataType, need: DataType): boolean {
  if (have.kind === need.kind) return true
  // Any number reaches the handler as a JS number (a DECIMAL is refused: its value is not one).
  return isNumeric(have) && have.kind !== 'DECIMAL' && isNumeric(need) || (have.kind === 'TIMESTAMP_LTZ' && need.kind === 'TIMESTAMP')
}

function constantArg(a: Extract<ast.TableFunctionArg, { kind: 'ScalarArg' }>, decl: Field, fn: string): ArgValue {
  const rex = bindExpr(a.value, { scope: new Scope([]), clause: 'a table function argument' })
  const t = rex.type
  const ok = t.kind === 'NULL' || (decl.type.kind === 'STRING' ? t.kind === 'STRING' : decl.type.kind === 'BOOLEAN' ? t.kind === 'BOOLEAN' : isNumeric(t))
  if (!ok) {
    throw WeirError.plan(`argument '${decl.name}' of ${fn} is ${formatType(decl.type)}, got ${formatType(t)}`, { span: a.value.span })
  }
  const v = evalConstant(rex)
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  const float = decl.type.kind === 'DOUBLE' && decl.type.float === true ? Math.fround : (x: number) => x
  if (typeof v === 'number') return float(v)
  if (typeof v === 'bigint') {
    // A DECIMAL literal: its unscaled value and scale.
    const scale = t.kind === 'DECIMAL' ? t.scale : 0
    return float(Number(v) / 10 ** scale)
  }
  throw WeirError.plan(`argument '${decl.name}' of ${fn} must be a constant`, { span: a.value.span })
}
