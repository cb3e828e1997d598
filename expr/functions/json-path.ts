// SQL/JSON paths as Flink's JSON_EXISTS, JSON_VALUE and JSON_QUERY take them: an optional mode
// (`lax` or `strict`; none is strict), then `$` and steps: `.name`, `."name"`, `['name']`, `["name"]`
// (also after a dot, as in Flink's `$.["a.b"]`), `[n]` (negative from the end), `[n, m]`, `[*]`, `.*`
// and `..name` (every member of that name at any depth). A path with a wildcard, a list of indexes or
// `..` may match several values: its result is the list of them. In lax mode a step that does not
// apply (a member of an array, an index past the end) matches nothing; in strict mode it is an error.
import { type JsonValue } from './json-value.js'

type Step =
  | { readonly kind: 'member'; readonly name: string }
  | { readonly kind: 'index'; readonly at: readonly number[] }
  | { readonly kind: 'all' }
  | { readonly kind: 'deep'; readonly name: string }

export interface JsonPath {
  readonly strict: boolean
  readonly steps: readonly Step[]
  /** True when the path matches at most one value (no wildcard, index list or deep scan). */
  readonly definite: boolean
}

/** Thrown for a path that cannot be parsed (a literal path is refused where it is written). */
export class JsonPathError extends Error {}

/** Thrown when a strict path does not apply to the value (the functions' ON ERROR case). */
export class JsonPathMismatch extends Error {}

export function parseJsonPath(spec: string): JsonPath {
  const m = /^\s*(?:(lax|strict)\s+)?(.*?)\s*$/is.exec(spec)!
  const strict = m[1] === undefined || m[1].toLowerCase() === 'strict'
  const p = m[2]!
  if (p[0] !== '$') throw new JsonPathError(`a JSON path starts with '$' (after an optional 'lax' or 'strict'): '${spec}'`)
  const steps: Step[] = []
  let i = 1
  const fail = (what: string): never => {
    throw new JsonPathError(`${what} at character ${i + 1} of the JSON path '${p}'`)
  }
  const name = (): string => {
    const r = /[A-Za-z_$][\w$]*/y
    r.lastIndex = i
    const n = r.exec(p)
    if (n === null) return fail('expected a member name')
    i += n[0].length
    return n[0]
  }
  const quoted = (): string => {
    const q = p[i]!
    let out = ''
    i++
    while (i < p.length && p[i] !== q) {
      if (p[i] === '\\' && i + 1 < p.length) i++
      out += p[i++]
    }
    if (i >= p.length) fail('unterminated quoted name')
    i++
    return out
  }
  const bracket = (): Step => {
    i++
    while (p[i] === ' ') i++
    let step: Step
    if (p[i] === '*') {
      i++
      step = { kind: 'all' }
    } else if (p[i] === "'" || p[i] === '"') {
      step = { kind: 'member', name: quoted() }
    } else {
      const at: number[] = []
      for (;;) {
        while (p[i] === ' ') i++
        const r = /-?\d+/y
        r.lastIndex = i
        const n = r.exec(p)
        if (n === null) return fail('expected an index, a quoted name or *')
        at.push(Number(n[0]))
        i += n[0].length
        while (p[i] === ' ') i++
        if (p[i] !== ',') break
        i++
      }
      step = { kind: 'index', at }
    }
    while (p[i] === ' ') i++
    if (p[i] !== ']') fail(`expected ']'`)
    i++
    return step
  }
  while (i < p.length) {
    const c = p[i]
    if (c === '[') {
      steps.push(bracket())
    } else if (c === '.') {
      i++
      if (p[i] === '.') {
        i++
        steps.push({ kind: 'deep', name: p[i] === "'" || p[i] === '"' ? quoted() : name() })
      } else if (p[i] === '*') {
        i++
        steps.push({ kind: 'all' })
      } else if (p[i] === '[') {
        steps.push(bracket())
      } else if (p[i] === '"' || p[i] === "'") {
        steps.push({ kind: 'member', name: quoted() })
      } else {
        steps.push({ kind: 'member', name: name() })
      }
    } else {
      fail(`unexpected '${c}'`)
    }
  }
  const definite = steps.every(s => s.kind === 'member' || (s.kind === 'index' && s.at.length === 1))
  return { strict, steps, definite }
}

/** The values `path` matches in `root`, in document order. Throws JsonPathMismatch in strict mode. */
export function evalJsonPath(path: JsonPath, root: JsonValue): JsonValue[] {
  let current: JsonValue[] = [root]
  for (const step of path.steps) {
    const next: JsonValue[] = []
    for (const v of current) apply(step, v, next, path.strict)
    current = next
  }
  return current
}

function apply(step: Step, v: JsonValue, out: JsonValue[], strict: boolean): void {
  const mismatch = (what: string): void => {
    if (strict) throw new JsonPathMismatch(what)
  }
  switch (step.kind) {
    case 'member':
      if (v instanceof Map) {
        if (v.has(step.name)) out.push(v.get(step.name)!)
        else mismatch(`no member '${step.name}'`)
      } else {
        mismatch(`'${step.name}' of a value that is not an object`)
      }
      return
    case 'index':
      if (!Array.isArray(v)) return mismatch('an index into a value that is not an array')
      for (const at of step.at) {
        const j = at < 0 ? v.length + at : at
        if (j >= 0 && j < v.length) out.push(v[j]!)
        else mismatch(`index ${at} out of bounds`)
      }
      return
    case 'all':
      if (Array.isArray(v)) out.push(...v)
      else if (v instanceof Map) out.push(...v.values())
      else mismatch('a wildcard over a value that is neither an object nor an array')
      return
    case 'deep':
      deep(step.name, v, out)
      return
  }
}

function deep(name: string, v: JsonValue, out: JsonValue[]): void {
  if (v instanceof Map) {
    if (v.has(name)) out.push(v.get(name)!)
    for (const x of v.values()) deep(name, x, out)
  } else if (Array.isArray(v)) {
    for (const x of v) deep(name, x, out)
  }
}
