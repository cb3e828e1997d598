// Incremental checkpoints of the heap backend, on real checkpoint storage: a checkpoint after a few
// changes stores only those (puts, deletes, TTL expiry), restores equal the live state at the same
// and at other key-group ranges, chains stay bounded, savepoints are self-contained, and handles of
// older Weir (one object of all entries) still restore.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeObject, putObject } from '../../checkpoint/objects.js'
import { openCheckpointStorage } from '../../checkpoint/storage/index.js'
import type { CheckpointStorage } from '../../checkpoint/storage/api.js'
import { jobConfigOf } from '../../common/config/index.js'
import { listState, mapState, valueState } from '../../core/keyed-state.js'
import type { KeyGroupRange, SubtaskStateOptions } from '../../state/backend.js'
import { heapStateBackend, type HeapChainedHandle, type HeapStateHandle } from '../../state/heap/factory.js'
import { HeapKeyedStateBackend } from '../../state/heap/heap-backend.js'
import { MAX_DELTAS } from '../../state/heap/incremental.js'
import { makeKey } from '../../state/key-encoding.js'
import { startS3Bucket, type S3Bucket } from '../support/s3-server.js'

const KEYS = 2000
const TTL = { ttlMs: 10_000, updateType: 'OnCreateAndWrite' as const }

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weir-heap-incr-'))
})
afterAll(() => {
  rmSync(root, { recursive: true, force: true })
})

function subtask(range: KeyGroupRange = { start: 0, end: 127 }): SubtaskStateOptions {
  return { jobName: 'j', operatorId: 'op', subtask: 0, parallelism: 1, maxParallelism: 128, keyGroupRange: range, jobDir: root, cacheBytes: 0,
    writeBufferBytes: undefined, tmpDir: () => Promise.resolve(root) }
}

/** The states a stateful operator keeps: a value, lists (one with TTL), a map, and namespaced (window) values. */
function states(b: HeapKeyedStateBackend) {
  return {
    count: b.getValueState<number>(valueState('count')),
    recent: b.getListState<string>(listState('recent', TTL)),
    log: b.getListState<string>(listState('log')),
    attrs: b.getMapState<string, { n: bigint }>(mapState('attrs')),
    window: b.getValueState<number>(valueState('window')),
  }
}

function fill(b: HeapKeyedStateBackend): void {
  const s = states(b)
  for (let i = 0; i < KEYS; i++) {
    b.setCurrentKey(makeKey([`key-${i}`, i]))
    // Three keys' lists are written early and expire first.
    b.setTtlTime(i < 3 ? 0 : 5000)
    s.count.update(i)
    s.recent.add(`r${i}`)
    s.log.add(`l${i}`)
    s.attrs.put('a', { n: BigInt(i) })
    s.attrs.put('b', { n: -1n })
    for (const ns of ['w1', 'w2']) {
      s.window.setNamespace(ns)
      s.window.update(i * 10)
    }
    s.window.setNamespace('')
  }
}

/** A few changes of every kind: updates, deletes, map removals, list appends, a window cleared, TTL expiry. */
function changeFew(b: HeapKeyedStateBackend, round: number): void {
  const s = states(b)
  b.setTtlTime(10_001)
  const key = (i: number): void => b.setCurrentKey(makeKey([`key-${i}`, i]))
  for (const i of [10, 11, 12, 13, 14]) {
    key(i)
    s.count.update(round * 1000 + i)
  }
  for (const i of [20, 21, 22]) {
    key(i)
    s.count.clear()
  }
  key(30 + round)
  s.attrs.remove('b')
  key(40)
  s.log.add(`more-${round}`)
  key(50)
  s.window.setNamespace('w1')
  s.window.clear()
  s.window.setNamespace('')
  // The three early lists expire now and are swept.
  b.cleanupExpired()
}

/** The live entries as sorted lines (entry order within a group is not part of the state). */
function contents(b: HeapKeyedStateBackend, now = 10_001): string[] {
  b.setTtlTime(now)
  const lines: string[] = []
  const text = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x))
  for (const { group, entries } of b.snapshot().keyGroups) {
    for (const e of entries) {
      if (e.kind === 'map') { for (const m of e.entries) lines.push(text([group, e.state, e.key, e.ns, m])) }
      else lines.push(text([group, e]))
    }
  }
  return lines.sort()
}

async function checkpoint(b: HeapKeyedStateBackend, storage: CheckpointStorage, id: number, savepoint = false): Promise<HeapChainedHandle> {
  const pending = await b.checkpoint({ storage, ownPrefix: `chk-${id}/op-0/`, sharedPrefix: 'shared/', selfContained: savepoint, checkpointId: id,
    tmpDir: () => Promise.resolve(root) })
  return (await pending.upload) as HeapChainedHandle
}

async function restore(handles: HeapStateHandle[], storage: CheckpointStorage, range?: KeyGroupRange): Promise<HeapKeyedStateBackend> {
  const b = (await heapStateBackend.create(subtask(range), { handles, storage })) as HeapKeyedStateBackend
  states(b) // registered as the operator would
  return b
}

function dirStorage(): CheckpointStorage {
  return openCheckpointStorage(mkdtempSync(join(root, 'chk-')), jobConfigOf({}).s3)
}

/** The three steps every storage must pass: full, then a small delta; restored whole and split in two. */
async function fullThenDelta(storage: CheckpointStorage): Promise<{ b: HeapKeyedStateBackend; first: HeapChainedHandle; second: HeapChainedHandle }> {
  const b = new HeapKeyedStateBackend({ maxParallelism: 128 })
  fill(b)
  const first = await checkpoint(b, storage, 1)
  changeFew(b, 1)
  const second = await checkpoint(b, storage, 2)
  expect(contents(await restore([second], storage))).toEqual(contents(b))
  const low = await restore([second], storage, { start: 0, end: 63 })
  const high = await restore([second], storage, { start: 64, end: 127 })
  expect([...contents(low), ...contents(high)].sort()).toEqual(contents(b))
  expect(contents(low).length).toBeGreaterThan(0)
  expect(contents(high).length).toBeGreaterThan(0)
  return { b, first, second }
}

describe('heap incremental checkpoints', () => {
  it('a checkpoint after a few changes stores only them, and restores equal the state (same and other key-group ranges)', async () => {
    const storage = dirStorage()
    const { b, first, second } = await fullThenDelta(storage)
    expect(first.uploaded.bases).toBeGreaterThan(100)
    // 15 keys changed of 2000: the second checkpoint stores far less than the whole state.
    expect(second.uploaded.bytes).toBeGreaterThan(0)
    expect(second.uploaded.bytes * 20).toBeLessThan(first.uploaded.bytes)
    expect(second.uploaded.bases).toBe(0)
    // It names the first checkpoint's object for what did not change; everything is shared.
    expect(second.objects.map(o => o.path)).toContain(first.objects[0]!.path)
    expect(second.objects.every(o => o.path.startsWith('shared/'))).toBe(true)
    expect(heapStateBackend.referencedObjects(second)).toEqual(second.objects.map(o => o.path))
    // Restored, the backend builds on the restored chains: a change there is again a small delta.
    const restored = await restore([second], storage)
    changeFew(restored, 2)
    changeFew(b, 2)
    const third = await checkpoint(restored, storage, 3)
    expect(third.uploaded.bases).toBe(0)
    expect(third.uploaded.bytes * 20).toBeLessThan(first.uploaded.bytes)
    expect(contents(await restore([third], storage))).toEqual(contents(b))
  })

  it('a checkpoint without changes stores nothing new', async () => {
    const storage = dirStorage()
    const b = new HeapKeyedStateBackend({ maxParallelism: 128 })
    fill(b)
    const first = await checkpoint(b, storage, 1)
    const second = await checkpoint(b, storage, 2)
    expect(second.uploaded).toEqual({ sections: 0, bases: 0, raw: 0, bytes: 0 })
    expect(second.objects).toEqual(first.objects)
  })

  it('chains stay bounded: a group is stored whole once its deltas outweigh it or number more than MAX_DELTAS', async () => {
    const storage = dirStorage()
    const b = new HeapKeyedStateBackend({ maxParallelism: 128 })
    fill(b)
    const s = states(b)
    let handle = await checkpoint(b, storage, 1)
    let rebased = 0
    for (let id = 2; id < 2 + 3 * MAX_DELTAS; id++) {
      b.setCurrentKey(makeKey(['key-7', 7]))
      s.count.update(id)
      // A big value now and then: its group's deltas outweigh its base sooner.
      if (id % 10 === 0) {
        b.setCurrentKey(makeKey(['key-8', 8]))
        s.attrs.put(`big-${id}`, { n: BigInt(id) ** 400n })
      }
      handle = await checkpoint(b, storage, id)
      rebased += handle.uploaded.bases
      for (const g of handle.groups) expect(g.sections.length).toBeLessThanOrEqual(MAX_DELTAS + 1)
    }
    expect(rebased).toBeGreaterThanOrEqual(2)
    expect(contents(await restore([handle], storage))).toEqual(contents(b))
  })

  it('a savepoint is self-contained and leaves the changes since the last checkpoint to the next one', async () => {
    const storage = dirStorage()
    const b = new HeapKeyedStateBackend({ maxParallelism: 128 })
    fill(b)
    await checkpoint(b, storage, 1)
    changeFew(b, 1)
    const savepoint = await checkpoint(b, storage, 2, true)
    expect(savepoint.selfContained).toBe(true)
    expect(savepoint.objects.map(o => o.path)).toEqual(['chk-2/op-0/heap.bin.gz'])
    const next = await checkpoint(b, storage, 3)
    expect(next.uploaded.sections).toBeGreaterThan(0)
    expect(next.objects.every(o => o.path.startsWith('shared/'))).toBe(true)
    expect(contents(await restore([next], storage))).toEqual(contents(b))
    // Only the savepoint's own object is needed: delete everything shared, it still restores.
    await storage.deletePrefix('shared/')
    const fromSavepoint = await restore([savepoint], storage)
    expect(contents(fromSavepoint)).toEqual(contents(b))
    // Restored from a savepoint, the first checkpoint stores every group whole (it cannot name the savepoint's object).
    const after = await checkpoint(fromSavepoint, storage, 4)
    expect(after.uploaded.bases).toBe(after.groups.length)
    expect(after.objects).toHaveLength(1)
  })

  it('restored from another storage (another job folder), the next checkpoint stores every group instead of naming objects there', async () => {
    const from = dirStorage()
    const b = new HeapKeyedStateBackend({ maxParallelism: 128 })
    fill(b)
    const there = await checkpoint(b, from, 1)
    const into = dirStorage()
    const restored = await restore([there], from)
    restored.setTtlTime(10_001)
    const next = await checkpoint(restored, into, 2)
    expect(next.uploaded.bases).toBe(next.groups.length)
    expect(await into.list('shared/')).toEqual(next.objects.map(o => o.path))
    expect(contents(await restore([next], into))).toEqual(contents(b))
  })

  it('a handle of one object of all entries (older Weir) still restores, and the next checkpoint stores every group', async () => {
    const storage = dirStorage()
    const b = new HeapKeyedStateBackend({ maxParallelism: 128 })
    fill(b)
    const entries = await putObject(storage, 'chk-1/op-0/heap.bin.gz', await encodeObject(b.snapshot()))
    const restored = await restore([{ backend: 'heap', entries }], storage)
    expect(contents(restored)).toEqual(contents(b))
    const next = await checkpoint(restored, storage, 2)
    expect(next.uploaded.bases).toBe(next.groups.length)
    expect(contents(await restore([next], storage))).toEqual(contents(b))
  })

  describe('on S3', () => {
    let s3: S3Bucket
    beforeAll(async () => {
      s3 = await startS3Bucket('heap-incremental')
    }, 300_000)
    afterAll(async () => {
      await s3?.stop()
    })

    it('full, then a small delta; restored whole and split in two', async () => {
      const storage = openCheckpointStorage('s3://heap-incremental/job', jobConfigOf(s3.options).s3)
      const { first, second } = await fullThenDelta(storage)
      expect(second.uploaded.bytes * 20).toBeLessThan(first.uploaded.bytes)
      expect(await storage.list('shared/')).toEqual([...new Set([...first.objects, ...second.objects].map(o => o.path))].sort())
    })
  })
})
