// State operations per second of the RocksDB backend driven as the runtime drives it (prefetch →
// synchronous calls → flush, batches of 1024): a hot key set, 2M keys through a small cache, and
// MapState against ValueState<Map>. Run on compiled output: `npx tsc -p . ; node dist/bench/state/rocksdb-speed.js [hot|many|map]`
// (env: WEIR_WRITE_BUFFER_MB, WEIR_USERS, WEIR_PRODUCTS, WEIR_MAP_CACHE_MB).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mapState, valueState, type KeyedStateBackend, type KeyRef, type PrefetchRequest } from '../../core/keyed-state.js'
import { HeapKeyedStateBackend } from '../../state/heap/heap-backend.js'
import { makeKey } from '../../state/key-encoding.js'
import { RocksDbKeyedStateBackend } from '../../state/rocksdb/index.js'
import { seededRandom } from '../../common/random.js'

const BATCH = 1024
const MB = 2 ** 20
const only = process.argv[2]

let root = ''
let opened = 0

const writeBufferBytes = process.env.WEIR_WRITE_BUFFER_MB ? Number(process.env.WEIR_WRITE_BUFFER_MB) * MB : undefined

async function rocks(cacheBytes: number, writeBack: 'bundle' | 'deferred' = 'bundle'): Promise<RocksDbKeyedStateBackend> {
  const id = `op-${++opened}`
  return RocksDbKeyedStateBackend.open({ dir: join(root, 'bench', id), jobName: 'bench', operatorId: id, cacheBytes, writeBufferBytes, writeBack })
}

interface Phases {
  prefetch: number
  process: number
  flush: number
}

interface Result {
  readonly name: string
  readonly events: number
  readonly ms: number
  /** State calls (value()+update() per event for the counters, get()+put() for the maps). */
  readonly ops: number
  readonly bytesWritten: number
  readonly phases: Phases
  readonly note?: string
}

const results: Result[] = []

function report(r: Result): void {
  results.push(r)
  const s = r.ms / 1000
  const p = r.phases
  console.log(
    `${r.name.padEnd(50)} ${fmt(r.events / s).padStart(9)} events/s ${fmt(r.ops / s).padStart(9)} ops/s ` +
      `${fmtBytes(r.bytesWritten).padStart(9)} written (${fmtBytes(r.bytesWritten / r.events)}/event)  ` +
      `prefetch ${pct(p.prefetch, r.ms)} process ${pct(p.process, r.ms)} flush ${pct(p.flush, r.ms)}${r.note ? '  ' + r.note : ''}`,
  )
}

const fmt = (n: number): string => n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0)
const fmtBytes = (n: number): string => n >= MB ? `${(n / MB).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n.toFixed(0)} B`
const pct = (part: number, all: number): string => `${Math.round((100 * part) / all)}%`

/**
 * The group-count workload: per event, count.value() then count.update(+1) for its key, in batches
 * of 1024 keys that go through prefetch → calls → flush.
 */
async function groupCount(name: string, b: KeyedStateBackend, batches: number, keyOf: (r: () => number) => KeyRef, seed = 42): Promise<Result> {
  const count = b.getValueState(valueState<number>('count'))
  const r = seededRandom(seed)
  const phases: Phases = { prefetch: 0, process: 0, flush: 0 }
  const before = b.stats().bytesWritten ?? 0
  const keys: KeyRef[] = new Array(BATCH)
  const requests: PrefetchRequest[] = new Array(BATCH)
  const t0 = performance.now()
  for (let i = 0; i < batches; i++) {
    for (let j = 0; j < BATCH; j++) {
      keys[j] = keyOf(r)
      requests[j] = { key: keys[j]!, namespace: '' }
    }
    const t1 = performance.now()
    if (b.needsPrefetch) await b.prefetch(requests)
    const t2 = performance.now()
    for (let j = 0; j < BATCH; j++) {
      b.setCurrentKey(keys[j]!)
      count.update((count.value() ?? 0) + 1)
    }
    const t3 = performance.now()
    if (b.needsPrefetch) await b.flush()
    const t4 = performance.now()
    phases.prefetch += t2 - t1
    phases.process += t3 - t2
    phases.flush += t4 - t3
  }
  const ms = performance.now() - t0
  return { name, events: batches * BATCH, ms, ops: 2 * batches * BATCH, bytesWritten: (b.stats().bytesWritten ?? 0) - before, phases }
}

async function hotSet(): Promise<void> {
  const keys = Array.from({ length: 10_000 }, (_, i) => makeKey([`user-${i}`]))
  const pick = (r: () => number): KeyRef => keys[Math.floor(r() * keys.length)]!
  const heap = new HeapKeyedStateBackend()
  await groupCount('warm-up', heap, 50, pick)
  report(await groupCount('hot set: 10k keys, heap backend (reference)', heap, 1000, pick))
  for (const writeBack of ['bundle', 'deferred'] as const) {
    const b = await rocks(64 * MB, writeBack)
    await groupCount('warm-up', b, 50, pick, 7)
    await b.sync()
    const before = b.stats().bytesWritten!
    const r = await groupCount(`hot set: 10k keys, RocksDB, 64 MB cache, ${writeBack === 'bundle' ? 'writes every bundle' : 'deferred write-back'}`, b, 1000,
      pick)
    // Until everything is on disk: the last write in flight, or all that deferred write-back held.
    const t = performance.now()
    await b.sync()
    report({ ...r, ms: r.ms + performance.now() - t, bytesWritten: b.stats().bytesWritten! - before, note: '(incl. the final sync)' })
    await b.destroy()
  }
}

async function manyKeys(): Promise<void> {
  const N = 2_000_000
  for (const cacheMb of [1, 8]) {
    const b = await rocks(cacheMb * MB)
    // Load every key once, in order (as a first pass over the data would), then draw uniformly.
    let next = 0
    const load = await groupCount(`load: 2M keys in order, ${cacheMb} MB cache`, b, Math.ceil(N / BATCH), () => makeKey([`user-${next++ % N}`]))
    report(load)
    report(await groupCount(`2M keys uniform, RocksDB, ${cacheMb} MB cache`, b, 500, r => makeKey([`user-${Math.floor(r() * N)}`])))
    const c = b.cacheStats()
    console.log(`   cache: ${c.slots} slots, ${fmtBytes(c.bytes)}; disk ${fmtBytes(await b.diskBytes())}`)
    await b.destroy()
  }
}

/** Per user thousands of products, one increment per event: MapState<product, count> vs ValueState<Map<product, count>>. */
async function mapVsValue(): Promise<void> {
  const USERS = Number(process.env.WEIR_USERS ?? 1000), PRODUCTS = Number(process.env.WEIR_PRODUCTS ?? 3000), EVENTS = 100 * BATCH
  const users = Array.from({ length: USERS }, (_, i) => makeKey([i]))
  for (const shape of ['MapState<product, count>', 'ValueState<Map<product, count>>'] as const) {
    // A cache that holds every map, so both shapes read nothing during the run: the difference is the writes.
    const b = await rocks(Number(process.env.WEIR_MAP_CACHE_MB ?? 512) * MB)
    const m = b.getMapState(mapState<number, number>('counts'))
    const v = b.getValueState(valueState<Map<number, number>>('counts-map'))
    const increment = shape === 'MapState<product, count>'
      ? (p: number): void => m.put(p, (m.get(p) ?? 0) + 1)
      : (p: number): void => {
        const map = v.value() ?? new Map<number, number>()
        map.set(p, (map.get(p) ?? 0) + 1)
        v.update(map)
      }
    // Every user starts with every product counted once.
    await b.prefetch(users.map(key => ({ key, namespace: '' })))
    for (const key of users) {
      b.setCurrentKey(key)
      for (let p = 0; p < PRODUCTS; p++) increment(p)
    }
    await b.compact() // so the run does not pay for compacting what the set-up loaded
    const r = seededRandom(99)
    const phases: Phases = { prefetch: 0, process: 0, flush: 0 }
    const before = b.stats().bytesWritten!
    const t0 = performance.now()
    for (let i = 0; i < EVENTS / BATCH; i++) {
      const batch = Array.from({ length: BATCH }, () => [users[Math.floor(r() * USERS)]!, Math.floor(r() * PRODUCTS)] as const)
      const t1 = performance.now()
      await b.prefetch(batch.map(([key]) => ({ key, namespace: '' })))
      const t2 = performance.now()
      for (const [key, p] of batch) {
        b.setCurrentKey(key)
        increment(p)
      }
      const t3 = performance.now()
      await b.flush()
      const t4 = performance.now()
      phases.prefetch += t2 - t1
      phases.process += t3 - t2
      phases.flush += t4 - t3
    }
    const ms = performance.now() - t0
    report({ name: `${USERS} users × ${PRODUCTS} products: ${shape}`, events: EVENTS, ms, ops: 2 * EVENTS, bytesWritten: b.stats().bytesWritten! - before,
      phases })
    await b.destroy()
  }
  const [ms, vs] = results.slice(-2) as [Result, Result]
  console.log(
    `   MapState vs ValueState<Map>: ${((ms.events / ms.ms) / (vs.events / vs.ms)).toFixed(0)}× events/s, ${
      (vs.bytesWritten / ms.bytesWritten).toFixed(0)
    }× fewer bytes written`,
  )
}

async function main(): Promise<void> {
  root = await mkdtemp(join(tmpdir(), 'weir-bench-'))
  try {
    if (!only || only === 'hot') await hotSet()
    if (!only || only === 'many') await manyKeys()
    if (!only || only === 'map') await mapVsValue()
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

await main()
