// Incremental RocksDB checkpoints at scale: ~1 GB of ValueState (4M keys × ~250 B, loaded through the
// backend's normal prefetch → update → flush path), a full checkpoint to file:// storage, ~1% of keys
// changed, an incremental one, then restores of the latest (same key groups, and half of them).
// Run on compiled output: `npx tsc -p . ; node dist/bench/checkpoint/incremental.js`
// (env: WEIR_KEYS (default 4000000), WEIR_VALUE_BYTES (250), WEIR_CHANGED (0.01), WEIR_BENCH_DIR (/tmp/weir-bench-checkpoint)).
import { createReadStream } from 'node:fs'
import { mkdir, rm, statfs } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { DEFAULT_GZIP_LEVEL, discardLocalSnapshot, restoreRocksDbSubtask, takeLocalSnapshot, uploadSnapshot, type LocalSnapshot, type RocksDbStateHandle,
  type StoredSst } from '../../state/rocksdb/snapshot.js'
import { FileCheckpointStorage } from '../../checkpoint/storage/file.js'
import { valueState, type PrefetchRequest } from '../../core/keyed-state.js'
import { makeKey } from '../../state/key-encoding.js'
import { RocksDbKeyedStateBackend } from '../../state/rocksdb/index.js'
import { seededRandom } from '../../common/random.js'

const MB = 2 ** 20
const GB = 2 ** 30
const BATCH = 1024
const ROOT = process.env.WEIR_BENCH_DIR ?? '/tmp/weir-bench-checkpoint'
const VALUE_BYTES = Number(process.env.WEIR_VALUE_BYTES ?? 250)
const CHANGED = Number(process.env.WEIR_CHANGED ?? 0.01)
let keys = Number(process.env.WEIR_KEYS ?? 4_000_000)

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
const FILLER = '{"status":"active","region":"eu-west-1","tags":["a","b","c"],"source":"nexmark"}'.repeat(8)

/** About VALUE_BYTES of text: half random characters, half a repeated record (state compresses in part). */
function valueOf(i: number, version: number, r: () => number): string {
  let s = `${i}:${version}:`
  const random = VALUE_BYTES >> 1
  for (let j = 0; j < random; j++) s += ALPHABET[Math.floor(r() * ALPHABET.length)]
  return s + FILLER.slice(0, Math.max(0, VALUE_BYTES - s.length))
}

const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`
const mb = (n: number): string => `${(n / MB).toFixed(1)} MB`
const rate = (bytes: number, ms: number): string => `${(bytes / MB / (ms / 1000)).toFixed(0)} MB/s`
const line = (label: string, text: string): void => console.log(`${label.padEnd(34)} ${text}`)

/** Writes `indexes`' values through prefetch → update → flush, in batches of 1024. */
async function write(b: RocksDbKeyedStateBackend, indexes: Iterable<number>, version: number, seed: number): Promise<number> {
  const v = b.getValueState(valueState<string>('v'))
  const r = seededRandom(seed)
  let batch: number[] = []
  let bytes = 0
  const run = async (): Promise<void> => {
    const refs = batch.map(i => makeKey(['user', i]))
    await b.prefetch(refs.map((key): PrefetchRequest => ({ key, namespace: '' })))
    for (let j = 0; j < refs.length; j++) {
      b.setCurrentKey(refs[j]!)
      const value = valueOf(batch[j]!, version, r)
      bytes += value.length
      v.update(value)
    }
    await b.flush()
    batch = []
  }
  for (const i of indexes) {
    batch.push(i)
    if (batch.length === BATCH) await run()
  }
  if (batch.length > 0) await run()
  await b.sync()
  return bytes
}

function* range(n: number): Iterable<number> {
  for (let i = 0; i < n; i++) yield i
}

/** gzip of up to `budget` bytes of the snapshot's SSTs at each level, twice in turn (best of two): speed of one stream, and ratio. */
async function compressionLevels(local: LocalSnapshot, budget: number): Promise<void> {
  const sample = [...local.files].filter(f => f.name.endsWith('.sst')).sort((a, b) => b.size - a.size)
  const files: typeof sample = []
  let total = 0
  for (const f of sample) {
    if (total >= budget) break
    files.push(f)
    total += f.size
  }
  const best = new Map<number, { ms: number; out: number }>()
  for (let round = 0; round < 2; round++) {
    for (const level of [1, 3, 6]) {
      let out = 0
      const t = performance.now()
      for (const f of files) {
        await pipeline(createReadStream(join(local.dir, f.name), { highWaterMark: MB }), createGzip({ level, chunkSize: 1 << 16 }), new Writable({
          write(chunk: Buffer, _enc, cb) {
            out += chunk.length
            cb()
          },
        }))
      }
      const ms = performance.now() - t
      if (ms < (best.get(level)?.ms ?? Infinity)) best.set(level, { ms, out })
    }
  }
  for (const [level, { ms, out }] of best) {
    line(`  gzip level ${level}`, `${rate(total, ms).padStart(9)} per stream, stored ${((100 * out) / total).toFixed(1)}% of ${mb(total)}`)
  }
}

async function checkpoint(label: string, b: RocksDbKeyedStateBackend, storage: FileCheckpointStorage, n: number,
  known: Map<string, StoredSst>): Promise<RocksDbStateHandle>
{
  const local = await takeLocalSnapshot(b, join(ROOT, 'local', `chk-${n}`))
  // The same synchronous phase right after, pausing RocksDB: suspend() first waits for a running compaction.
  const paused = await takeLocalSnapshot(b, join(ROOT, 'local', `chk-${n}-paused`), { pause: true })
  await discardLocalSnapshot(paused)
  const onDisk = local.files.reduce((a, f) => a + f.size, 0)
  const t = performance.now()
  const h = await uploadSnapshot(local, storage, { sharedPrefix: 'shared/', ownPrefix: `chk-${n}/op-0/rocksdb/`, selfContained: false }, known)
  const upload = performance.now() - t
  const ssts = h.files.filter(f => f.name.endsWith('.sst')).length
  const reused = h.files.length - h.uploaded.files
  console.log(`${label}:`)
  line('  sync phase (processing paused)',
    `${local.millis.toFixed(0)} ms  (write-back, memtable flush, ${local.files.length} links/copies; live files from the ${local.liveFilesFrom})`)
  line('  … the same, pausing RocksDB', `${paused.millis.toFixed(0)} ms`)
  line('  upload phase (in the background)',
    `${sec(upload)}  (${rate(h.uploaded.size, upload)} of raw bytes, gzip level ${DEFAULT_GZIP_LEVEL}, 4 files at a time)`)
  line('  bytes on disk (live files)', `${mb(onDisk)} in ${ssts} SSTs + ${h.files.length - ssts} others`)
  line('  bytes uploaded',
    `${mb(h.uploaded.size)} raw → ${mb(h.uploaded.storedSize)} stored (${
      ((100 * h.uploaded.storedSize) / Math.max(1, h.uploaded.size)).toFixed(1)
    }%), ${h.uploaded.files} files`)
  if (n > 1) line('', `${reused} SSTs referenced from earlier; new ones = the flushed changes + what compactions rewrote since`)
  return h
}

async function main(): Promise<void> {
  await rm(ROOT, { recursive: true, force: true })
  await mkdir(ROOT, { recursive: true })
  const fs = await statfs(ROOT)
  const free = fs.bavail * fs.bsize
  // State ~ keys × (value + key + overhead); a run needs the database, its stored copy and two restored copies.
  const need = (n: number): number => n * (VALUE_BYTES + 40) * 3.5
  if (need(keys) > free * 0.8) {
    const scaled = Math.floor((free * 0.8) / need(1))
    console.log(`only ${(free / GB).toFixed(1)} GB free under ${ROOT}: scaled down from ${keys} to ${scaled} keys`)
    keys = scaled
  }
  console.log(`state: ${keys} keys × ~${VALUE_BYTES} B values (ValueState), ${(free / GB).toFixed(0)} GB free under ${ROOT}; node ${process.version}`)
  // Other work on the machine shows in every figure: say how busy it was.
  console.log(`machine: ${cpus().length} CPUs, load average ${loadavg().map(l => l.toFixed(1)).join(' ')} at start`)
  const storage = new FileCheckpointStorage(join(ROOT, 'checkpoints'))
  const open = { jobName: 'bench', operatorId: 'op', cacheBytes: 64 * MB }
  const b = await RocksDbKeyedStateBackend.open({ ...open, dir: join(ROOT, 'state', 'op') })

  let t = performance.now()
  const loaded = await write(b, range(keys), 1, 7)
  const loadMs = performance.now() - t
  line('load (prefetch/update/flush path)',
    `${sec(loadMs)}  (${((keys / loadMs) * 1000 / 1000).toFixed(0)}k keys/s, ${mb(loaded)} of values); disk ${mb(await b.diskBytes())}`)

  const known = new Map<string, StoredSst>()
  await checkpoint('full checkpoint', b, storage, 1, known)

  const extra = await takeLocalSnapshot(b, join(ROOT, 'local', 'levels'))
  console.log('compression of the largest SSTs (one stream; uploads run 4 at a time):')
  await compressionLevels(extra, 256 * MB)
  await discardLocalSnapshot(extra)

  const r = seededRandom(11)
  const changed = new Set<number>()
  while (changed.size < Math.round(keys * CHANGED)) changed.add(Math.floor(r() * keys))
  t = performance.now()
  await write(b, [...changed].sort((x, y) => x - y), 2, 13)
  line(`change ${(CHANGED * 100).toFixed(0)}% of keys`, `${changed.size} keys in ${sec(performance.now() - t)}`)
  const latest = await checkpoint('incremental checkpoint', b, storage, 2, known)
  await b.close()

  for (const [label, range] of [['restore latest (same key groups)', { start: 0, end: 127 }], ['restore latest into key groups 0–63', { start: 0,
    end: 63 }]] as const)
  {
    t = performance.now()
    const restored = await restoreRocksDbSubtask({
      open: { ...open, dir: join(ROOT, 'state', `restored-${range.end}`) },
      range,
      handles: [latest],
      storage,
      tmpDir: join(ROOT, 'tmp'),
    })
    const ms = performance.now() - t
    const s = restored.stats
    line(label,
      `${sec(ms)}  (${s.mode}: ${s.files} files, ${mb(s.storedBytes)} downloaded, ${rate(latest.files.reduce((a, f) => a + f.size, 0), ms)} of database)`)
    // Spot check: the changed keys read back with their new value.
    const v = restored.backend.getValueState(valueState<string>('v'))
    const sample = [...changed].slice(0, 1000).map(i => makeKey(['user', i])).filter(k => k.group >= range.start && k.group <= range.end)
    await restored.backend.prefetch(sample.map(key => ({ key, namespace: '' })))
    for (const key of sample) {
      restored.backend.setCurrentKey(key)
      const value = v.value()
      if (value === undefined || !value.startsWith(`${key.values[1] as number}:2:`)) throw new Error(`key ${key.encoded} restored wrong: ${value}`)
    }
    t = performance.now()
    const entries = await restored.backend.countEntries()
    line('  count scan (not part of restore)', `${sec(performance.now() - t)} for ${entries} entries`)
    await restored.backend.destroy()
  }
  console.log(`load average ${loadavg().map(l => l.toFixed(1)).join(' ')} at the end`)
  await rm(ROOT, { recursive: true, force: true })
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
