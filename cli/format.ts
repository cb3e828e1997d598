// Terminal rendering of statement results: tableau tables, changelog rows, plans.
import type { Field } from '../common/types.js'
import { formatValue } from '../common/values.js'
import { ROW_KIND_SHORT, type Row } from '../runtime/batch.js'

/** A boxed table as Flink's SQL client prints in tableau mode. */
export function renderTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map(r => (r[i] ?? '').length)))
  const sep = `+${widths.map(w => '-'.repeat(w + 2)).join('+')}+`
  const line = (cells: readonly string[]): string => `|${cells.map((c, i) => ` ${c.padStart(widths[i]!)} `).join('|')}|`
  const out = [sep, line(columns), sep, ...rows.map(line), sep]
  out.push(rows.length === 1 ? '1 row in set' : `${rows.length} rows in set`)
  return out.join('\n')
}

/** One changelog row as a table line with its op column (+I, -U, +U, -D). */
export function changeCells(schema: readonly Field[], kind: number, row: Row): string[] {
  return [ROW_KIND_SHORT[kind] ?? '?', ...schema.map((f, i) => formatValue(row[i], f.type, '<NULL>'))]
}
