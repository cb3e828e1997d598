// User functions of a session: a process table function registered by CREATE FUNCTION (its module
// loaded and its declaration read), looked up by name, case-insensitively, beside the catalog.
import type * as ast from '../grammar/ast.js'
import type { Span } from '../common/span.js'
import { T, type DataType, type Field } from '../common/types.js'
import { WeirError } from '../common/errors.js'
import { closest } from '../common/names.js'
import type { ProcessStateInfo } from '../core/process-function.js'
import type { ColumnType, ProcessFunction } from '../ptf/api.js'

/** A process table function as the planner knows it: where its module is, and what it declared. */
export interface CatalogFunction {
  readonly name: string
  /** Absolute path of its module. */
  readonly module: string
  readonly language: 'TYPESCRIPT' | 'JAVASCRIPT'
  /** Input columns it reads (the input may have more). */
  readonly input: readonly Field[]
  readonly output: readonly Field[]
  readonly args: readonly Field[]
  readonly states: readonly ProcessStateInfo[]
  readonly timers: boolean
  /** 'retract': it emits changes of its rows (an updating stream). */
  readonly changelog: 'insert-only' | 'retract'
  readonly span: Span
}

export function dataTypeOf(t: ColumnType): DataType {
  switch (t) {
    case 'STRING':
      return T.string()
    case 'BOOLEAN':
      return T.boolean()
    case 'INT':
      return T.int()
    case 'BIGINT':
      return T.bigint()
    case 'DOUBLE':
      return T.double()
    case 'TIMESTAMP(3)':
      return T.timestamp(3)
  }
}

const fieldsOf = (cols: Readonly<Record<string, ColumnType>> | undefined): Field[] =>
  Object.entries(cols ?? {}).map(([name, type]) => ({ name, type: dataTypeOf(type) }))

/** What CREATE FUNCTION registers for a loaded module. */
export function catalogFunction(stmt: ast.CreateFunction, module: string, language: CatalogFunction['language'], def: ProcessFunction): CatalogFunction {
  const states: ProcessStateInfo[] = Object.entries(def.state ?? {}).map(([field, d]) => ({
    field,
    name: d.name,
    kind: d.kind,
    ttlMs: d.ttlMs,
    updateTtlOnRead: d.updateTtlOnRead,
  }))
  return {
    name: stmt.name.parts.at(-1)!.value,
    module,
    language,
    input: fieldsOf(def.input),
    output: fieldsOf(def.output),
    args: fieldsOf(def.args),
    states,
    timers: typeof def.onTimer === 'function',
    changelog: def.changelog ?? 'insert-only',
    span: stmt.span,
  }
}

/** The session's user functions. */
export class FunctionRegistry {
  private readonly byName = new Map<string, CatalogFunction>()

  get(name: string): CatalogFunction | undefined {
    return this.byName.get(name.toLowerCase())
  }

  /** The function called `name` at `span`, or an error naming the closest one. */
  resolve(name: ast.Ident): CatalogFunction {
    const found = this.get(name.value)
    if (found) return found
    const guess = closest(name.value, [...this.byName.values()].map(f => f.name))
    throw WeirError.plan(`table function '${name.value}' not found`, {
      span: name.span,
      help: guess ? `did you mean '${guess}'?` : `create it first: CREATE FUNCTION ${name.value} AS './${name.value}.ts' LANGUAGE TYPESCRIPT`,
    })
  }

  /** False when it exists and `ifNotExists`; an error when it exists otherwise. */
  add(fn: CatalogFunction, ifNotExists: boolean, span: Span): boolean {
    const key = fn.name.toLowerCase()
    if (this.byName.has(key)) {
      if (ifNotExists) return false
      throw WeirError.plan(`function '${fn.name}' already exists`, { span, help: `DROP FUNCTION ${fn.name} first, or write CREATE FUNCTION IF NOT EXISTS` })
    }
    this.byName.set(key, fn)
    return true
  }

  drop(name: ast.QualifiedName, ifExists: boolean): boolean {
    const id = name.parts.at(-1)!
    if (this.byName.delete(id.value.toLowerCase())) return true
    if (ifExists) return false
    throw this.resolve(id) && WeirError.internal('unreachable')
  }

  list(): readonly CatalogFunction[] {
    return [...this.byName.values()]
  }
}
