// A process killed while it wipes or removes a RocksDB state folder (a restart's prepare, a job's
// teardown) must leave a folder the next run takes as its own: before, a kill in the middle of the
// recursive delete could leave files without the marker, and every later run refused the folder
// ("is not empty and is not a Weir state folder") until a user deleted it by hand.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MARKER_FILE, prepareFolder, releaseFolder } from '../../../state/rocksdb/folder.js'

const FOLDER_JS = resolve('dist/state/rocksdb/folder.js')
const owner = { jobName: 'j', operatorId: '2-group-aggregate' }
const root = mkdtempSync(join(tmpdir(), 'weir-folder-kill-'))

afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The folder as an earlier, ended run of the same job leaves it: its marker and many database files. */
function filled(dir: string): void {
  mkdirSync(dir, { recursive: true })
  // As a marker of a run that has ended (no pid: of a process that no longer runs).
  writeFileSync(join(dir, MARKER_FILE), JSON.stringify({ format: 'weir-rocksdb-state/1', ...owner }) + '\n')
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(dir, 'db', `d${d}`), { recursive: true })
    for (let f = 0; f < 100; f++) writeFileSync(join(dir, 'db', `d${d}`, `${f}.sst`), 'x'.repeat(512))
  }
}

/** Runs `call` ('prepareFolder' or 'removeFolder') on `dir` in a child process and SIGKILLs it after `ms`. */
function killedDuring(call: 'prepareFolder' | 'removeFolder', dir: string, ms: number): Promise<void> {
  const script = `const m = await import(${JSON.stringify(FOLDER_JS)});
    process.stdout.write('go\\n');
    await m.${call}(${JSON.stringify(dir)}, ${JSON.stringify(owner)}, false);
    process.stdout.write('done\\n');
    setInterval(() => {}, 1000)`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  child.stdout.on('data', (d: Buffer) => {
    if (d.toString().includes('go')) setTimeout(() => child.kill('SIGKILL'), ms)
  })
  return new Promise(done => child.on('exit', () => done()))
}

describe('a RocksDB state folder after a kill while it is wiped or removed', () => {
  it.each(['prepareFolder', 'removeFolder'] as const)('%s: the next run takes it as its own, every time', async call => {
    for (let i = 0; i < 12; i++) {
      const dir = join(root, `${call}-${i}`, owner.operatorId)
      filled(dir)
      await killedDuring(call, dir, i * 4)
      // The next run's prepare: no refusal, an empty folder with its marker, nothing left aside.
      expect(await prepareFolder(dir, owner, false)).toBe(false)
      releaseFolder(dir)
      expect(readdirSync(dir)).toEqual([MARKER_FILE])
      expect(readdirSync(join(root, `${call}-${i}`))).toEqual([owner.operatorId])
    }
  }, 120_000)

  it('a marker a kill left half written, alone in the folder, counts as an empty folder', async () => {
    const dir = join(root, 'half-marker', owner.operatorId)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `${MARKER_FILE}.tmp`), '{"format":"weir-rocksdb-st')
    expect(await prepareFolder(dir, owner, false)).toBe(false)
    releaseFolder(dir)
    expect(readdirSync(dir)).toEqual([MARKER_FILE])
    expect(existsSync(join(dir, `${MARKER_FILE}.tmp`))).toBe(false)
  })
})
