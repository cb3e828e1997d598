// ROW, ARRAY and MAP columns through the json and debezium-json formats: a file of nested values with
// NULL at every level (a NULL column, a NULL field, a NULL element, a NULL map value, a missing
// field, empty arrays and maps) read by a job and written back nested; a value of the wrong shape
// fails the job naming the column and the place inside it.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'

const COLUMNS = 'id INT, r ROW<a INT, b STRING, n ROW<z ARRAY<BIGINT>>>, arr ARRAY<INT>, m MAP<STRING, INT>, am ARRAY<MAP<STRING, DECIMAL(6, 2)>>'

const INPUT = [
  { id: 1, r: { a: 1, b: 'x', n: { z: [1, 9007199254740991] } }, arr: [10, 20, null], m: { k1: 1, k2: null }, am: [{ p: 1.5 }, null, {}] },
  { id: 2, r: { a: null, b: 'y', n: null }, arr: [], m: {}, am: [] },
  { id: 3, r: null, arr: null, m: null, am: null },
  { id: 4, r: { a: 4 }, arr: [null], m: { k1: 7 }, am: [{ q: null }] },
  { id: 5, r: { a: 5, b: 'é "q"', n: { z: null } }, arr: [5], m: { 'a b': -3 }, am: [{ r: -0.25 }] },
]

/** What the sink writes for each input line: every ROW field present (NULL when missing), decimals exact. */
const OUTPUT = [
  '{"id":1,"r":{"a":1,"b":"x","n":{"z":[1,9007199254740991]}},"arr":[10,20,null],"m":{"k1":1,"k2":null},"am":[{"p":1.50},null,{}]}',
  '{"id":2,"r":{"a":null,"b":"y","n":null},"arr":[],"m":{},"am":[]}',
  '{"id":3,"r":null,"arr":null,"m":null,"am":null}',
  '{"id":4,"r":{"a":4,"b":null,"n":null},"arr":[null],"m":{"k1":7},"am":[{"q":null}]}',
  '{"id":5,"r":{"a":5,"b":"é \\"q\\"","n":{"z":null}},"arr":[5],"m":{"a b":-3},"am":[{"r":-0.25}]}',
]

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'weir-nested-json-'))
}

function lines(dir: string): string[] {
  return readdirSync(dir).filter(f => f.startsWith('part-')).flatMap(f => readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== ''))
}

async function run(sql: string): Promise<void> {
  const session = new Session({ println: () => undefined })
  await session.executeSql(sql)
  await session.awaitJobs()
}

describe('nested values through the json format', () => {
  it.each(['1', '8192'])('a file of nested values in, the same values out (batch size %s)', async batch => {
    const dir = tmp()
    writeFileSync(join(dir, 'in.jsonl'), INPUT.map(r => JSON.stringify(r)).join('\n') + '\n')
    await run(`SET 'execution.batch-size' = '${batch}';
      CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'in.jsonl')}', 'format' = 'json');
      CREATE TABLE dst (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');
      INSERT INTO dst SELECT * FROM src;`)
    expect(lines(join(dir, 'out')).sort()).toEqual(OUTPUT)
  })

  it.each(['1', '8192'])('BIGINTs beyond 2^53 and DECIMALs of 20 digits inside nested values keep every digit (batch size %s)', async batch => {
    const dir = tmp()
    const columns = 'id INT, r ROW<b BIGINT, d DECIMAL(20, 2)>, a ARRAY<BIGINT>, m MAP<STRING, DECIMAL(20, 2)>'
    const rows = [
      '{"id":1,"r":{"b":9007199254740993,"d":123456789012345678.91},"a":[-9223372036854775808,9223372036854775807,1],"m":{"x":-99999999999999999.99}}',
      '{"id":2,"r":{"b":1234567890123456789,"d":0.25},"a":[12345678901234567],"m":{"y":1E+2}}',
    ]
    writeFileSync(join(dir, 'in.jsonl'), rows.join('\n') + '\n')
    await run(`SET 'execution.batch-size' = '${batch}';
      CREATE TABLE src (${columns}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'in.jsonl')}', 'format' = 'json');
      CREATE TABLE dst (${columns}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');
      INSERT INTO dst SELECT * FROM src;`)
    expect(lines(join(dir, 'out')).sort()).toEqual([
      '{"id":1,"r":{"b":9007199254740993,"d":123456789012345678.91},"a":[-9223372036854775808,9223372036854775807,1],"m":{"x":-99999999999999999.99}}',
      '{"id":2,"r":{"b":1234567890123456789,"d":0.25},"a":[12345678901234567],"m":{"y":100.00}}',
    ])
  })

  it('a MULTISET column: a JSON object of each element and its count, in and out; CARDINALITY counts duplicates', async () => {
    const dir = tmp()
    writeFileSync(join(dir, 'in.jsonl'), '{"id":1,"m":{"x":2,"y":1}}\n{"id":2,"m":{}}\n{"id":3,"m":null}\n')
    const session = new Session({ println: () => undefined })
    await session.executeSql(`CREATE TABLE src (id INT, m MULTISET<STRING>) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'in.jsonl')}',
        'format' = 'json');
      CREATE TABLE dst (id INT, m MULTISET<STRING>, n INT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');`)
    const [described] = await session.executeSql('DESCRIBE src')
    expect(JSON.stringify(described)).toContain('MULTISET<STRING>')
    await session.executeSql('INSERT INTO dst SELECT id, m, CARDINALITY(m) FROM src')
    await session.awaitJobs()
    expect(lines(join(dir, 'out')).sort()).toEqual(['{"id":1,"m":{"x":2,"y":1},"n":3}', '{"id":2,"m":{},"n":0}', '{"id":3,"m":null,"n":null}'])
  })

  it('values built in SQL, read from nested columns, and written nested by a debezium-json sink', async () => {
    const dir = tmp()
    writeFileSync(join(dir, 'in.jsonl'), INPUT.map(r => JSON.stringify(r)).join('\n') + '\n')
    await run(`
      CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'in.jsonl')}', 'format' = 'json');
      CREATE TABLE dst (id INT, a INT, z2 BIGINT, first INT, k1 INT, n INT, s STRING, built ROW<id INT, tags ARRAY<STRING>>, mm MAP<STRING, INT>)
        WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'debezium-json');
      INSERT INTO dst SELECT id, r.a, r.n.z[2], arr[1], m['k1'], CARDINALITY(arr), CAST(r AS STRING),
        CAST(ROW(id, ARRAY[r.b, 'k']) AS ROW<id INT, tags ARRAY<STRING>>), MAP['id', id, 'a', r.a] FROM src;`)
    const after = lines(join(dir, 'out')).map(l => JSON.stringify((JSON.parse(l) as { after: unknown }).after)).sort()
    expect(after).toEqual([
      '{"id":1,"a":1,"z2":9007199254740991,"first":10,"k1":1,"n":3,"s":"(1, x, ([1, 9007199254740991]))","built":{"id":1,"tags":["x","k"]},"mm":{"id":1,"a":1}}',
      '{"id":2,"a":null,"z2":null,"first":null,"k1":null,"n":0,"s":"(NULL, y, NULL)","built":{"id":2,"tags":["y","k"]},"mm":{"id":2,"a":null}}',
      '{"id":3,"a":null,"z2":null,"first":null,"k1":null,"n":null,"s":null,"built":{"id":3,"tags":[null,"k"]},"mm":{"id":3,"a":null}}',
      '{"id":4,"a":4,"z2":null,"first":null,"k1":7,"n":1,"s":"(4, NULL, NULL)","built":{"id":4,"tags":[null,"k"]},"mm":{"id":4,"a":4}}',
      '{"id":5,"a":5,"z2":null,"first":5,"k1":null,"n":1,"s":"(5, é \\"q\\", (NULL))","built":{"id":5,"tags":["é \\"q\\"","k"]},"mm":{"id":5,"a":5}}',
    ])
  })

  it('a nested value of the wrong shape fails the job naming the column and where inside it', async () => {
    const dir = tmp()
    writeFileSync(join(dir, 'in.jsonl'), '{"id": 1, "r": {"a": 1, "n": {"z": [1, "two"]}}}\n')
    const err = await run(`
      CREATE TABLE src (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'in.jsonl')}', 'format' = 'json');
      CREATE TABLE dst (id INT) WITH ('connector' = 'filesystem', 'path' = '${join(dir, 'out')}', 'format' = 'json');
      INSERT INTO dst SELECT r.a FROM src;`).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(WeirError)
    expect((err as WeirError).message).toContain(`column 'r': expected BIGINT at .n.z[2], found "two"`)
  })
})
