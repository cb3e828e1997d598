// State TTL on RocksDB, on disk: a stream of ever-new keys counted per key, driven through the backend
// as the runtime drives it (prefetch → update → cleanupExpired(3 per row + 64) → flush, batches of
// 1024) on a simulated clock of 50,000 keys/s, so the live set is the same on any machine. Prints, at
// 1M, 2M, 4M and 8M keys, live and stored entries and the state folder's size (SST files, WAL,
// RocksDB's info log, the rest: MANIFEST, OPTIONS, Weir's marker).
// Run on compiled output: `node dist/bench/state/ttl-folder.js [ttlMs=2000|none] [maxKeys=8000000]` (env: WEIR_WRITE_BUFFER_MB).
import { readdir, stat, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { valueState } from '../../core/keyed-state.js'
import { makeKey } from '../../state/key-encoding.js'
import { RocksDbKeyedStateBackend } from '../../state/rocksdb/index.js'

const MB = 2 ** 20
const BATCH = 1024
const RATE = 50_000
const ttlArg = process.argv[2] ?? '2000'
const ttlMs = ttlArg === 'none' ? 0 : Number(ttlArg)
const maxKeys = Number(process.argv[3] ?? 8_000_000)
const points = [1_000_000, 2_000_000, 4_000_000, 8_000_000, 16_000_000].filter(p => p <= maxKeys)

/** Bytes of the files in `dir` (recursively), split into SST files, write-ahead logs, RocksDB's info log (LOG) and the rest. */
async function folder(dir: string): Promise<{ sst: number; wal: number; log: number; other: number }> {
  const out = { sst: 0, wal: 0, log: 0, other: 0 }
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name)
    if (e.isDirectory()) {
      const sub = await folder(path)
      out.sst += sub.sst
      out.wal += sub.wal
      out.log += sub.log
      out.other += sub.other
      continue
    }
    const size = (await stat(path).catch(() => ({ size: 0 }))).size
    if (e.name.endsWith('.sst')) out.sst += size
    else if (e.name.endsWith('.log')) out.wal += size
    else if (e.name.startsWith('LOG')) out.log += size
    else out.other += size
  }
  return out
}

const root = await mkdtemp(join(tmpdir(), 'weir-ttl-folder-'))
try {
  const dir = join(root, 'op')
  const writeBufferBytes = process.env.WEIR_WRITE_BUFFER_MB ? Number(process.env.WEIR_WRITE_BUFFER_MB) * MB : undefined
  const b = await RocksDbKeyedStateBackend.open({ dir, jobName: 'bench', operatorId: 'op', writeBack: 'deferred', writeBufferBytes })
  const count = b.getValueState(valueState<number>('count', ttlMs > 0 ? { ttlMs, updateType: 'OnCreateAndWrite' } : undefined))
  const start = Date.now()
  const t0 = performance.now()
  let next = 0
  for (const point of points) {
    for (; next < point; next += BATCH) {
      const keys = Array.from({ length: BATCH }, (_, i) => makeKey([next + i]))
      await b.prefetch(keys.map(key => ({ key, namespace: '' })))
      b.setTtlTime(start + Math.floor((next * 1000) / RATE))
      for (const key of keys) {
        b.setCurrentKey(key)
        count.update((count.value() ?? 0) + 1)
      }
      if (ttlMs > 0) await b.cleanupExpired(3 * BATCH + 64)
      await b.flush()
    }
    const live = b.stats().entries
    const stored = await b.countEntries({ stored: true })
    const f = await folder(dir)
    process.stdout.write(JSON.stringify({
      keys: point,
      ttl: ttlMs > 0 ? `${ttlMs} ms` : 'none',
      live,
      stored,
      folderMb: +((f.sst + f.wal + f.log + f.other) / MB).toFixed(1),
      sstMb: +(f.sst / MB).toFixed(1),
      walMb: +(f.wal / MB).toFixed(1),
      infoLogMb: +(f.log / MB).toFixed(2),
      otherMb: +(f.other / MB).toFixed(2),
      seconds: +((performance.now() - t0) / 1000).toFixed(1),
    }) + '\n')
  }
  await b.destroy()
} finally {
  await rm(root, { recursive: true, force: true })
}
