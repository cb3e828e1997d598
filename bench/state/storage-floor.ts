// The storage floor of count-10M: the reads and writes the RocksDB backend issues for GROUP BY k over
// uniform random keys, issued straight to RocksDB with nothing of the engine around them. The same
// keys as bench/state/group-count.ts, the same stored keys and values, the same database options and
// the same batches: per 1024 events one MultiGet of the keys written before (an exact set, where the
// backend has a Bloom filter), read while the previous batch is processed, and one write batch of
// 1024 puts, applied while the next batch runs. No cache, no state handles, no rows: what is left is
// what RocksDB and its binding cost, the least any engine on them pays for this workload.
// Run on compiled output: `node dist/bench/state/storage-floor.js [events=20000000] [keys=10000000]`
// (env: WEIR_WRITE_BUFFER_MB; WEIR_READS=0 leaves the reads out, to split their cost from the writes').
import { readdirSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import RocksDB from 'rocksdb-native'
import type { KeyRef } from '../../core/keyed-state.js'
import { makeKey } from '../../state/key-encoding.js'
import { encodeEntryInPlace, entryScratch, namespaceBytes, writeCellKey } from '../../state/rocksdb/codec.js'
import { NativeReadBatch, NativeWriteBatch } from '../../state/rocksdb/native-batch.js'
import { databaseOptions } from '../../state/rocksdb/rocksdb-backend.js'
import { cpuSecondsByThreadName, PeakMemory, threadCpuSeconds } from '../measure.js'
import { seededRandom } from '../../common/random.js'

const MB = 2 ** 20
const BATCH = 1024
const STATE_ID = 1
const events = Number(process.argv[2] ?? 20_000_000)
const keys = Number(process.argv[3] ?? 10_000_000)
const reads = process.env.WEIR_READS !== '0'

/** Disk bytes of a folder's files (RocksDB's folder is flat). */
function folderBytes(dir: string): number {
  let n = 0
  for (const f of readdirSync(dir, { withFileTypes: true })) if (f.isFile()) n += statSync(join(dir, f.name)).size
  return n
}

const peak = new PeakMemory()
const root = await mkdtemp(join(tmpdir(), 'weir-storage-floor-'))
try {
  const dbDir = join(root, 'db')
  const writeBufferBytes = process.env.WEIR_WRITE_BUFFER_MB ? Number(process.env.WEIR_WRITE_BUFFER_MB) * MB : undefined
  const db = new RocksDB(dbDir, databaseOptions(writeBufferBytes))
  await db.ready()
  const ns = namespaceBytes('')
  const keyRng = seededRandom(1)
  const valueRng = seededRandom(2)
  // Per key: how many events it has had, and the running sum, as group-count's accumulator [count, count, sum].
  const counts = new Uint32Array(keys + 1)
  const sums = new Float64Array(keys + 1)
  const readBatches = [new NativeReadBatch(db), new NativeReadBatch(db)]
  const writeBatch = new NativeWriteBatch(db)
  const keyBuf = Buffer.alloc(1024)

  /** The next batch's keys (each encoded once, as the engine encodes a row's key), with a read of those written before started on `rb`. */
  const nextBatch = (done: number, rb: NativeReadBatch): { ids: number[]; keyRefs: KeyRef[]; read: Promise<unknown> } => {
    const ids: number[] = []
    const keyRefs: KeyRef[] = []
    for (let i = 0; i < Math.min(BATCH, events - done); i++) {
      const id = 1 + Math.floor(keyRng() * keys)
      const key = makeKey([id])
      ids.push(id)
      keyRefs.push(key)
      if (reads && counts[id]! > 0) rb.addBytes(keyBuf, writeCellKey(keyBuf, key.group, STATE_ID, key.encoded, ns))
    }
    return { ids, keyRefs, read: rb.read(false) }
  }

  let found = 0, readKeys = 0
  const cpu0 = process.cpuUsage()
  const main0 = threadCpuSeconds()!
  const t0 = performance.now()
  let batch = nextBatch(0, readBatches[0]!)
  let applying: Promise<void> = Promise.resolve()
  for (let done = 0, n = 0; done < events; done += BATCH, n++) {
    const values = await batch.read as (Buffer | null)[]
    readKeys += values.length
    for (const v of values) if (v !== null) found++
    const { ids, keyRefs } = batch
    if (done + BATCH < events) batch = nextBatch(done + BATCH, readBatches[(n + 1) & 1]!)
    await applying
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!, key = keyRefs[i]!
      const c = ++counts[id]!
      sums[id]! += Math.floor(valueRng() * 1000)
      const kn = writeCellKey(keyBuf, key.group, STATE_ID, key.encoded, ns)
      const vn = encodeEntryInPlace(null, [c, c, sums[id]!])
      writeBatch.putBytes(keyBuf, kn, entryScratch(), vn)
    }
    applying = writeBatch.apply()
  }
  await applying
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const mainCpu = threadCpuSeconds()! - main0
  peak.stop()
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  console.log(JSON.stringify({
    events,
    keys,
    reads,
    readKeys,
    found,
    eventsPerSecond: Math.round(events / (ms / 1000)),
    seconds: +(ms / 1000).toFixed(1),
    cpuSeconds: +cpuSeconds.toFixed(1),
    cpuMicrosPerEvent: +((cpuSeconds * 1e6) / events).toFixed(2),
    mainThreadCpuSeconds: +mainCpu.toFixed(1),
    peakRssMb: Math.round(peak.rss / MB),
    diskMb: +(folderBytes(dbDir) / MB).toFixed(1),
  }))
  console.log(JSON.stringify({ threadCpuSeconds: cpuSecondsByThreadName() }))
  await db.close()
} finally {
  peak.stop()
  await rm(root, { recursive: true, force: true })
}
