// Terminal rendering of statement results: tableau tables (whole, or row by row as a SELECT
// produces them), changelog rows, plans, a job's failure.
import { formatValue, renderError, ROW_KIND_SHORT, WeirError, type DataType, type Field, type Row } from '../index.js'

/** A boxed table as Flink's SQL client prints in tableau mode; any number of rows. */
export function renderTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const out = tableLines(columns, rows)
  out.push(rows.length === 1 ? '1 row in set' : `${rows.length} rows in set`)
  return out.join('\n')
}

/** The lines of a boxed table, without the row count (the REPL's live view shows a window of a result). */
export function tableLines(columns: readonly string[], rows: readonly (readonly string[])[]): string[] {
  // Widths by a loop, not Math.max(...): spreading 130,000 rows overflows the call stack.
  const widths = columns.map(c => c.length)
  for (const r of rows) {
    for (let i = 0; i < widths.length; i++) {
      const len = (r[i] ?? '').length
      if (len > widths[i]!) widths[i] = len
    }
  }
  const sep = separator(widths)
  const out = [sep, line(columns, widths), sep]
  for (const r of rows) out.push(line(r, widths))
  out.push(sep)
  return out
}

function separator(widths: readonly number[]): string {
  return `+${widths.map(w => '-'.repeat(w + 2)).join('+')}+`
}

function line(cells: readonly string[], widths: readonly number[]): string {
  return `|${widths.map((w, i) => ` ${(cells[i] ?? '').padStart(w)} `).join('|')}|`
}

/** Widest a column of a streamed table gets (Flink's 'sql-client.display.max-column-width' default). */
const MAX_STREAMED_WIDTH = 30
const NULL_TEXT = '<NULL>'

/**
 * Tableau rows printed as they arrive, for a SELECT that may never end. Rows to come are unknown,
 * so widths come from the column types, as Flink's SQL client does in streaming mode, and longer
 * values are cut with '...'.
 *
 * @example
 * const t = new StreamingTable(schema, s => process.stdout.write(s))  // prints the header
 * t.rows(batch.rows, batch.kinds)
 * t.end()                                                           // the bottom line and the count
 */
export class StreamingTable {
  private readonly widths: number[]
  private count = 0

  constructor(private readonly schema: readonly Field[], private readonly write: (text: string) => void) {
    this.widths = [2, ...schema.map(f => Math.min(MAX_STREAMED_WIDTH, Math.max(f.name.length, typeWidth(f.type), NULL_TEXT.length)))]
    const sep = separator(this.widths)
    write([sep, line(['op', ...schema.map((f, i) => this.fit(f.name, i + 1))], this.widths), sep].join('\n') + '\n')
  }

  rows(rows: readonly Row[], kinds: Uint8Array | null): void {
    let text = ''
    for (let i = 0; i < rows.length; i++) {
      const cells = changeCells(this.schema, kinds === null ? 0 : kinds[i]!, rows[i]!)
      text += line(cells.map((c, j) => this.fit(c, j)), this.widths) + '\n'
    }
    this.count += rows.length
    if (text) this.write(text)
  }

  /** The bottom line and how many rows came. */
  end(): void {
    this.write(`${separator(this.widths)}\nReceived a total of ${this.count} ${this.count === 1 ? 'row' : 'rows'}\n`)
  }

  private fit(text: string, column: number): string {
    const w = this.widths[column]!
    return text.length <= w ? text : text.slice(0, w - 3) + '...'
  }
}

/** Characters a value of this type takes at most (a sign included); unknown sizes get the column maximum. */
function typeWidth(type: DataType): number {
  switch (type.kind) {
    case 'BOOLEAN':
      return 5
    case 'TINYINT':
      return 4
    case 'SMALLINT':
      return 6
    case 'INT':
      return 11
    case 'BIGINT':
      return 20
    case 'DECIMAL':
      return type.precision + 2
    case 'DATE':
      return 10
    case 'BYTES':
      return MAX_STREAMED_WIDTH
    case 'TIME':
      return 8 + (type.precision > 0 ? type.precision + 1 : 0)
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      return 19 + (type.precision > 0 ? type.precision + 1 : 0)
    case 'NULL':
      return NULL_TEXT.length
    default:
      return MAX_STREAMED_WIDTH
  }
}

/** "1 row", "1,234 rows". */
export function count(n: number, what: string): string {
  return `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`
}

/** One changelog row as a table line with its op column (+I, -U, +U, -D). */
export function changeCells(schema: readonly Field[], kind: number, row: Row): string[] {
  return [ROW_KIND_SHORT[kind] ?? '?', ...schema.map((f, i) => formatValue(row[i], f.type, NULL_TEXT))]
}

/** A job's failure with the job's name first, then where it happened (SQL, operator, row). */
export function renderJobFailure(job: string, error: unknown, sql: string, file: string): string {
  if (!(error instanceof WeirError)) return `error: job '${job}' failed\n${renderError(error, sql, file)}`
  const named = new WeirError(error.kind, `job '${job}' failed: ${error.message}`, {
    span: error.span,
    record: error.record,
    help: error.help,
    notes: error.notes,
    cause: error,
  })
  return renderError(named, sql, file)
}
