// Name resolution: the columns visible to an expression, with the table alias each came from.
import type * as ast from '../../grammar/ast.js'
import type { DataType } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { closest } from '../../common/names.js'

export interface ScopeField {
  readonly name: string
  /** The table alias or name the column is qualified by (lower-case), if any. */
  readonly qualifier?: string
  readonly type: DataType
  /** A column the planner added (a scalar subquery's value): `*` does not list it. */
  readonly hidden?: boolean
}

export class Scope {
  /** `subqueries`: the column holding each scalar subquery's value (planner/bind/subquery-binder.ts). */
  constructor(readonly fields: readonly ScopeField[], readonly subqueries?: ReadonlyMap<ast.Expr, number>) {}

  static of(fields: readonly { name: string; type: DataType }[], qualifier?: string): Scope {
    return new Scope(fields.map(f => ({ name: f.name, type: f.type, qualifier: qualifier?.toLowerCase() })))
  }

  /** Concatenation (joins); indexes of `other` follow this scope's. */
  concat(other: Scope): Scope {
    return new Scope([...this.fields, ...other.fields])
  }

  /** Column index for `t.col` or `col`; errors name the closest column. */
  resolve(ref: ast.QualifiedName): number {
    const parts = ref.parts
    const name = parts[parts.length - 1]!
    const qualifier = parts.length > 1 ? parts[parts.length - 2]!.value.toLowerCase() : undefined
    if (qualifier !== undefined && !this.fields.some(f => f.qualifier === qualifier)) {
      const quals = [...new Set(this.fields.map(f => f.qualifier).filter((q): q is string => q !== undefined))]
      const guess = closest(qualifier, quals)
      throw WeirError.plan(`table '${parts[parts.length - 2]!.value}' not found in FROM`, {
        span: parts[parts.length - 2]!.span,
        help: guess ? `did you mean '${guess}'?` : quals.length ? `tables in scope: ${quals.join(', ')}` : undefined,
      })
    }
    const matches: number[] = []
    this.fields.forEach((f, i) => {
      if (qualifier !== undefined && f.qualifier !== qualifier) return
      if (name.quoted ? f.name === name.value : f.name.toLowerCase() === name.value.toLowerCase()) matches.push(i)
    })
    if (matches.length === 1) return matches[0]!
    if (matches.length > 1) {
      const exact = matches.filter(i => this.fields[i]!.name === name.value)
      if (exact.length === 1 && qualifier === undefined && new Set(matches.map(i => this.fields[i]!.qualifier)).size === 1) return exact[0]!
      throw WeirError.plan(`column '${name.value}' is ambiguous`, {
        span: ref.span,
        help: `qualify it: ${matches.map(i => `${this.fields[i]!.qualifier ?? '?'}.${this.fields[i]!.name}`).join(' or ')}`,
      })
    }
    const candidates = this.fields.filter(f => qualifier === undefined || f.qualifier === qualifier).map(f => f.name)
    const guess = closest(name.value, candidates)
    throw WeirError.plan(`column '${name.value}' not found`, {
      span: ref.span,
      help: guess ? `did you mean '${guess}'?` : candidates.length ? `available columns: ${candidates.join(', ')}` : undefined,
    })
  }
}
