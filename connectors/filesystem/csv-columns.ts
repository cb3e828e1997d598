// The csv format has no spelling for nested values (Flink's csv format reads and writes ROW, ARRAY
// and MAP only with schema-specific escapes Weir does not implement): such a column is refused when
// the table is planned, naming the column, rather than failing on the first row.
import { WeirError } from '../../common/errors.js'
import { formatType, isNested, type Field } from '../../common/types.js'

/** Throws for a csv table with a ROW, ARRAY or MAP column. */
export function checkCsvColumns(format: string, schema: readonly Field[] | undefined): void {
  if (format !== 'csv' || schema === undefined) return
  const bad = schema.find(f => isNested(f.type))
  if (bad === undefined) return
  throw WeirError.connector(`column '${bad.name}' is ${formatType(bad.type)}: the csv format cannot hold ROW, ARRAY or MAP values`, {
    help: "use 'format' = 'json', or a column of type STRING holding the value's text",
  })
}
