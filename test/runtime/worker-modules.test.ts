// A worker thread imports only what its job runs: the operators of its graph's kinds (operators/catalog.ts)
// and the state backend its job keeps state on (state/backends.ts), not every operator and RocksDB. Each
// job runs in a child process of the built engine (dist/, as the workers themselves always are) whose
// every thread prints the modules it loads (test/support/module-trace.mjs); an eager import anywhere on
// the worker's path (registry.ts, a static import of a backend) fails these.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const support = fileURLToPath(new URL('../support/', import.meta.url))
const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** The modules (paths under dist/, or package and node: names) each worker thread loaded running `sql` at p = 2. */
function workerModules(options: Record<string, string>, sql: string): Set<string> {
  const sets = Object.entries({ 'parallelism.default': '2', 'execution.worker-threads': 'true', ...options }).map(([k, v]) => `SET '${k}' = '${v}'`)
  const script = [
    ...sets,
    `CREATE TABLE g (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000', 'fields.k.min' = '0', 'fields.k.max' = '50')`,
    `CREATE TABLE out_t (k INT, c BIGINT) WITH ('connector' = 'blackhole')`,
    sql,
  ].join(';\n')
  const run = spawnSync(process.execPath, ['--import', join(support, 'module-trace.mjs'), join(support, 'worker-modules-job.mjs'), script], {
    encoding: 'utf8',
  })
  expect(run.status, run.stderr.split('\n').filter(l => !l.startsWith('LOAD ')).join('\n')).toBe(0)
  const loads = run.stderr.split('\n').filter(l => l.startsWith('LOAD ')).map(l => l.split(' '))
  const worker = loads.filter(([, thread]) => thread !== '0').map(([, , url]) =>
    url!.replace(/^.*\/dist\//, '').replace(/^.*\/node_modules\//, 'node_modules/')
  )
  expect(worker.length, 'the job ran on a worker thread').toBeGreaterThan(0)
  return new Set(worker)
}

const GROUP_BY = 'INSERT INTO out_t SELECT k, COUNT(*) FROM g GROUP BY k'

describe("a worker thread's modules", () => {
  it('a heap job: its operators, the heap backend; no RocksDB and no operator its graph lacks', () => {
    const mods = workerModules({}, GROUP_BY)
    expect(mods).toContain('operators/group-aggregate.js')
    expect(mods).toContain('state/heap/heap-backend.js')
    const rocks = [...mods].filter(m => m.includes('rocksdb') && m !== 'state/rocksdb/handle.js')
    expect(rocks, "RocksDB modules on a heap job's worker").toEqual([])
    for (const absent of ['operators/join/interval-join.js', 'operators/join/regular-join.js', 'operators/over/over-aggregate.js', 'operators/rank/top-n.js']) {
      expect(mods, `${absent}: an operator this job does not run`).not.toContain(absent)
    }
  })

  it('a RocksDB job loads the RocksDB backend; a join job loads the join', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-worker-modules-'))
    dirs.push(dir)
    const mods = workerModules({ 'state.backend': 'rocksdb', 'state.dir': dir }, GROUP_BY)
    expect(mods).toContain('state/rocksdb/rocksdb-backend.js')
    const joined = workerModules({}, 'INSERT INTO out_t SELECT a.k, COUNT(*) FROM g a JOIN g b ON a.k = b.v GROUP BY a.k')
    expect(joined).toContain('operators/join/regular-join.js')
    expect(joined).not.toContain('operators/join/interval-join.js')
  })
})
