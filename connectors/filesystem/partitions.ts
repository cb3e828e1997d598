// PARTITIONED BY for filesystem tables, as Flink (and Hive) lay them out: a row of partition values
// (dt = 2024-05-01, hour = 7) lives in the folder `dt=2024-05-01/hour=7` under the table's path, and
// the files in it hold the other columns only. A NULL or empty value goes to the folder named by
// 'partition.default-name'. Folder names escape the characters a path cannot hold as %XX.
import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { DataType, Field } from '../../common/types.js'
import { formatValue } from '../../common/values.js'
import { fsError } from '../../common/fs-errors.js'
import type { Row } from '../../core/batch.js'
import { converterFor } from './convert.js'
import { ConvertError } from './convert-error.js'
import { WeirError } from '../../common/errors.js'

export const DEFAULT_PARTITION_NAME = '__DEFAULT_PARTITION__'

/** Characters escaped in a partition folder name (Hive's set): controls, path separators, and `"#%'*:=?[\]^{`. */
function mustEscape(code: number): boolean {
  return code < 0x20 || code === 0x7f || '"#%\'*/:=?[\\]^{'.includes(String.fromCharCode(code))
}

/** A name or value as a folder name part: `2024-05-01 07:00:00` → `2024-05-01 07%3A00%3A00`. */
export function escapePathName(s: string): string {
  let out = ''
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    out += mustEscape(c) ? '%' + c.toString(16).toUpperCase().padStart(2, '0') : s[i]
  }
  return out
}

/** The inverse of escapePathName; a `%` not followed by two hex digits stays as it is. */
export function unescapePathName(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
}

/** A partition value as folder text: as CAST(v AS STRING) gives it, booleans in lower case (as Flink writes them). */
export function partitionText(v: unknown, type: DataType): string | null {
  if (v === null || v === undefined) return null
  return type.kind === 'BOOLEAN' ? (v ? 'true' : 'false') : formatValue(v, type)
}

/** Where each partition column is in a row of `schema`, in PARTITIONED BY order. */
export function partitionIndexes(schema: readonly Field[], keys: readonly string[]): number[] {
  return keys.map(k => schema.findIndex(f => f.name === k))
}

/**
 * The folder (relative to the table's path) of a row's partition: `k1=v1/k2=v2`.
 *
 * @example partitionFolder(['2024-05-01', 7], …) // 'dt=2024-05-01/hour=7'
 */
export function partitionFolder(values: readonly unknown[], fields: readonly Field[], defaultName: string): string {
  let path = ''
  for (let i = 0; i < fields.length; i++) {
    const text = partitionText(values[i], fields[i]!.type)
    const part = text === null || text === '' ? defaultName : text
    path += `${i === 0 ? '' : '/'}${escapePathName(fields[i]!.name)}=${escapePathName(part)}`
  }
  return path
}

/** A folder's partition values as text, in PARTITIONED BY order (null: the default partition). */
export function parseFolder(folder: string, keys: readonly string[], defaultName: string): (string | null)[] | null {
  const parts = folder.split('/')
  if (parts.length !== keys.length) return null
  const values: (string | null)[] = []
  for (let i = 0; i < parts.length; i++) {
    const eq = parts[i]!.indexOf('=')
    if (eq < 0 || unescapePathName(parts[i]!.slice(0, eq)) !== keys[i]) return null
    const value = unescapePathName(parts[i]!.slice(eq + 1))
    values.push(value === defaultName ? null : value)
  }
  return values
}

/** Is `folder` (relative) a partition folder of these keys: `k1=…/k2=…`, escaped names? */
export function isPartitionFolder(folder: string, keys: readonly string[]): boolean {
  return parseFolder(folder, keys, DEFAULT_PARTITION_NAME) !== null
}

/**
 * The partition folders under `root` (relative paths, sorted): directories `k1=…` holding `k2=…` and
 * so on, one level per partition key. Hidden and '_'-prefixed entries are skipped, as are folders of
 * other names. A root that does not exist has none.
 */
export async function listPartitionFolders(root: string, keys: readonly string[], table: string): Promise<string[]> {
  let level = ['']
  for (const key of keys) {
    const next: string[] = []
    const prefix = escapePathName(key) + '='
    for (const folder of level) {
      const dir = folder === '' ? root : join(root, folder)
      let entries
      try {
        entries = await readdir(dir, { withFileTypes: true })
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (folder === '' && code === 'ENOENT') return []
        throw fsError(e, { kind: 'connector', op: 'list', path: dir, what: `table '${table}'`, setting: `the 'path' option of table '${table}'` })
      }
      for (const e of entries) {
        if (!e.name.startsWith(prefix)) continue
        const isDir = e.isDirectory() || (e.isSymbolicLink() && await stat(join(dir, e.name)).then(s => s.isDirectory(), () => false))
        if (isDir) next.push(folder === '' ? e.name : `${folder}/${e.name}`)
      }
    }
    level = next
  }
  return level.sort()
}

/** Converts a folder's partition texts to the columns' types; a text that is not one fails naming the folder. */
export function partitionRow(folder: string, texts: readonly (string | null)[], fields: readonly Field[], table: string): Row {
  return texts.map((t, i) => {
    if (t === null) return null
    const f = fields[i]!
    if (f.type.kind === 'STRING') return t
    try {
      return converterFor(f.type)(t)
    } catch (e) {
      if (!(e instanceof ConvertError)) throw e
      throw WeirError.connector(`partition folder '${folder}' of table '${table}' has '${t}' for column '${f.name}', which is not a ${e.expected}`, {
        help: `rename or remove the folder, or declare '${f.name}' as STRING`,
      })
    }
  })
}
