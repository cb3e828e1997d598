// Incremental RocksDB checkpoints against real RocksDB on disk and file:// checkpoint storage: local
// snapshot → upload of only the new SSTs → restore as of each snapshot, into the same parallelism or
// another one; damaged checkpoints; processing that goes on while an upload runs.
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WeirError } from '../../../common/errors.js'
import { checkpointDatabase, referencedObjects, restoreRocksDbSubtask, takeLocalSnapshot, uploadSnapshot, type KeyGroupRange, type LocalSnapshot,
  type RocksDbStateHandle, type StoredSst } from '../../../state/rocksdb/snapshot.js'
import { ManifestFormatError, readManifest, tableFileName } from '../../../state/rocksdb/manifest-reader.js'
import { FileCheckpointStorage } from '../../../checkpoint/storage/file.js'
import { listState, mapState, valueState, type KeyRef, type StateTtlConfig } from '../../../core/keyed-state.js'
import { keyGroupRange, makeKey } from '../../../state/key-encoding.js'
import { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'

const T0 = 1_700_000_000_000
const HOUR = 3_600_000
const TTL: StateTtlConfig = { ttlMs: HOUR, updateType: 'OnCreateAndWrite' }
const ALL: KeyGroupRange = { start: 0, end: 127 }
const KEYS = Array.from({ length: 2000 }, (_, i) => makeKey(['user', i]))
/** Keys only the second snapshot of the first test has. */
const EXTRA = Array.from({ length: 50 }, (_, i) => makeKey(['user', 2000 + i]))

let root = ''
let storage: FileCheckpointStorage
let opened: RocksDbKeyedStateBackend[] = []
let counter = 0

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'weir-rocks-chk-'))
  storage = new FileCheckpointStorage(join(root, 'checkpoints'))
})

afterEach(async () => {
  for (const b of opened.splice(0)) await b.destroy().catch(() => undefined)
  await rm(root, { recursive: true, force: true })
})

/** A backend in a fresh folder; small memtables, so a few thousand keys make several SST files. */
async function openBackend(range: KeyGroupRange = ALL): Promise<RocksDbKeyedStateBackend> {
  const b = await RocksDbKeyedStateBackend.open({
    dir: join(root, 'state', `op-${++counter}`),
    jobName: 'job',
    operatorId: 'op',
    keyGroupRange: range,
    writeBufferBytes: 64 << 10,
  })
  opened.push(b)
  return b
}

/** Value and map state with a TTL, a list without. */
function statesOf(b: RocksDbKeyedStateBackend) {
  return {
    v: b.getValueState(valueState<string>('v', TTL)),
    l: b.getListState(listState<number>('l')),
    m: b.getMapState(mapState<string, number>('m', TTL)),
  }
}

interface KeyState {
  v?: string
  l: number[]
  m: Record<string, number>
}
type Model = Map<string, KeyState>

/** Round `r` over keys [from, to): value ← `v<i>-r<r>`, list += r, map[r<r>] = i, and map[r<r-1>] removed for even keys. */
async function writeRound(b: RocksDbKeyedStateBackend, model: Model, r: number, from: number, to: number, keys = KEYS): Promise<void> {
  const s = statesOf(b)
  b.setTtlTime(T0)
  const mine = keys.slice(from, to).filter(k => k.group >= b.keyGroupRange.start && k.group <= b.keyGroupRange.end)
  for (let at = 0; at < mine.length; at += 256) {
    const batch = mine.slice(at, at + 256)
    await b.prefetch(batch.map(key => ({ key })))
    for (const key of batch) {
      const i = key.values[1] as number
      b.setCurrentKey(key)
      let m = model.get(key.encoded)
      if (m === undefined) model.set(key.encoded, m = { l: [], m: {} })
      s.v.update(m.v = `v${i}-r${r}`)
      s.l.add(r)
      m.l.push(r)
      s.m.put(`r${r}`, i)
      m.m[`r${r}`] = i
      if (i % 2 === 0 && r > 1) {
        s.m.remove(`r${r - 1}`)
        delete m.m[`r${r - 1}`]
      }
    }
    await b.flush()
  }
  await b.sync()
}

/** Every key's state as prefetch + synchronous calls see it at `now` (keys with no state left out). */
async function readAll(b: RocksDbKeyedStateBackend, keys: readonly KeyRef[], now = T0 + 10 * 60_000): Promise<Model> {
  const s = statesOf(b)
  b.setTtlTime(now)
  const out: Model = new Map()
  for (let at = 0; at < keys.length; at += 256) {
    const batch = keys.slice(at, at + 256)
    await b.prefetch(batch.map(key => ({ key })))
    for (const key of batch) {
      b.setCurrentKey(key)
      const state: KeyState = { l: [...s.l.get()], m: Object.fromEntries(s.m.entries()) }
      const v = s.v.value()
      if (v !== undefined) state.v = v
      if (v !== undefined || state.l.length > 0 || Object.keys(state.m).length > 0) out.set(key.encoded, state)
    }
    await b.flush()
  }
  return out
}

function only(model: Model, keys: readonly KeyRef[]): Model {
  const out: Model = new Map()
  for (const k of keys) {
    const s = model.get(k.encoded)
    if (s !== undefined) out.set(k.encoded, s)
  }
  return out
}

let snapshots = 0

async function local(b: RocksDbKeyedStateBackend, pause = false): Promise<LocalSnapshot> {
  return takeLocalSnapshot(b, join(root, 'local', `snap-${++snapshots}`), { pause })
}

async function checkpoint(b: RocksDbKeyedStateBackend, known: Map<string, StoredSst>, selfContained = false): Promise<RocksDbStateHandle> {
  const n = ++snapshots
  const l = await takeLocalSnapshot(b, join(root, 'local', `snap-${n}`))
  return uploadSnapshot(l, storage, { sharedPrefix: 'shared/', ownPrefix: `chk-${n}/op-${b.keyGroupRange.start}/rocksdb/`, selfContained }, known)
}

async function restore(handles: readonly RocksDbStateHandle[], range: KeyGroupRange = ALL, from: FileCheckpointStorage = storage) {
  const r = await restoreRocksDbSubtask({
    open: { dir: join(root, 'state', `restored-${++counter}`), jobName: 'job', operatorId: 'op', maxParallelism: 128 },
    // Both shapes a caller may pass: handles, or entries that hold one.
    range,
    handles: handles.map((handle, i) => (i % 2 === 0 ? { handle } : handle)),
    storage: from,
    tmpDir: join(root, 'tmp'),
  })
  opened.push(r.backend)
  return r
}

const sstsOf = (h: RocksDbStateHandle) => h.files.filter(f => f.name.endsWith('.sst'))
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)
const ownFiles = 3 // MANIFEST, CURRENT, OPTIONS

describe('RocksDB incremental checkpoints', () => {
  it('uploads only new SST files and restores exactly the state of each snapshot', async () => {
    const b = await openBackend()
    const model: Model = new Map()
    await writeRound(b, model, 1, 0, 2000)
    await b.compact()
    const known = new Map<string, StoredSst>()
    const h1 = await checkpoint(b, known)
    const model1 = structuredClone(model)
    expect(h1.uploaded.files).toBe(h1.files.length)
    expect(sstsOf(h1).length).toBeGreaterThan(0)
    expect([...known.keys()].sort()).toEqual(sstsOf(h1).map(f => f.name).sort())

    // A little more: one new SST at the next snapshot's flush, the compacted ones unchanged.
    await writeRound(b, model, 2, 0, 100)
    await writeRound(b, model, 2, 2000, 2050, [...KEYS, ...EXTRA])
    const h2 = await checkpoint(b, known)
    const model2 = structuredClone(model)

    const before = new Map(sstsOf(h1).map(f => [f.name, f]))
    const reused = sstsOf(h2).filter(f => before.get(f.name)?.object === f.object)
    const fresh = sstsOf(h2).filter(f => !before.has(f.name))
    expect(reused.length).toBeGreaterThan(0)
    expect(fresh.length).toBeGreaterThan(0)
    expect(reused.length + fresh.length).toBe(sstsOf(h2).length)
    const own = h2.files.filter(f => !f.shared)
    expect(own.map(f => f.name).sort()).toEqual(expect.arrayContaining(['CURRENT']))
    expect(own).toHaveLength(ownFiles)
    expect(h2.uploaded.files).toBe(fresh.length + ownFiles)
    expect(h2.uploaded.size).toBe(sum([...fresh, ...own].map(f => f.size)))
    expect(h2.uploaded.storedSize).toBe(sum([...fresh, ...own].map(f => f.storedSize)))
    expect(h2.uploaded.size).toBeLessThan(sum(h2.files.map(f => f.size)))
    // Each SST is stored once, under the shared prefix.
    const sharedObjects = new Set([...sstsOf(h1), ...sstsOf(h2)].map(f => f.object))
    expect(await storage.list('shared/')).toEqual([...sharedObjects].sort())
    expect(referencedObjects(h2)).toEqual(h2.files.map(f => f.object))
    expect(JSON.parse(JSON.stringify(h2))).toEqual(h2)

    const r1 = await restore([h1])
    expect(r1.stats.mode).toBe('files')
    // Restored ValueState entries are read although this backend never wrote them (no key filter).
    expect(await readAll(r1.backend, [...KEYS, ...EXTRA])).toEqual(model1)
    expect(await r1.backend.countEntries()).toBe(2000 * 3)
    const r2 = await restore([h2])
    expect(await readAll(r2.backend, [...KEYS, ...EXTRA])).toEqual(model2)
    expect(await r2.backend.countEntries()).toBe(2050 * 3 + 50) // odd keys below 100 keep map entry r1 beside r2
  })

  it('hides TTL-expired entries after a restore as before it', async () => {
    const b = await openBackend()
    const model: Model = new Map()
    await writeRound(b, model, 1, 0, 500)
    const h = await checkpoint(b, new Map())
    const r = await restore([h])
    const keys = KEYS.slice(0, 500)
    expect(await readAll(r.backend, keys)).toEqual(model)
    // Two hours on: value and map entries (1 h TTL) are gone, the list (no TTL) stays.
    const later = await readAll(r.backend, keys, T0 + 2 * HOUR)
    expect([...later.values()].every(s => s.v === undefined && Object.keys(s.m).length === 0 && s.l.length === 1)).toBe(true)
    expect(later.size).toBe(500)
  })

  it('continues incrementally from a restored checkpoint', async () => {
    const b = await openBackend()
    const model: Model = new Map()
    await writeRound(b, model, 1, 0, 2000)
    await b.compact()
    const h1 = await checkpoint(b, new Map())
    const r = await restore([h1])
    expect([...r.known.keys()].sort()).toEqual(sstsOf(h1).map(f => f.name).sort())
    await writeRound(r.backend, model, 2, 0, 100)
    const h2 = await checkpoint(r.backend, r.known)
    const fresh = sstsOf(h2).filter(f => !sstsOf(h1).some(o => o.object === f.object))
    expect(fresh.length).toBeGreaterThan(0)
    expect(fresh.length).toBeLessThan(sstsOf(h2).length)
    expect(h2.uploaded.files).toBe(fresh.length + ownFiles)
    const again = await restore([h2])
    expect(await readAll(again.backend, KEYS)).toEqual(model)
  })

  it('references the restored SSTs only in the storage they came from', async () => {
    const b = await openBackend()
    const model: Model = new Map()
    await writeRound(b, model, 1, 0, 2000)
    await b.compact()
    const into = (to: FileCheckpointStorage, checkpointId: number) => ({
      storage: to,
      ownPrefix: `chk-${checkpointId}/op/`,
      sharedPrefix: 'shared/',
      selfContained: false,
      checkpointId,
      tmpDir: async () => join(root, 'tmp'),
    })
    const h1 = await (await checkpointDatabase(b, into(storage, 1))).upload
    // Restored and checkpointed into the same storage: the SSTs are referenced, not stored again.
    const same = await restore([h1])
    const h2 = await (await checkpointDatabase(same.backend, into(storage, 2))).upload
    expect(h2.uploaded.files).toBe(ownFiles)
    // Into another job's storage (a run started --from-checkpoint): every SST is stored there, so
    // the first storage can go.
    const other = new FileCheckpointStorage(join(root, 'other-job'))
    const moved = await restore([h1])
    const h3 = await (await checkpointDatabase(moved.backend, into(other, 3))).upload
    expect(h3.uploaded.files).toBe(sstsOf(h1).length + ownFiles)
    await rm(join(root, 'checkpoints'), { recursive: true, force: true })
    const again = await restore([h3], ALL, other)
    expect(await readAll(again.backend, KEYS)).toEqual(model)
  })

  it.each([false, true])('snapshots only the live SST files, and the copy opens with every entry (pause: %s)', async pause => {
    const b = await openBackend()
    const model: Model = new Map()
    await writeRound(b, model, 1, 0, 2000)
    await writeRound(b, model, 2, 0, 2000)
    // Compaction makes the SSTs written so far obsolete (and deletes them); a stale SST that the
    // current version does not list stands in for one not deleted yet.
    await b.compact()
    const liveBefore = (await readdir(b.dbDir)).filter(n => n.endsWith('.sst'))
    await copyFile(join(b.dbDir, liveBefore[0]!), join(b.dbDir, '099999.sst'))
    const snap = await local(b, pause)
    expect(snap.liveFilesFrom).toBe('manifest')
    expect(snap.paused).toBe(pause)
    const ssts = snap.files.map(f => f.name).filter(n => n.endsWith('.sst'))
    expect(ssts).not.toContain('099999.sst')
    expect(await readdir(b.dbDir)).toContain('099999.sst')
    // What the snapshot's flush wrote is in it too.
    const inFolder = (await readdir(b.dbDir)).filter(n => n.endsWith('.sst') && n !== '099999.sst')
    expect(ssts.sort()).toEqual(inFolder.sort())
    expect(snap.files.map(f => f.name)).toEqual(
      expect.arrayContaining(['CURRENT', expect.stringMatching(/^MANIFEST-\d+$/), expect.stringMatching(/^OPTIONS-\d+$/)]),
    )

    const copy = await RocksDbKeyedStateBackend.open({
      dir: join(root, 'state', `from-local-${pause}`),
      jobName: 'job',
      operatorId: 'op',
      restoreFiles: async dbDir => {
        for (const f of snap.files) await copyFile(join(snap.dir, f.name), join(dbDir, f.name))
      },
    })
    opened.push(copy)
    expect(await readAll(copy, KEYS)).toEqual(model)
    expect(await copy.countEntries()).toBe(2000 * 3 + 1000)
  })

  it('takes consistent snapshots while background compactions rewrite the files', async () => {
    const b = await openBackend()
    const model: Model = new Map()
    const known = new Map<string, StoredSst>()
    for (let r = 1; r <= 4; r++) {
      // Tiny memtables: each round leaves several L0 files, and RocksDB compacts them in the background as the snapshot links.
      await writeRound(b, model, r, (r * 700) % 2000, (r * 700) % 2000 + 1200)
      const h = await checkpoint(b, known)
      const restored = await restore([h])
      expect(await readAll(restored.backend, KEYS)).toEqual(model)
      await restored.backend.destroy()
    }
  })

  it('keeps the uploaded snapshot as of the local snapshot while processing goes on', async () => {
    const b = await openBackend()
    const model: Model = new Map()
    await writeRound(b, model, 1, 0, 2000)
    const known = new Map<string, StoredSst>()
    const snap = await local(b)
    const expected = structuredClone(model)
    // Processing goes on before the upload starts: everything rewritten, the snapshot's SSTs compacted away.
    await writeRound(b, model, 2, 0, 2000)
    await b.compact()
    const uploading = uploadSnapshot(snap, storage, { sharedPrefix: 'shared/', ownPrefix: 'chk-1/op/rocksdb/', selfContained: false }, known)
    // … and while it runs.
    await writeRound(b, model, 3, 0, 1000)
    await b.compact()
    const h = await uploading
    await expect(readdir(snap.dir)).rejects.toThrow() // the local snapshot is gone
    const r = await restore([h])
    expect(await readAll(r.backend, KEYS)).toEqual(expected)
    expect(await readAll(b, KEYS)).toEqual(model)
  })

  it('stores a savepoint self-contained and leaves the known SSTs alone', async () => {
    const b = await openBackend()
    const model: Model = new Map()
    await writeRound(b, model, 1, 0, 1000)
    const known = new Map<string, StoredSst>()
    const h1 = await checkpoint(b, known)
    const knownBefore = new Map(known)
    const sp = await checkpoint(b, known, true)
    expect(known).toEqual(knownBefore)
    expect(sp.selfContained).toBe(true)
    expect(sp.files.every(f => !f.shared && f.object.startsWith(`chk-${snapshots}/`))).toBe(true)
    expect(sp.uploaded.files).toBe(sp.files.length)
    expect(sp.files.filter(f => f.name.endsWith('.sst')).map(f => f.name).sort()).toEqual(sstsOf(h1).map(f => f.name).sort())
    const r = await restore([sp])
    expect(r.known.size).toBe(0) // a savepoint's files are not for later checkpoints to reference
    expect(await readAll(r.backend, KEYS)).toEqual(model)
  })

  describe.each([[1, 2], [4, 2], [2, 3]])('from %i subtasks into %i', (from, to) => {
    it('puts every key exactly once, in the subtask that owns its group', async () => {
      const model: Model = new Map()
      const handles: RocksDbStateHandle[] = []
      for (let i = 0; i < from; i++) {
        const b = await openBackend(keyGroupRange(i, from))
        await writeRound(b, model, 1, 0, 2000)
        handles.push(await checkpoint(b, new Map()))
      }
      expect(model.size).toBe(2000)
      let total = 0
      for (let j = 0; j < to; j++) {
        const range = keyGroupRange(j, to)
        const r = await restore(handles, range)
        expect(r.stats.mode).toBe('rescaled')
        expect(r.stats.copiedEntries > 0).toBe(r.stats.handles > 1)
        expect(r.backend.stats().entries).toBeGreaterThan(0) // estimated from the handles, not counted
        const owned = KEYS.filter(k => k.group >= range.start && k.group <= range.end)
        expect(await readAll(r.backend, owned)).toEqual(only(model, owned))
        expect(await r.backend.countEntries()).toBe(owned.length * 3)
        // Nothing of other key groups is left in the database: read it again over every key group.
        const dir = r.backend.dir
        await r.backend.close()
        opened = opened.filter(x => x !== r.backend)
        const whole = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op', reuse: true })
        opened.push(whole)
        expect(await whole.countEntries()).toBe(owned.length * 3)
        total += owned.length
      }
      expect(total).toBe(2000)
      expect(await readdir(join(root, 'tmp')).catch(() => [])).toEqual([])
    })
  })

  it('refuses handles that leave key groups uncovered', async () => {
    const b = await openBackend(keyGroupRange(0, 2))
    await writeRound(b, new Map(), 1, 0, 100)
    const h = await checkpoint(b, new Map())
    const err = await restore([h], ALL).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(WeirError)
    expect((err as WeirError).kind).toBe('checkpoint')
    expect((err as WeirError).message).toContain('key groups 64–127')
  })

  it('names a corrupt or missing object in the error, and leaves no folder behind', async () => {
    const b = await openBackend()
    await writeRound(b, new Map(), 1, 0, 1000)
    const h = await checkpoint(b, new Map())
    const sst = sstsOf(h)[0]!
    const good = await storage.get(sst.object)

    const damaged = Buffer.from(good)
    damaged[damaged.length >> 1]! ^= 0xff
    await storage.put(sst.object, damaged)
    const corrupt = await restore([h]).catch((e: unknown) => e) as WeirError
    expect(corrupt).toBeInstanceOf(WeirError)
    expect(corrupt.kind).toBe('checkpoint')
    expect(corrupt.message).toContain(sst.object)
    expect(corrupt.message).toMatch(/corrupt/)
    expect(corrupt.help).toMatch(/another checkpoint/)

    await storage.delete([sst.object])
    const missing = await restore([h]).catch((e: unknown) => e) as WeirError
    expect(missing).toBeInstanceOf(WeirError)
    expect(missing.kind).toBe('checkpoint')
    expect(missing.message).toContain(sst.object)
    expect(missing.message).toMatch(/missing/)
    // Through the rescaling path too, and nothing is left in the temporary folder.
    const viaRescale = await restore([h], keyGroupRange(0, 2)).catch((e: unknown) => e) as WeirError
    expect(viaRescale.message).toContain(sst.object)
    expect((await readdir(join(root, 'state'))).filter(n => n.startsWith('restored-'))).toEqual([])
    expect(await readdir(join(root, 'tmp')).catch(() => [])).toEqual([])

    // A byte-for-byte copy of the object makes it whole again.
    await storage.put(sst.object, good)
    const r = await restore([h])
    expect(await r.backend.countEntries()).toBe(1000 * 3)
  })

  it('reads the live SSTs from a MANIFEST, and stops at a torn last record', async () => {
    const b = await openBackend()
    await writeRound(b, new Map(), 1, 0, 2000)
    await b.compact()
    await writeRound(b, new Map(), 2, 0, 10)
    const snap = await local(b) // flushes: the MANIFEST now lists the compacted SSTs and the new one
    const manifest = await readFile(join(snap.dir, snap.files.find(f => f.name.startsWith('MANIFEST-'))!.name))
    const live = readManifest(manifest)
    expect(live.validLength).toBe(manifest.length)
    expect(live.tableFiles.map(tableFileName).sort()).toEqual(snap.files.map(f => f.name).filter(n => n.endsWith('.sst')).sort())
    const torn = readManifest(manifest.subarray(0, manifest.length - 3))
    expect(torn.validLength).toBeLessThan(manifest.length - 3)
    expect(readManifest(manifest.subarray(0, torn.validLength))).toEqual(torn)
    // A damaged record before the last one is not a torn write: the caller falls back to listing the folder.
    const damaged = Buffer.from(manifest)
    damaged[10]! ^= 0xff
    expect(() => readManifest(damaged)).toThrow(ManifestFormatError)
  })
})
