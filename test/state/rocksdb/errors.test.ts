// What a user sees when the state folder cannot be used, belongs to something else, holds a broken
// database, or the disk fills up: an execution error naming the folder, with a help line, no stack trace.
import { execFileSync } from 'node:child_process'
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isWeirError, renderError, type WeirError } from '../../../common/errors.js'
import { valueState } from '../../../core/keyed-state.js'
import { makeKey } from '../../../state/key-encoding.js'
import { RocksDbKeyedStateBackend } from '../../../state/rocksdb/index.js'
import { cleanup, tempDir } from './harness.js'

afterEach(cleanup)

async function openError(dir: string, more: { reuse?: boolean; jobName?: string } = {}): Promise<WeirError> {
  try {
    const b = await RocksDbKeyedStateBackend.open({ dir, jobName: more.jobName ?? 'job', operatorId: 'op', reuse: more.reuse })
    await b.close()
  } catch (e) {
    expect(isWeirError(e)).toBe(true)
    const err = e as WeirError
    expect(err.kind).toBe('execution')
    expect(renderError(err)).not.toMatch(/\n\s+at /) // no stack trace for the user
    return err
  }
  throw new Error(`opening '${dir}' did not fail`)
}

describe('RocksDB backend errors', () => {
  it('refuses a folder that a running job of this process has open, and frees it on close', async () => {
    const dir = join(await tempDir(), 'job', 'op')
    const first = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
    const err = await openError(dir)
    expect(err.message).toBe(`state folder '${dir}' is in use by another running job of this process (job 'job', operator 'op')`)
    expect(err.help).toBe("give each concurrent job its own 'pipeline.name' or 'state.dir'")
    await first.close()
    const again = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
    await again.close()
  })

  it('refuses a folder whose job is still running in another process', async () => {
    const dir = join(await tempDir(), 'job', 'op')
    const b = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
    await b.close()
    // The marker as another live process (our parent) would have left it.
    const marker = JSON.parse(await readFile(join(dir, 'WEIR-STATE.json'), 'utf8')) as Record<string, unknown>
    await writeFile(join(dir, 'WEIR-STATE.json'), JSON.stringify({ ...marker, pid: process.ppid }))
    const err = await openError(dir)
    expect(err.message).toBe(`state folder '${dir}' is in use by job 'job' running in process ${process.ppid}`)
  })

  it('refuses a state dir under a regular file', async () => {
    const root = await tempDir()
    await writeFile(join(root, 'file'), 'x')
    const dir = join(root, 'file', 'job', 'op')
    const err = await openError(dir)
    expect(err.message).toBe(`cannot create '${dir}' (a folder of RocksDB working state): a part of the path is a file, not a folder (ENOTDIR)`)
    expect(err.help).toBe(`a part of '${dir}' is a file where a folder should be: check 'state.dir', or move that file away`)
  })

  it('refuses a state dir where folders cannot be created', async () => {
    const dir = `/proc/weir-test-${process.pid}/job/op`
    const err = await openError(dir)
    expect(err.message).toBe(`cannot create '${dir}' (a folder of RocksDB working state): no such file or folder (ENOENT)`)
    expect(err.help).toBe(`folders cannot be created under '/proc/weir-test-${process.pid}/job': set 'state.dir' to a writable folder`)
  })

  it('refuses a folder of another job', async () => {
    const dir = join(await tempDir(), 'job', 'op')
    const b = await RocksDbKeyedStateBackend.open({ dir, jobName: 'other', operatorId: 'op' })
    await b.close()
    const err = await openError(dir)
    expect(err.message).toBe(`state folder '${dir}' belongs to job 'other' (operator 'op')`)
    expect(err.help).toBe("use another 'state.dir', or remove the folder if its contents are not needed")
  })

  it('refuses a non-empty folder that is not a Weir state folder', async () => {
    const dir = join(await tempDir(), 'photos')
    await mkdir(dir)
    await writeFile(join(dir, 'holiday.jpg'), 'not state')
    const err = await openError(dir)
    expect(err.message).toBe(`state folder '${dir}' is not empty and is not a Weir state folder`)
    expect(err.help).toMatch(/use another 'state.dir'/)
    expect(await readFile(join(dir, 'holiday.jpg'), 'utf8')).toBe('not state') // untouched
  })

  it('wipes the working state an earlier run of the same job left', async () => {
    const dir = join(await tempDir(), 'job', 'op')
    const key = makeKey(['k'])
    const first = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
    const v = first.getValueState(valueState<number>('v'))
    await first.prefetch([{ key, namespace: '' }])
    first.setCurrentKey(key)
    v.update(1)
    await first.flush()
    await first.close()
    await writeFile(join(dir, 'leftover'), 'x')
    const second = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
    expect(await readdir(dir)).not.toContain('leftover')
    expect(await second.countEntries({ stored: true })).toBe(0)
    await second.destroy()
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/)
  })

  it('keeps an earlier database when asked to, with its state ids', async () => {
    const dir = join(await tempDir(), 'job', 'op')
    const key = makeKey(['k'])
    const first = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
    const a = first.getValueState(valueState<string>('a')), b = first.getValueState(valueState<string>('b'))
    await first.prefetch([{ key, namespace: '' }])
    first.setCurrentKey(key)
    a.update('A')
    b.update('B')
    await first.flush()
    await first.close()
    const second = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op', reuse: true })
    const b2 = second.getValueState(valueState<string>('b')), a2 = second.getValueState(valueState<string>('a')) // other order
    await second.prefetch([{ key, namespace: '' }])
    second.setCurrentKey(key)
    expect([a2.value(), b2.value()]).toEqual(['A', 'B'])
    expect(second.stats().entries).toBe(2)
    await second.destroy()
  })

  it.each([
    ['CURRENT', /CURRENT file corrupted/],
    ['MANIFEST', /MANIFEST.*corrupted/],
  ])('reports a corrupt database (%s)', async (file, why) => {
    const dir = join(await tempDir(), 'job', 'op')
    const b = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
    const v = b.getValueState(valueState<number>('v'))
    const key = makeKey(['k'])
    await b.prefetch([{ key, namespace: '' }])
    b.setCurrentKey(key)
    v.update(1)
    await b.flush()
    await b.close()
    const db = join(dir, 'db')
    const target = (await readdir(db)).find(n => n.startsWith(file))!
    await writeFile(join(db, target), file === 'CURRENT' ? 'garbage\n' : 'garbage garbage garbage garbage')
    const err = await openError(dir, { reuse: true })
    expect(err.message).toMatch(new RegExp(`^cannot open the RocksDB state in '${dir}': `))
    expect(err.message).toMatch(why)
    expect(err.help).toBe("the working state there cannot be used: remove the folder, or set 'state.dir' to another folder")
  })

  it("reports RocksDB's own failure to create its files on a full disk as one, with RocksDB's words as a note", async ctx => {
    const mnt = await tempDir('weir-full-open-')
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=200k', 'tmpfs', mnt], { stdio: 'ignore' })
    } catch {
      ctx.skip() // needs root and tmpfs
    }
    try {
      // Room for the folder's marker file, not for RocksDB's first files.
      await writeFile(join(mnt, 'filler'), Buffer.alloc(190 * 1024))
      const dir = join(mnt, 'job', 'op')
      const err = await openError(dir)
      expect(err.message).toBe(`cannot open '${dir}' (a folder of RocksDB working state): no space left on the device (ENOSPC)`)
      expect(err.help).toBe(`free disk space on the file system of '${dir}', or change 'state.dir' to a disk with more room`)
      expect(err.notes.join('\n')).toMatch(/^RocksDB: .*No space left on device/)
    } finally {
      execFileSync('umount', [mnt], { stdio: 'ignore' })
    }
  })

  it('reports a full disk', async ctx => {
    const mnt = await tempDir('weir-full-')
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mnt], { stdio: 'ignore' })
    } catch {
      ctx.skip() // needs root and tmpfs
    }
    try {
      const dir = join(mnt, 'job', 'op')
      const b = await RocksDbKeyedStateBackend.open({ dir, jobName: 'job', operatorId: 'op' })
      const v = b.getValueState(valueState<string>('v'))
      let err: unknown
      for (let i = 0; i < 200 && err === undefined; i++) {
        const key = makeKey([i])
        await b.prefetch([{ key, namespace: '' }])
        b.setCurrentKey(key)
        v.update('x'.repeat(100_000))
        try {
          await b.flush()
        } catch (e) {
          err = e
        }
      }
      expect(isWeirError(err)).toBe(true)
      expect((err as WeirError).kind).toBe('execution')
      expect((err as WeirError).message).toBe(`cannot write '${dir}' (a folder of RocksDB working state): no space left on the device (ENOSPC)`)
      expect((err as WeirError).help).toBe(`free disk space on the file system of '${dir}', or change 'state.dir' to a disk with more room`)
      expect((err as WeirError).notes.join('\n')).toMatch(/^RocksDB: .*No space left on device/)
      expect(renderError(err)).not.toMatch(/\n\s+at /)
      await expect(b.flush()).rejects.toBe(err) // the backend stays failed
      await b.destroy()
    } finally {
      execFileSync('umount', [mnt], { stdio: 'ignore' })
    }
  })
})
