// Binds the SQL/JSON functions with their clauses (grammar/json-clauses.ts) to calls whose clause
// keywords are string literal arguments: JSON_EXISTS(j, p, onError), JSON_VALUE(j, p, NULL of the
// RETURNING type, onEmpty, emptyDefault, onError, errorDefault), JSON_QUERY(j, p, wrapper, onEmpty,
// onError), JSON_OBJECT(onNull, rawMarks, k, v, …), JSON_ARRAY(onNull, rawMarks, v, …), IS_JSON(s,
// type). Every call of these names comes through here, so a user cannot pass clause arguments directly.
import type * as ast from '../../grammar/ast.js'
import { literal, type Rex } from '../../core/rex.js'
import { formatType, isNumeric, T, withNullable, type DataType } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { castTo, resolveCall } from '../../expr/index.js'
import { canCast } from '../../expr/cast.js'
import { JSON_CLAUSE_FUNCTIONS as CLAUSE_FUNCTIONS } from '../../grammar/json-clauses.js'
import { typeFromAst } from './types.js'
import { mkCall } from '../../expr/registry.js'

export const JSON_CLAUSE_FUNCTIONS: ReadonlySet<string> = new Set([...CLAUSE_FUNCTIONS, 'IS_JSON'])

/** The DEFAULT expressions of a call's ON EMPTY / ON ERROR clauses (children of the call). */
export function jsonDefaults(e: ast.FunctionCall): ast.Expr[] {
  const out: ast.Expr[] = []
  if (e.json?.onEmpty?.default) out.push(e.json.onEmpty.default)
  if (e.json?.onError?.default) out.push(e.json.onError.default)
  return out
}

const word = (w: string): Rex => literal(w, T.string(false))

/** JSON_VALUE's RETURNING types: Flink's (its FLOAT aside, which Weir does not have). */
const VALUE_RETURNING = new Set(['STRING', 'BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'DOUBLE', 'DECIMAL'])

export function bindJsonCall(name: string, e: ast.FunctionCall, b: (x: ast.Expr) => Rex): Rex {
  const json = e.json
  const span = e.span
  const arity = (n: number, syntax: string) => {
    if (e.args.length !== n) throw WeirError.plan(`${name} takes ${n} argument${n === 1 ? '' : 's'} but was given ${e.args.length}`, { span, help: syntax })
  }
  switch (name) {
    case 'IS_JSON':
      if (json?.isJson === undefined) throw WeirError.plan(`unknown function 'IS_JSON'`, { span, help: 'write s IS JSON [VALUE | SCALAR | ARRAY | OBJECT]' })
      return resolveCall('IS_JSON', [b(e.args[0]!), word(json.isJson)], span)
    case 'JSON_EXISTS':
      arity(2, 'JSON_EXISTS(json, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])')
      return resolveCall(name, [...e.args.map(b), ...(json?.onError ? [word(json.onError.kind)] : [])], span)
    case 'JSON_VALUE': {
      arity(2, 'JSON_VALUE(json, path [RETURNING type] [… ON EMPTY] [… ON ERROR])')
      const type = json?.returning ? typeFromAst(json.returning) : T.string()
      if (!VALUE_RETURNING.has(type.kind)) {
        throw WeirError.plan(`JSON_VALUE cannot return ${formatType(type)}`, { span: json!.returning!.span,
          help: 'RETURNING takes STRING, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DOUBLE or DECIMAL(p, s)' })
      }
      if (json === undefined) return resolveCall(name, e.args.map(b), span)
      const behaviour = (x: ast.JsonBehavior | undefined, on: string): Rex[] => {
        if (x === undefined) return [word('NULL'), literal(null, withNullable(type, true))]
        if (x.default === undefined) return [word(x.kind), literal(null, withNullable(type, true))]
        return [word('DEFAULT'), defaultValue(b(x.default), type, on, x.default.span)]
      }
      return resolveCall(name, [...e.args.map(b), literal(null, withNullable(type, true)), ...behaviour(json.onEmpty, 'ON EMPTY'),
        ...behaviour(json.onError, 'ON ERROR')], span)
    }
    case 'JSON_QUERY': {
      arity(2, 'JSON_QUERY(json, path [RETURNING STRING | ARRAY<type>] [… WRAPPER] [… ON EMPTY] [… ON ERROR])')
      // RETURNING ARRAY<T> (Flink; T other than STRING since FLINK-40463): each element of the matched array as T, passed
      // on as the word 'ARRAY' (STRING) or 'ARRAY<INT>', 'ARRAY<DECIMAL(10, 2)>'; EMPTY OBJECT has no array meaning.
      let returning = 'STRING'
      if (json?.returning) {
        const type = typeFromAst(json.returning)
        if (type.kind === 'ARRAY' && VALUE_RETURNING.has(type.element.kind)) {
          const el = type.element
          returning = el.kind === 'STRING' ? 'ARRAY' : `ARRAY<${el.kind === 'DECIMAL' ? `DECIMAL(${el.precision}, ${el.scale})` : el.kind}>`
        } else if (type.kind !== 'STRING') {
          throw WeirError.unsupported(`JSON_QUERY … RETURNING ${formatType(type)} is not supported`, { span: json.returning.span,
            help: 'JSON_QUERY returns STRING or ARRAY<T>, T one of STRING, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DOUBLE, DECIMAL(p, s)' })
        }
      }
      if (returning.startsWith('ARRAY')) {
        for (const [x, on] of [[json?.onEmpty, 'empty'], [json?.onError, 'error']] as const) {
          if (x?.kind === 'EMPTY OBJECT') {
            throw WeirError.plan(
              `JSON_QUERY … RETURNING ${returning === 'ARRAY' ? 'ARRAY<STRING>' : returning} cannot take EMPTY OBJECT ON ${on.toUpperCase()}`,
              { span: x.span ?? span,
                help: `write NULL, EMPTY ARRAY or ERROR ON ${on.toUpperCase()} (as Flink: illegal on ${on} behavior for an ARRAY return type)` },
            )
          }
        }
      }
      if (json === undefined) return resolveCall(name, e.args.map(b), span)
      return resolveCall(name, [...e.args.map(b), word(json.wrapper ?? 'WITHOUT'), word(json.onEmpty?.kind ?? 'NULL'), word(json.onError?.kind ?? 'NULL'),
        word(returning)], span)
    }
    case 'JSON_OBJECT': {
      // Keys are non-NULL string literals (Flink's documented rule); values anything JSON can hold.
      for (let i = 0; i < e.args.length; i += 2) {
        const k = e.args[i]!
        if (k.kind !== 'Literal' || k.type !== 'string') {
          throw WeirError.plan('a JSON_OBJECT key must be a string literal', { span: k.span, help: "e.g. JSON_OBJECT('id' VALUE id)" })
        }
      }
      const values = e.args.filter((_, i) => i % 2 === 1)
      return resolveCall(name, [word(json?.onNull ?? 'NULL'), word(rawMarks(values)), ...e.args.map((x, i) => (i % 2 === 1 ? bindValue(x, b) : b(x)))], span)
    }
    case 'JSON_ARRAY':
      return resolveCall(name, [word(json?.onNull ?? 'ABSENT'), word(rawMarks(e.args)), ...e.args.map(x => bindValue(x, b))], span)
    default:
      throw WeirError.unsupported(`${name} is not supported yet`, { span, help: 'JSON_ARRAYAGG is; JSON_OBJECT builds an object per row' })
  }
}

/** True for a call of `names` written as a plain (unquoted) function name. */
function isCallOf(v: ast.Expr, names: readonly string[]): v is ast.FunctionCall {
  return v.kind === 'FunctionCall' && !v.name.quoted && names.includes(v.name.value.toUpperCase())
}

/** '1' for each value written as a JSON_OBJECT / JSON_ARRAY / JSON call: Flink inserts those as JSON, not as a string. */
function rawMarks(values: readonly ast.Expr[]): string {
  return values.map(v => (isCallOf(v, ['JSON_OBJECT', 'JSON_ARRAY', 'JSON']) ? '1' : '0')).join('')
}

/** A value of JSON_OBJECT / JSON_ARRAY: `JSON(s)` (JSON text inserted as JSON, the only place Flink allows it), or any expression. */
function bindValue(x: ast.Expr, b: (x: ast.Expr) => Rex): Rex {
  if (!isCallOf(x, ['JSON']) || x.json !== undefined || x.distinct || x.star) return b(x)
  if (x.args.length !== 1) throw WeirError.plan(`JSON takes 1 argument but was given ${x.args.length}`, { span: x.span, help: 'JSON(json text)' })
  let s = b(x.args[0]!)
  if (s.type.kind === 'NULL') s = castTo(s, T.string(), x.span)
  if (s.type.kind !== 'STRING') {
    throw WeirError.plan(`cannot apply 'JSON' to (${formatType(s.type)})`, { span: x.span, help: 'JSON takes the JSON text as a STRING' })
  }
  return mkCall('JSON', [s], T.string(true), x.span)
}

/**
 * A DEFAULT value as JSON_VALUE's RETURNING type, checked when planned: CAST to it (a literal that
 * does not convert is refused here), except that for STRING a number or boolean keeps its type and
 * becomes Java's String.valueOf text at run time (Flink's documented `DEFAULT FALSE` → "false").
 */
function defaultValue(rex: Rex, type: DataType, on: string, span: ast.Expr['span']): Rex {
  const t = rex.type
  if (t.kind === 'NULL') return literal(null, withNullable(type, true))
  if (type.kind === 'STRING' && (t.kind === 'BOOLEAN' || isNumeric(t))) return rex
  if (!canCast(t, type)) {
    throw WeirError.plan(`JSON_VALUE … RETURNING ${formatType(type)} cannot take DEFAULT of type ${formatType(withNullable(t, true))} ${on}`, {
      span,
      help: `give a DEFAULT value that converts to ${formatType(type)}`,
    })
  }
  return castTo(rex, withNullable(type, t.nullable), span)
}
