// The backend's write and read batches over rocksdb-native's binding: what a batch puts is what a
// later read finds, batch after batch, although their objects and byte buffers are reused.
import { join } from 'node:path'
import RocksDB from 'rocksdb-native'
import { afterEach, describe, expect, it } from 'vitest'
import { NativeReadBatch, NativeWriteBatch, REUSED_OPS } from '../../../state/rocksdb/native-batch.js'
import { decodeEntry } from '../../../state/rocksdb/value-codec.js'
import { cleanup, openRawDb, tempDir } from './harness.js'

afterEach(cleanup)

/** A key of `length` bytes naming `n` (lengths vary, so lanes of several lengths are in use). */
function keyOf(n: number, length: number): Buffer {
  const b = Buffer.alloc(length, 0x61)
  b.write(`k${n}`, 0, 'latin1')
  return b
}

describe('NativeWriteBatch and NativeReadBatch', () => {
  it('write from scratch buffers, batch after batch, and read back what each batch wrote', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const r = new NativeReadBatch(db)
    const scratchKey = Buffer.alloc(512)
    const scratchValue = Buffer.alloc(512)
    const expected = new Map<string, string>()
    for (let batch = 0; batch < 4; batch++) {
      for (let i = 0; i < 3000; i++) {
        const n = batch * 1000 + i // overlapping keys: later batches overwrite some
        const key = keyOf(n, 8 + (n % 7))
        const value = `v${batch}:${n}`.padEnd(4 + (i % 11), '.')
        key.copy(scratchKey)
        scratchValue.write(value, 0, 'latin1')
        // The scratch buffers are overwritten right after: the batch must have copied them.
        w.putBytes(scratchKey, key.length, scratchValue, value.length)
        scratchKey.fill(0)
        scratchValue.fill(0)
        expected.set(key.toString('latin1'), value)
      }
      expect(w.length).toBe(3000)
      await w.apply()
      expect(w.length).toBe(0)
    }
    // One key longer than the lanes hold, and a value over 256 bytes.
    const longKey = keyOf(99_999, 300)
    const longValue = 'x'.repeat(1000)
    w.putBytes(longKey, longKey.length, Buffer.from(longValue), longValue.length)
    expected.set(longKey.toString('latin1'), longValue)
    await w.apply()

    const keys = [...expected.keys()]
    for (let round = 0; round < 2; round++) {
      for (const k of keys) {
        const b = Buffer.from(k, 'latin1')
        r.addBytes(b, b.length)
      }
      r.addBytes(Buffer.from('absent'), 6)
      const values = await r.read(round === 0)
      expect(values).toHaveLength(keys.length + 1)
      for (let i = 0; i < keys.length; i++) expect(values[i]?.toString('latin1')).toBe(expected.get(keys[i]!))
      expect(values[keys.length]).toBeNull()
    }
  })

  it('putHeld copies rows into slabs reused from batch to batch: more than a slab per batch, and a row larger than one', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const r = new NativeReadBatch(db)
    const scratchKey = Buffer.alloc(64)
    const scratchValue = Buffer.alloc(4 << 20)
    const expected = new Map<string, string>()
    for (let batch = 0; batch < 3; batch++) {
      // ~2.4 MB a batch: the slabs (1 MB) roll over, and the next batch writes over the same bytes.
      for (let i = 0; i < 6000; i++) {
        const n = batch * 2000 + i
        const key = keyOf(n, 10 + (n % 5))
        const value = `row ${batch}:${n} `.padEnd(120 + (n % 300), String.fromCharCode(97 + (n % 26)))
        key.copy(scratchKey)
        scratchValue.write(value, 0, 'latin1')
        w.putHeld(scratchKey, key.length, scratchValue, value.length)
        scratchKey.fill(0)
        scratchValue.fill(0, 0, value.length)
        expected.set(key.toString('latin1'), value)
      }
      if (batch === 1) {
        const big = 'B'.repeat(3 << 20)
        scratchValue.write(big, 0, 'latin1')
        w.putHeld(Buffer.from('big'), 3, scratchValue, big.length)
        expected.set('big', big)
      }
      await w.apply()
    }
    const keys = [...expected.keys()]
    for (const k of keys) r.addBytes(Buffer.from(k, 'latin1'), k.length)
    const values = await r.read(false)
    for (let i = 0; i < keys.length; i++) expect(values[i]?.toString('latin1')).toBe(expected.get(keys[i]!))
  })

  it('putHeldEntry (key copied into the staged bytes, entry held) mixed with putBytes and putHeld in one batch, put in key order', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const r = new NativeReadBatch(db)
    const scratchKey = Buffer.alloc(64)
    const expected = new Map<string, unknown>()
    for (let batch = 0; batch < 3; batch++) {
      // More than ORDER_MIN entries, added out of key order: the batch sorts them, and an entry's
      // key (staged bytes) must stay with its value (held bytes) whatever the other entries hold.
      for (let i = 0; i < 2000; i++) {
        const n = (i * 7919 + batch * 613) % 5000
        const key = keyOf(n, 9 + (n % 6))
        key.copy(scratchKey)
        const kind = (n + batch) % 3
        if (kind === 0) {
          const row = [n, `row ${batch}:${n}`, 'x'.repeat(n % 300), batch * 1e12 + n]
          w.putHeldEntry(scratchKey, key.length, batch === 1 ? 1000 + n : null, row)
          expected.set(key.toString('latin1'), row)
        } else {
          const value = Buffer.from(`${kind === 1 ? 'bytes' : 'held'} ${batch}:${n}`, 'latin1')
          if (kind === 1) w.putBytes(scratchKey, key.length, value, value.length)
          else w.putHeld(scratchKey, key.length, value, value.length)
          expected.set(key.toString('latin1'), value.toString('latin1'))
        }
        scratchKey.fill(0)
      }
      await w.apply()
    }
    const keys = [...expected.keys()]
    for (const k of keys) r.addBytes(Buffer.from(k, 'latin1'), k.length)
    const values = await r.read(false)
    for (let i = 0; i < keys.length; i++) {
      const want = expected.get(keys[i]!)
      const got = values[i]!
      expect(typeof want === 'string' ? got.toString('latin1') : decodeEntry(got), keys[i]).toEqual(want)
    }
  })

  it('a full deferred write-back batch reuses its operations and byte lanes, and each batch writes its own values', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const ops = (w as unknown as { r: { ops: object[] } }).r.ops
    // The write batch's lanes are its staged entries' (staged-writes.ts).
    const lanes = (w as unknown as { staged: { lanes: { byLength: ({ views: object[] } | undefined)[] } } }).staged.lanes.byLength
    // What deferred write-back holds before it writes (write-back.ts, HELD_CELLS): a full batch.
    const n = 131_072
    expect(REUSED_OPS).toBeGreaterThanOrEqual(n)
    const key = Buffer.alloc(16)
    const value = Buffer.alloc(12)
    let kept: object[] = []
    for (let batch = 0; batch < 4; batch++) {
      // The same keys each time (in another order), each batch its own values: a view or operation
      // left pointing at an earlier batch's bytes would write that batch's value.
      for (let i = 0; i < n; i++) {
        const k = (i * 7919 + batch) % n
        key.fill(0x6b).writeUInt32BE(k, 12)
        value.fill(0).writeUInt32BE(batch, 0)
        value.writeUInt32BE(k, 8)
        w.putBytes(key, 16, value, 12)
      }
      await w.apply()
      expect(ops).toHaveLength(n)
      const views = [...lanes[16]!.views, ...lanes[12]!.views]
      expect(views).toHaveLength(2 * n)
      // The first batch grows the lanes chunk by chunk (keeping the views it made); from then on
      // nothing is made again.
      if (batch === 0) kept = [...ops, ...views]
      else expect([...ops, ...views].every((o, i) => o === kept[i])).toBe(true)
      const r = new NativeReadBatch(db)
      for (let k = 0; k < n; k += 997) {
        key.fill(0x6b).writeUInt32BE(k, 12)
        r.addBytes(key, 16)
      }
      const got = await r.read(false)
      got.forEach((v, j) => {
        expect(v?.readUInt32BE(0)).toBe(batch)
        expect(v?.readUInt32BE(8)).toBe(j * 997)
      })
    }
    // A batch past what is kept still writes every entry; its extra operations are not kept.
    for (let i = 0; i < n + 10; i++) w.put(Buffer.from(`z${i}`), Buffer.from(`${i}`))
    await w.apply()
    expect(ops).toHaveLength(n)
    const r = new NativeReadBatch(db)
    r.addBytes(Buffer.from(`z${n + 9}`), `z${n + 9}`.length)
    expect((await r.read(false))[0]?.toString()).toBe(`${n + 9}`)
  })

  it('a lane that grows keeps the views of earlier batches, one past KEEP_LANE_BYTES lets its last chunks go, and each batch writes its own values', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    const lanes = (w as unknown as { staged: { lanes: { byLength: ({ views: object[] } | undefined)[] } } }).staged.lanes.byLength
    const key = Buffer.alloc(20)
    const value = Buffer.alloc(200)
    // Batches of growing, then shrinking size; the last past 4 MB of 200-byte values (the lane drops what is beyond).
    const sizes = [100, 3000, 20_000, 30_000, 500, 4000]
    let kept: object[] = []
    for (let batch = 0; batch < sizes.length; batch++) {
      const n = sizes[batch]!
      for (let i = 0; i < n; i++) {
        key.fill(0x6b).writeUInt32BE(i, 16)
        value.fill(batch).writeUInt32BE(i, 0)
        w.putBytes(key, 20, value, 200)
      }
      await w.apply()
      const views = lanes[200]!.views
      // The views made by earlier batches are the same objects (a grown lane does not make them again).
      expect(kept.every((v, i) => views[i] === v)).toBe(true)
      kept = [...views]
      if (batch === 3) expect(views.length).toBeLessThan(30_000) // 6 MB: chunks past 4 MB and their views went
      const r = new NativeReadBatch(db)
      for (let i = 0; i < n; i += 97) {
        key.fill(0x6b).writeUInt32BE(i, 16)
        r.addBytes(key, 20)
      }
      const got = await r.read(false)
      got.forEach((v, j) => {
        expect(v?.readUInt32BE(0)).toBe(j * 97)
        expect(v?.[199]).toBe(batch)
      })
    }
  })

  it('deletes single keys and ranges, in order with the puts of the same batch', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    for (let i = 0; i < 10; i++) w.put(Buffer.from(`a${i}`), Buffer.from(`${i}`))
    w.delete(Buffer.from('a3'))
    w.deleteRange(Buffer.from('a5'), Buffer.from('a8'))
    w.put(Buffer.from('a6'), Buffer.from('again')) // after the range delete: survives it
    await w.apply()
    const r = new NativeReadBatch(db)
    for (let i = 0; i < 10; i++) r.addBytes(Buffer.from(`a${i}`), 2)
    const got = (await r.read(true)).map(v => v?.toString() ?? null)
    expect(got).toEqual(['0', '1', '2', null, '4', null, 'again', null, '8', '9'])
  })

  it('refuses additions while RocksDB applies or reads the batch', async () => {
    const db = await openRawDb()
    const w = new NativeWriteBatch(db)
    w.put(Buffer.from('k'), Buffer.from('v'))
    const applying = w.apply()
    expect(() => w.put(Buffer.from('k2'), Buffer.from('v2'))).toThrow(/added to while RocksDB applied it/)
    await applying
    w.put(Buffer.from('k2'), Buffer.from('v2'))
    await w.apply()
    const r = new NativeReadBatch(db)
    r.addBytes(Buffer.from('k2'), 2)
    const reading = r.read(true)
    expect(() => r.addBytes(Buffer.from('k'), 1)).toThrow(/added to while RocksDB read it/)
    expect((await reading)[0]?.toString()).toBe('v2')
  })

  it('counts as I/O in flight: close waits for a write batch and the write is on disk after reopening', async () => {
    const dir = join(await tempDir(), 'db')
    const db = new RocksDB(dir)
    await db.ready()
    const w = new NativeWriteBatch(db)
    for (let i = 0; i < 5000; i++) w.put(Buffer.from(`key-${i}`), Buffer.from(`value-${i}`))
    const applied = w.apply()
    await db.close()
    await applied
    const again = await openRawDb(dir)
    const r = new NativeReadBatch(again)
    r.addBytes(Buffer.from('key-4999'), 8)
    expect((await r.read(true))[0]?.toString()).toBe('value-4999')
  })
})
