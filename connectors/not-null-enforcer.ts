// Flink's NOT NULL enforcement at a sink ('table.exec.sink.not-null-enforcer'): a row with NULL in
// a column the sink table declares NOT NULL (a primary key column is) fails the job (ERROR, the
// default) or is dropped (DROP), before the sink sees it.
import { WeirError } from '../common/errors.js'
import type { Field } from '../common/types.js'
import type { Batch, Row } from '../core/batch.js'
import type { SinkWriter } from './api.js'
import { formatRow } from './print.js'
import type { JobConfig } from '../common/config/index.js'

const NOT_NULL_ENFORCER = 'table.exec.sink.not-null-enforcer'

/** What the enforcer needs of a sink: its table, columns and the NOT NULL columns the query may fill with NULL. */
export interface NotNullSink {
  readonly table: string
  readonly schema: readonly Field[]
  readonly notNull?: readonly number[]
}

/**
 * `writer`, checking every row for NULL in `sink.notNull` first (or `writer` itself when there is
 * nothing to check).
 *
 * @example enforceNotNull(await factory.sink.create(ctx), spec, graph.config.sinkNotNull)
 */
export function enforceNotNull(writer: SinkWriter, sink: NotNullSink, mode: JobConfig['sinkNotNull']): SinkWriter {
  const columns = sink.notNull ?? []
  if (columns.length === 0) return writer
  const drop = mode === 'drop'
  // A loop, not columns.find with a closure over the row: this runs for every row the sink gets.
  const nullAt = (row: Row): number => {
    for (let i = 0; i < columns.length; i++) {
      const v = row[columns[i]!]
      if (v === null || v === undefined) return columns[i]!
    }
    return -1
  }
  let passed = 0
  let dropped = 0
  const checked: SinkWriter = {
    write(batch: Batch) {
      const rows = batch.rows
      let first = -1
      for (let i = 0; i < rows.length && first === -1; i++) if (nullAt(rows[i]!) !== -1) first = i
      if (first === -1) {
        passed += rows.length
        return writer.write(batch)
      }
      if (!drop) throw violation(sink, rows[first]!, batch.kinds === null ? 0 : batch.kinds[first]!, nullAt(rows[first]!))
      const keep: Row[] = []
      const kinds: number[] = []
      for (let i = 0; i < rows.length; i++) {
        if (nullAt(rows[i]!) !== -1) continue
        keep.push(rows[i]!)
        if (batch.kinds !== null) kinds.push(batch.kinds[i]!)
      }
      passed += keep.length
      dropped += rows.length - keep.length
      return writer.write({ rows: keep, kinds: batch.kinds === null ? null : Uint8Array.from(kinds) })
    },
    finish: () => writer.finish(),
    close: () => writer.close(),
    // The job's counts of rows written and committed leave the dropped ones out.
    committedRows: () => writer.committedRows?.() ?? passed,
    droppedRows: () => dropped,
  }
  // Only transactional sinks have these; the runtime asks whether they exist.
  if (writer.prepareCommit !== undefined) checked.prepareCommit = id => writer.prepareCommit!(id)
  if (writer.commit !== undefined) checked.commit = id => writer.commit!(id)
  return checked
}

function violation(sink: NotNullSink, row: Row, kind: number, column: number): WeirError {
  const name = sink.schema[column]!.name
  return WeirError.execution(`column '${name}' of table '${sink.table}' is NOT NULL, but the query gave a row with NULL there`, {
    record: { source: `the rows written to table '${sink.table}'`, record: formatRow(row, kind, sink.schema) },
    help: `filter such rows out (WHERE ${name} IS NOT NULL) or give a default (COALESCE), or SET '${NOT_NULL_ENFORCER}' = 'DROP' to drop them`,
  })
}
