// The package as a program that embeds Weir sees it: "main", "types" and "exports" lead to the built
// entry (dist/index.js), which runs a job and renders errors, and exports the embedding API and
// nothing internal; the `weir` command reaches the engine only through that entry; tsconfig.json
// compiles every source folder.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = process.cwd()
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string
  main: string
  types: string
  exports: { '.': { types: string; default: string } }
}

/** Runs an ES module script in a child Node process in the package's folder, so `import 'weir'` is the package itself. */
function runScript(script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 60_000 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('the package entry', () => {
  it('is built where "main", "types" and "exports" point', () => {
    expect(pkg.main).toBe('./dist/index.js')
    expect(pkg.exports['.']).toEqual({ types: pkg.types, default: pkg.main })
    expect(existsSync(join(root, pkg.main))).toBe(true)
    expect(existsSync(join(root, pkg.types))).toBe(true)
  })

  it('runs a job imported by the package name, as an embedding program does', () => {
    const r = runScript(`
      import { Session } from '${pkg.name}'
      const lines = []
      const session = new Session({ println: line => lines.push(line) })
      await session.executeSql(\`
        CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
          'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
        CREATE TABLE out (doubled BIGINT) WITH ('connector' = 'print');
        INSERT INTO out SELECT id * 2 FROM gen\`)
      const [metrics] = await session.awaitJobs()
      const [select] = await session.executeSql('SELECT id, id > 3 AS big FROM gen')
      console.log(JSON.stringify({ lines, sinkRows: metrics.sinkRows, select: select.changes }))
    `)
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({
      lines: ['+I[2]', '+I[4]', '+I[6]', '+I[8]', '+I[10]'],
      sinkRows: { out: 5 },
      select: [1, 2, 3, 4, 5].map(id => ({ kind: 0, row: [id, id > 3] })),
    })
  })

  it('gives plan errors as WeirErrors that render with a caret under the SQL', () => {
    const r = runScript(`
      import { Session, WeirError, renderError } from '${pkg.name}'
      const sql = "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen');\\nSELECT idd FROM gen"
      try {
        await new Session().executeSql(sql)
      } catch (e) {
        console.log(JSON.stringify({ weir: e instanceof WeirError, kind: e.kind, text: renderError(e, sql, 'job.sql') }))
      }
    `)
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout) as { weir: boolean; kind: string; text: string }
    expect(out).toMatchObject({ weir: true, kind: 'plan' })
    expect(out.text).toContain("column 'idd' not found")
    expect(out.text).toContain('--> job.sql:2:8')
    expect(out.text).toContain('^^^')
  })

  it('exports the embedding API and nothing internal', () => {
    const r = runScript(`console.log(JSON.stringify(Object.keys(await import('${pkg.name}')).sort()))`)
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual([
      'ROW_KIND_SHORT',
      'RowKind',
      'Session',
      'WeirError',
      'clientSettings',
      'codecs',
      'completionNames',
      'defineAggregateFunction',
      'defineProcessFunction',
      'defineScalarFunction',
      'formatValue',
      'jobConfigOf',
      'listOptions',
      'listState',
      'mapState',
      'padTo',
      'parseSql',
      'readCheckpointInfo',
      'renderError',
      'resetOption',
      'runDefaults',
      'setOption',
      'splitStatements',
      'valueState',
    ])
  })
})

/** Every .ts file under `dir`, relative to the root. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap(name => {
    const rel = join(dir, name)
    if (statSync(join(root, rel)).isDirectory()) return sources(rel)
    return rel.endsWith('.ts') ? [rel] : []
  })
}

describe('the weir command', () => {
  it('reaches the engine only through the package entry (STYLE.md: cli/ uses the public API)', () => {
    // Besides the entry, the command uses common/'s process, file-error and duration helpers and, for its own
    // run lock (.weir/run), the lock files of checkpoint/.
    const allowed = /^(cli\/.*|index|common\/(fs-errors|process-identity|durations)|checkpoint\/(job-lock|storage\/file-lock|storage\/lock))\.js$/
    const reaches: string[] = []
    for (const file of sources('cli')) {
      for (const m of readFileSync(join(root, file), 'utf8').matchAll(/(?:from\s+|import\(\s*)'(\.[^']+)'/g)) {
        const target = relative(root, resolve(root, dirname(file), m[1]!))
        if (!allowed.test(target)) reaches.push(`${file}: ${target}`)
      }
    }
    expect(reaches).toEqual([])
  })
})

describe('tsconfig.json', () => {
  it('lists every folder with sources and no path that does not exist', () => {
    const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { include: string[] }
    for (const path of tsconfig.include) expect(existsSync(join(root, path)), path).toBe(true)
    const skip = new Set(['node_modules', 'dist', 'examples', 'scripts', 'bin'])
    const folders = readdirSync(root).filter(d => !d.startsWith('.') && !skip.has(d) && statSync(join(root, d)).isDirectory() && sources(d).length > 0)
    expect(folders.filter(d => !tsconfig.include.includes(d))).toEqual([])
  })
})
