// 'state.backend.rocksdb.writebuffer.size' reaches the RocksDB database of every RocksDB-backed
// operator: read back from the OPTIONS file RocksDB writes into the working folder while the job runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-rocksdb-options-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

/** Every `write_buffer_size` in the OPTIONS files under `dir`. */
function writeBufferSizes(dir: string): number[] {
  const out: number[] = []
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!/(^|\/)OPTIONS-\d+$/.test(f)) continue
    const m = /^\s*write_buffer_size=(\d+)\s*$/m.exec(readFileSync(join(dir, f), 'utf8'))
    if (m) out.push(Number(m[1]))
  }
  return out
}

/** Runs an endless GROUP BY until the databases of its `subtasks` are open, and returns the memtable sizes RocksDB was given. */
async function memtableOf(options: Record<string, string>, subtasks = 1): Promise<number[]> {
  const dir = mkdtempSync(join(root, 'state-'))
  const stop = new AbortController()
  const session = new Session({ println: () => undefined, signal: stop.signal, options: { 'state.backend': 'rocksdb', 'state.dir': dir, ...options } })
  await session.executeSql(`
    CREATE TABLE ev (k BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'fields.k.min' = '1', 'fields.k.max' = '100');
    CREATE TABLE sink (k BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
    INSERT INTO sink SELECT k, COUNT(*) FROM ev GROUP BY k;`)
  let sizes: number[] = []
  // Until every database is open, however long a loaded host takes (the test's timeout bounds it).
  while (sizes.length < subtasks) {
    await new Promise(resolve => setTimeout(resolve, 25))
    sizes = writeBufferSizes(dir)
  }
  stop.abort()
  await session.awaitJobs().catch(() => undefined)
  return sizes
}

describe("'state.backend.rocksdb.writebuffer.size'", () => {
  it('sets the memtable size of each RocksDB-backed operator, 64 MB by default', async () => {
    expect(await memtableOf({})).toEqual([64 * 2 ** 20])
    expect(await memtableOf({ 'state.backend.rocksdb.writebuffer.size': '1 mb', 'parallelism.default': '2' }, 2)).toEqual([2 ** 20, 2 ** 20])
  })

  it('rejects a size RocksDB would not take, at the SET', async () => {
    const session = new Session({ println: () => undefined })
    const e = await session.executeSql(`SET 'state.backend.rocksdb.writebuffer.size' = '4 kb'`).then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(WeirError)
    expect((e as WeirError).message).toBe("invalid value '4 kb' for option 'state.backend.rocksdb.writebuffer.size': a memtable takes at least 64 kb")
    expect((e as WeirError).span?.start).toMatchObject({ line: 1, column: 1 })
    const bad = await session.executeSql(`SET 'state.backend.rocksdb.writebuffer.size' = 'big'`).then(() => undefined, (x: unknown) => x)
    expect((bad as WeirError).message).toContain("expected a size such as '64 mb'")
  })
})
