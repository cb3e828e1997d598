// Incremental checkpoints of the heap backend. Each checkpoint stores one object (under the shared
// prefix) holding a section per key group that changed: the group's whole content (a base) or what
// changed since the previous checkpoint (a delta). The handle names, per key group, its chain: the
// base and the deltas after it, oldest first, in objects of earlier checkpoints that retention keeps
// while a retained handle names them. Chains stay short: a group is stored whole again once its
// deltas would outweigh its base or number more than MAX_DELTAS, and every group of an object that
// is mostly dead (its other sections superseded) is too, so restore reads and storage stay within a
// small multiple of the state. Savepoints store every group whole under their own prefix.
import { randomUUID } from 'node:crypto'
import { serialize } from 'node:v8'
import { encodeObject, putObject, type StoredObject } from '../../checkpoint/objects.js'
import type { StateSnapshotOptions } from '../backend.js'
import { HEAP_HANDLE_FORMAT, HEAP_SECTIONS_FORMAT, type HeapChainedHandle, type HeapSection, type HeapSectionsObject, type HeapStoredObject } from './handle.js'
import { type StateColumns, toColumns } from './columns.js'
import type { ChangedSlot, HeapEntry, HeapKeyedStateBackend } from './heap-backend.js'

/** Deltas after a base at most; the next change of the group stores it whole. */
export const MAX_DELTAS = 16

/** The payload of a base section: the group's live entries. */
export type BaseSection = readonly StateColumns[]

/** The payload of a delta section: each key of a state listed in `cleared` loses every entry, then `entries` are added. */
export interface DeltaSection {
  readonly cleared: readonly { readonly state: string; readonly keys: readonly (readonly unknown[])[] }[]
  readonly entries: readonly StateColumns[]
}

/** An object this backend stored (or restored a handle naming): how much of it chains still use. */
interface ObjectRecord {
  readonly stored: Promise<StoredObject>
  readonly checkpointId: number
  /** Serialized bytes of all its sections. */
  readonly raw: number
  /** Serialized bytes of its sections that chains of this backend name. */
  live: number
}

/** One section of a chain. */
interface Link {
  readonly object: ObjectRecord
  /** Serialized bytes of the section. */
  readonly bytes: number
}

/** What a checkpoint stored itself: sections, their serialized bytes, and the object's (compressed) bytes. */
export interface UploadStats {
  readonly sections: number
  readonly bases: number
  readonly raw: number
  readonly bytes: number
}

/**
 * The chains of one heap backend's key groups, and the checkpoint that extends them.
 *
 * @example
 * const handle = await backend.incremental.checkpoint({ storage, ownPrefix: 'chk-7/op-0/', sharedPrefix: 'shared/', selfContained: false, checkpointId: 7, tmpDir })
 */
export class IncrementalSnapshots {
  /** Chains by key group; a group without a chain was empty at the last checkpoint. */
  private readonly chains = new Map<number, Link[]>()
  /** False until a checkpoint (or a restored checkpoint's chains) gives a base every change can build on. */
  private started = false
  /** The storage restored chains are in: a checkpoint into another one cannot name their objects. */
  private chainsIn: string | undefined = undefined

  constructor(private readonly backend: HeapKeyedStateBackend) {}

  /**
   * Serializes what the checkpoint stores now (the state may change once this returns) and stores
   * it in the background; resolves to the handle.
   */
  checkpoint(options: StateSnapshotOptions): Promise<HeapChainedHandle> {
    if (options.selfContained) return this.savepoint(options)
    if (this.chainsIn !== undefined && this.chainsIn !== options.storage.uri) this.restart()
    this.chainsIn = options.storage.uri
    const changes = this.backend.takeChanges()
    const whole = new Set<number>()
    const deltas = new Map<number, Uint8Array>()
    if (!this.started) {
      for (let g = this.backend.keyGroupRange.start; g <= this.backend.keyGroupRange.end; g++) whole.add(g)
      this.started = true
    } else {
      this.wholeForDeadObjects(whole)
      for (const [group, changed] of changes) {
        if (whole.has(group)) continue
        const chain = this.chains.get(group)
        if (chain === undefined) {
          whole.add(group)
          continue
        }
        const delta = serialize(deltaOf(changed))
        let deltaBytes = 0
        for (let i = 1; i < chain.length; i++) deltaBytes += chain[i]!.bytes
        if (chain.length - 1 >= MAX_DELTAS || deltaBytes + delta.length > chain[0]!.bytes) whole.add(group)
        else deltas.set(group, delta)
      }
    }
    const sections: HeapSection[] = []
    const bases = whole.size === 0 ? new Map<number, HeapEntry[]>() : this.backend.entriesByGroup(whole)
    for (const group of [...whole].sort((a, b) => a - b)) {
      const entries = bases.get(group)
      if (entries === undefined || entries.length === 0) {
        this.release(group)
        continue
      }
      sections.push({ group, base: true, data: serialize(toColumns(entries) satisfies BaseSection) })
    }
    for (const [group, data] of deltas) sections.push({ group, base: false, data })
    const path = `${options.sharedPrefix}heap-${randomUUID()}.bin.gz`
    const record = sections.length === 0 ? null : this.store(options, path, sections)
    for (const s of sections) {
      const link: Link = { object: record!, bytes: s.data.length }
      if (s.base) {
        this.release(s.group)
        this.chains.set(s.group, [link])
      } else {
        this.chains.get(s.group)!.push(link)
      }
    }
    return this.handleOf(false, statsOf(sections, record))
  }

  /**
   * Takes the chains of restored handles for the groups this backend owns (handles of another
   * checkpoint storage's savepoint cannot be built on: then the next checkpoint stores every group).
   */
  adopt(handle: HeapChainedHandle, owned: (group: number) => boolean, storageUri: string): void {
    if (handle.selfContained) return
    this.chainsIn = storageUri
    const records = handle.objects.map((o): ObjectRecord => ({
      stored: Promise.resolve({ path: o.path, bytes: o.bytes, sha1: o.sha1 }),
      checkpointId: o.checkpointId,
      raw: o.raw,
      live: 0,
    }))
    for (const { group, sections } of handle.groups) {
      if (!owned(group)) continue
      const chain = sections.map(([index, bytes]): Link => {
        const object = records[index]!
        object.live += bytes
        return { object, bytes }
      })
      this.chains.set(group, chain)
    }
    if (!this.started) this.backend.takeChanges() // tracking starts: nothing changed since the restore
    this.started = true
  }

  /** A restore found state it cannot build on (an older format, a savepoint): the next checkpoint stores every group. */
  restart(): void {
    this.started = false
    this.chains.clear()
    this.chainsIn = undefined
  }

  /** A savepoint: every group whole in one object of its own; the chains stay as they are for the next checkpoint. */
  private savepoint(options: StateSnapshotOptions): Promise<HeapChainedHandle> {
    const sections: HeapSection[] = [...this.backend.entriesByGroup(null)]
      .filter(([, entries]) => entries.length > 0)
      .sort((a, b) => a[0] - b[0])
      .map(([group, entries]) => ({ group, base: true, data: serialize(toColumns(entries) satisfies BaseSection) }))
    const record = this.store(options, `${options.ownPrefix}heap.bin.gz`, sections)
    const chains = new Map(sections.map(s => [s.group, [{ object: record, bytes: s.data.length }]]))
    return this.handleOf(true, statsOf(sections, record), chains)
  }

  /** Groups naming an object whose sections are mostly superseded are stored whole (the object then goes with retention). */
  private wholeForDeadObjects(whole: Set<number>): void {
    for (const [group, chain] of this.chains) {
      if (chain.some(l => l.object.raw - l.object.live > l.object.live)) whole.add(group)
    }
  }

  /** The group's chain is replaced or gone: its sections no longer keep their objects alive. */
  private release(group: number): void {
    const chain = this.chains.get(group)
    if (chain === undefined) return
    for (const link of chain) link.object.live -= link.bytes
    this.chains.delete(group)
  }

  private store(options: StateSnapshotOptions, path: string, sections: HeapSection[]): ObjectRecord {
    const body: HeapSectionsObject = { format: HEAP_SECTIONS_FORMAT, maxParallelism: this.backend.maxParallelism, sections }
    const stored = encodeObject(body).then(gz => putObject(options.storage, path, gz))
    // Awaited by the handle; an unhandled rejection must not be reported before that.
    stored.catch(() => undefined)
    let raw = 0
    for (const s of sections) raw += s.data.length
    return { stored, checkpointId: options.checkpointId, raw, live: raw }
  }

  private async handleOf(selfContained: boolean, stats: Promise<UploadStats>,
    chains: ReadonlyMap<number, readonly Link[]> = this.chains): Promise<HeapChainedHandle>
  {
    const records = [...new Set([...chains.values()].flatMap(chain => chain.map(l => l.object)))]
    const stored = await Promise.all(records.map(r => r.stored))
    const order = records.map((r, i) => i).sort((a, b) => records[a]!.checkpointId - records[b]!.checkpointId)
    const index = new Map(order.map((i, at) => [records[i]!, at]))
    const objects: HeapStoredObject[] = order.map(i => ({ ...stored[i]!, checkpointId: records[i]!.checkpointId, raw: records[i]!.raw }))
    const groups = [...chains.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([group, chain]) => ({ group, sections: chain.map(l => [index.get(l.object)!, l.bytes] as const) }))
    return {
      backend: 'heap',
      format: HEAP_HANDLE_FORMAT,
      maxParallelism: this.backend.maxParallelism,
      keyGroups: this.backend.keyGroupRange,
      selfContained,
      objects,
      groups,
      uploaded: await stats,
    }
  }
}

function deltaOf(changed: readonly ChangedSlot[]): DeltaSection {
  const cleared = new Map<string, (readonly unknown[])[]>()
  const entries: HeapEntry[] = []
  for (const c of changed) {
    let keys = cleared.get(c.state)
    if (keys === undefined) cleared.set(c.state, keys = [])
    keys.push(c.key)
    for (const e of c.entries) entries.push(e)
  }
  return { cleared: [...cleared].map(([state, keys]) => ({ state, keys })), entries: toColumns(entries) }
}

async function statsOf(sections: readonly HeapSection[], record: ObjectRecord | null): Promise<UploadStats> {
  let bases = 0
  for (const s of sections) if (s.base) bases++
  return { sections: sections.length, bases, raw: record?.raw ?? 0, bytes: record === null ? 0 : (await record.stored).bytes }
}
