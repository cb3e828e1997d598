// Runs one SQL script (argv[2], statements separated by ';\n') with the built engine (dist/), for
// worker-modules.test.ts, which reads what each thread loaded from module-trace.mjs's lines.
const { Session } = await import(new URL('../../dist/engine/session.js', import.meta.url).href)
const s = new Session({ println: () => undefined, recovery: { fresh: true } })
for (const sql of process.argv[2].split(';\n')) if (sql.trim() !== '') await s.executeSql(sql)
await s.awaitJobs()
