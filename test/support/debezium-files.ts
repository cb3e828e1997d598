// A filesystem sink's debezium-json output read back as the checkpoint/restore tests compare runs:
// the committed files' changes applied (an update's "before" retracted, its "after" added), each
// remaining row as JSON text, sorted.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { materialize } from '../oracle/oracle.js'

type Row = Record<string, unknown>

/** Committed files of the sink's folder (in-progress and hidden ones start with '.' or '_'). */
function committedFiles(dir: string): string[] {
  return readdirSync(dir).filter(f => !f.startsWith('.') && !f.startsWith('_')).sort()
}

/** The rows the committed changes of `dir` leave, as JSON text (after `normalize`, when given), sorted. */
export function debeziumRows(dir: string, normalize?: (row: Row) => Row): string[] {
  const changes: { kind: number; row: readonly string[] }[] = []
  for (const f of committedFiles(dir)) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (line === '') continue
      const e = JSON.parse(line) as { before: unknown; after: unknown; op: string }
      if (e.before !== null) changes.push({ kind: 3, row: [JSON.stringify(e.before)] })
      if (e.after !== null) changes.push({ kind: 0, row: [JSON.stringify(e.after)] })
    }
  }
  const rows = materialize(changes).map(r => r[0]!)
  return (normalize === undefined ? rows : rows.map(r => JSON.stringify(normalize(JSON.parse(r) as Row)))).sort()
}

/** Whether a committed file of `dir` holds any change yet. */
export function hasCommittedRows(dir: string): boolean {
  return committedFiles(dir).some(f => readFileSync(join(dir, f), 'utf8').length > 0)
}
