// The columns of a table as a query sees them (physical, metadata and computed, the rowtime marked),
// bound once per catalog table.
import type { Field } from '../../common/types.js'
import type { Rex } from '../../core/rex.js'
import type { CatalogTable } from '../catalog.js'
import { Scope } from './scope.js'
import { bindExpr } from './expr-binder.js'

const tableFieldCache = new WeakMap<CatalogTable, { fields: Field[]; computed: (Rex | undefined)[] }>()

/**
 * The columns of a table as a query sees them: physical and computed, with the rowtime column
 * marked as a time attribute, and computed expressions bound over the physical columns.
 */
export function tableFields(table: CatalogTable): { fields: Field[]; computed: (Rex | undefined)[] } {
  const cached = tableFieldCache.get(table)
  if (cached) return cached
  const physical = table.columns.filter(c => c.kind !== 'computed')
  const physicalScope = Scope.of(physical.map(c => ({ name: c.name, type: c.type })))
  const fields: Field[] = []
  const computed: (Rex | undefined)[] = []
  for (const c of table.columns) {
    if (c.kind === 'computed') {
      const rex = bindExpr(c.expr!, { scope: physicalScope, clause: 'a computed column' })
      computed.push(rex)
      fields.push({ name: c.name, type: rex.type })
    } else {
      computed.push(undefined)
      fields.push({ name: c.name, type: c.type })
    }
  }
  if (table.watermark) {
    const i = fields.findIndex(f => f.name.toLowerCase() === table.watermark!.column.toLowerCase())
    const t = fields[i]!.type
    if (t.kind === 'TIMESTAMP' || t.kind === 'TIMESTAMP_LTZ') fields[i] = { name: fields[i]!.name, type: { ...t, timeAttr: 'rowtime' } }
  }
  const result = { fields, computed }
  tableFieldCache.set(table, result)
  return result
}
