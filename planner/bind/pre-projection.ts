// The expressions a query computes before an aggregate (arguments, FILTER conditions, grouping
// keys), each once.
import type { Field } from '../../common/types.js'
import { withoutTimeAttr } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import { rexKey } from './expr-binder.js'

/** De-duplicated list of expressions computed before an aggregate. */
export class PreProjection {
  readonly exprs: Rex[] = []
  private readonly index = new Map<string, number>()

  add(rex: Rex): number {
    const key = rexKey(rex)
    const found = this.index.get(key)
    if (found !== undefined) return found
    this.exprs.push(rex)
    this.index.set(key, this.exprs.length - 1)
    return this.exprs.length - 1
  }

  fields(inputFields: readonly Field[]): Field[] {
    return this.exprs.map((r, i) => ({
      name: r.kind === 'Input' ? inputFields[r.index]!.name : `$f${i}`,
      type: withoutTimeAttr(r.type),
    }))
  }
}
