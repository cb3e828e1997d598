// The mapping of a failed file-system call to a user's error (common/fs-errors.ts), fed with real
// failures of real calls: each code gives its reason in words, names the path and the operation,
// and a help line that says what to do — including the failures a test cannot cause through the
// engine everywhere (a full disk without a tmpfs: /dev/full; too many open files: a child with a
// low 'ulimit -n').
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { errnoCode, fsError, type FsFailure } from '../../common/fs-errors.js'

const dir = mkdtempSync(join(tmpdir(), 'weir-fs-map-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function failure(call: () => unknown): unknown {
  try {
    call()
  } catch (e) {
    return e
  }
  throw new Error('the call did not fail')
}

const SOURCE: Omit<FsFailure, 'path' | 'op'> = { kind: 'connector', what: "the source of table 't'", setting: "the 'path' option of table 't'" }

describe('fsError', () => {
  it('ENOENT: the path does not exist, check the setting', () => {
    const path = join(dir, 'missing.json')
    const e = fsError(failure(() => readFileSync(path)), { ...SOURCE, op: 'read', path })
    expect(e).toBeInstanceOf(WeirError)
    expect(e.kind).toBe('connector')
    expect(e.message).toBe(`cannot read '${path}' (the source of table 't'): no such file or folder (ENOENT)`)
    expect(e.help).toBe(`'${path}' does not exist: check the 'path' option of table 't'`)
  })

  it('ENOTDIR: a part of the path is a file', () => {
    writeFileSync(join(dir, 'file'), 'x')
    const path = join(dir, 'file', 'data')
    const e = fsError(failure(() => readFileSync(path)), { ...SOURCE, op: 'read', path })
    expect(e.message).toBe(`cannot read '${path}' (the source of table 't'): a part of the path is a file, not a folder (ENOTDIR)`)
    expect(e.help).toBe(`a part of '${path}' is a file where a folder should be: check the 'path' option of table 't', or move that file away`)
  })

  it('EISDIR: a folder where a file is expected, with a caller’s own help line', () => {
    const e = fsError(failure(() => readFileSync(dir)), { kind: 'plan', op: 'read', path: dir, what: 'the SQL file', help: { EISDIR: 'give the SQL file' } })
    expect(e.kind).toBe('plan')
    expect(e.message).toBe(`cannot read '${dir}' (the SQL file): it is a folder, not a file (EISDIR)`)
    expect(e.help).toBe('give the SQL file')
  })

  it('EEXIST: something else has the name', () => {
    const path = join(dir, 'taken')
    writeFileSync(path, 'x')
    const e = fsError(failure(() => mkdirSync(path)), { kind: 'checkpoint', op: 'create', path, what: 'checkpoint storage' })
    expect(e.message).toBe(`cannot create '${path}' (checkpoint storage): a file or folder of that name is in the way (EEXIST)`)
    expect(e.help).toBe(`something else has the name '${path}': remove or rename it`)
  })

  it('ENOSPC (a write to /dev/full): free disk space, or move the setting to a disk with room', () => {
    const e = fsError(failure(() => writeFileSync('/dev/full', 'x')), { kind: 'execution', op: 'write', path: '/dev/full', what: 'state',
      setting: "'state.dir'" })
    expect(e.message).toBe(`cannot write '/dev/full' (state): no space left on the device (ENOSPC)`)
    expect(e.help).toBe(`free disk space on the file system of '/dev/full', or change 'state.dir' to a disk with more room`)
  })

  it('EMFILE (a child with a low open-file limit): raise the limit', () => {
    // The child opens files until the limit stops it and maps that real error with the built module.
    const script = `
      import { openSync } from 'node:fs'
      const { fsError } = await import(${JSON.stringify(join(process.cwd(), 'dist/common/fs-errors.js'))})
      let e
      try { for (;;) openSync('/dev/null', 'r') } catch (x) { e = x }
      const w = fsError(e, { kind: 'connector', op: 'open', path: '/dev/null', what: "the source of table 't'" })
      console.log(JSON.stringify({ message: w.message, help: w.help }))`
    const r = spawnSync('sh', ['-c', `ulimit -n 64 && exec "${process.execPath}" --input-type=module -e "$0"`, script], { encoding: 'utf8' })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({
      message: `cannot open '/dev/null' (the source of table 't'): too many open files in this process (EMFILE)`,
      help: `raise the limit of open files per process ('ulimit -n'), or run fewer jobs in one process`,
    })
  })

  it('reads the errno of a native library from its words, and passes a WeirError through', () => {
    expect(errnoCode(new Error('IO error: While appending to file: /s/000012.log: No space left on device'))).toBe('ENOSPC')
    expect(errnoCode(new Error('IO error: While open a file for appending: /s/LOG: Permission denied'))).toBe('EACCES')
    expect(errnoCode(new Error('Batch was not applied', { cause: new Error('IO error: /s: Read-only file system') }))).toBe('EROFS')
    expect(errnoCode(new Error('Corruption: CURRENT file corrupted'))).toBeUndefined()
    const already = WeirError.connector('x')
    expect(fsError(already, { ...SOURCE, op: 'read', path: '/x' })).toBe(already)
  })
})
