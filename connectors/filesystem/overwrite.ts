// INSERT OVERWRITE into a filesystem table: the files the table holds when the job starts (its
// visible files: not hidden, not '_'-prefixed, as the source reads them) are deleted when the job's
// rows become visible — at finish() without checkpoints, at the first commit with them — so the
// table then holds exactly what the query wrote (nothing, for a query without rows), as Flink's
// batch INSERT OVERWRITE of a table without partitions leaves it.
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { sinkFsError } from './part-file.js'

/** A name the table's readers see: not hidden and not '_'-prefixed (in-progress or metadata files), and a plain name in the folder. */
export function isVisibleName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && !name.startsWith('.') && !name.startsWith('_') && !/[/\\]/.test(name)
}

/** The visible regular files of the sink's folder, by name. */
export async function visibleFiles(dir: string, table: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e: unknown) => {
    throw sinkFsError(e, table, 'list', dir)
  })
  return entries.filter(e => (e.isFile() || e.isSymbolicLink()) && isVisibleName(e.name)).map(e => e.name).sort()
}

/** Deletes the replaced files; one already gone is fine (a commit done again on recovery). */
export async function removeReplaced(dir: string, names: readonly string[], table: string): Promise<void> {
  for (const name of names) {
    await rm(join(dir, name), { force: true }).catch((e: unknown) => {
      throw sinkFsError(e, table, 'delete', join(dir, name))
    })
  }
}
