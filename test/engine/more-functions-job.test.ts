// The functions of expr/functions/{text,printf,hash,inspect}.ts in continuous queries: a projection
// and filter into a filesystem sink, an event-time window aggregate keyed by PARSE_URL's host, and a
// job that fails on a row FROM_BASE64 cannot decode, naming the function.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createHash } from 'node:crypto'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'weir-more-functions-'))
}

function parts(dir: string): string[] {
  return readdirSync(dir).filter(f => f.startsWith('part-')).flatMap(f => readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== ''))
}

const CLICKS = [
  { url: 'https://shop.example.com/p/1?q=red+shoes&ref=ad', uname: 'ann', n: 7, ts: '2024-03-11 10:00:01' },
  { url: 'https://shop.example.com/p/2?q=caf%C3%A9', uname: 'bob', n: 42, ts: '2024-03-11 10:00:30' },
  { url: 'http://blog.example.org/2024/post#top', uname: 'ann', n: 3, ts: '2024-03-11 10:00:59' },
  { url: 'ftp://files.example.net/pub', uname: 'cy', n: 1, ts: '2024-03-11 10:01:10' },
  { url: 'not a url', uname: 'dee', n: 5, ts: '2024-03-11 10:01:20' },
  { url: 'https://shop.example.com/cart', uname: 'bob', n: 9, ts: '2024-03-11 10:01:40' },
  { url: 'https://shop.example.com/p/3?q=hat', uname: 'eve', n: 2, ts: '2024-03-11 10:03:00' },
]

function source(dir: string): string {
  const path = join(dir, 'clicks.jsonl')
  writeFileSync(path, CLICKS.map(c => JSON.stringify(c)).join('\n') + '\n')
  return `CREATE TABLE clicks (url STRING, uname STRING, n INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '${path}', 'format' = 'json');`
}

const md5 = (s: string): string => createHash('md5').update(s).digest('hex')

describe('the new functions in SQL jobs', () => {
  it('project and filter a stream into a sink', async () => {
    const dir = tmp()
    const out = join(dir, 'out')
    const session = new Session({ println: () => undefined })
    await session.executeSql(`${source(dir)}
      CREATE TABLE o (host STRING, q STRING, who STRING, line STRING, tag STRING)
        WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO o
      SELECT PARSE_URL(url, 'HOST'), URL_DECODE(PARSE_URL(url, 'QUERY', 'q')), SUBSTRING(MD5(uname), 1, 8),
             PRINTF('%-4s|%05d|%x', uname, n, n * 100), CONCAT(ELT(MOD(n, 3) + 1, 'zero', 'one', 'two'), CHR(64 + n))
      FROM clicks
      WHERE STARTSWITH(url, 'http') AND NOT ENDSWITH(url, '#top');`)
    await session.awaitJobs()
    const host = 'shop.example.com'
    expect(parts(out).map(l => JSON.parse(l)).sort((a, b) => a.line.localeCompare(b.line))).toEqual([
      { host, q: 'red shoes', who: md5('ann').slice(0, 8), line: 'ann |00007|2bc', tag: 'oneG' },
      { host, q: null, who: md5('bob').slice(0, 8), line: 'bob |00009|384', tag: 'zeroI' },
      { host, q: 'café', who: md5('bob').slice(0, 8), line: 'bob |00042|1068', tag: 'zeroj' },
      { host, q: 'hat', who: md5('eve').slice(0, 8), line: 'eve |00002|c8', tag: 'twoB' },
    ])
  })

  it('key an event-time window aggregate by a computed host', async () => {
    const dir = tmp()
    const out = join(dir, 'out')
    const session = new Session({ println: () => undefined })
    await session.executeSql(`${source(dir)}
      CREATE VIEW v AS SELECT COALESCE(PARSE_URL(url, 'HOST'), 'invalid') AS host, n, ts FROM clicks;
      CREATE TABLE o (w STRING, host STRING, c BIGINT, total INT, sig STRING)
        WITH ('connector' = 'filesystem', 'path' = '${out}', 'format' = 'json');
      INSERT INTO o
      SELECT PRINTF('%s', window_start), host, COUNT(*), SUM(n), SUBSTRING(SHA256(host), 1, 6)
      FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
      GROUP BY window_start, window_end, host;`)
    await session.awaitJobs()
    const sig = (h: string) => createHash('sha256').update(h).digest('hex').slice(0, 6)
    const row = (w: string, host: string, c: number, total: number) => ({ w, host, c, total, sig: sig(host) })
    const key = (r: { w: string; host: string }) => `${r.w} ${r.host}`
    expect(parts(out).map(l => JSON.parse(l)).sort((a, b) => key(a).localeCompare(key(b)))).toEqual([
      row('2024-03-11T10:00', 'blog.example.org', 1, 3),
      row('2024-03-11T10:00', 'shop.example.com', 2, 49),
      row('2024-03-11T10:01', 'files.example.net', 1, 1),
      row('2024-03-11T10:01', 'invalid', 1, 5),
      row('2024-03-11T10:01', 'shop.example.com', 1, 9),
      row('2024-03-11T10:03', 'shop.example.com', 1, 2),
    ])
  })

  it('fails the job on a row FROM_BASE64 cannot decode, naming the function and the value', async () => {
    const dir = tmp()
    const session = new Session({ println: () => undefined })
    const e = await session.executeSql(`${source(dir)}
      CREATE TABLE o (s STRING) WITH ('connector' = 'blackhole');
      INSERT INTO o SELECT FROM_BASE64(uname) FROM clicks WHERE n < 40 OR STARTSWITH(url, 'https');`)
      .then(() => session.awaitJobs()).then(() => undefined, (x: unknown) => x)
    expect(e).toBeUndefined()
    const bad = await session.executeSql(`INSERT INTO o SELECT FROM_BASE64(url) FROM clicks;`)
      .then(() => session.awaitJobs()).then(() => undefined, (x: unknown) => x)
    expect(bad).toBeInstanceOf(WeirError)
    expect((bad as WeirError).message).toBe(`FROM_BASE64: 'https://shop.example.com/p/1?q=red+shoes…' is not valid base64`)
  })

  it('refuses a literal PRINTF format or pattern Java would refuse, with line and column', async () => {
    const dir = tmp()
    const session = new Session({ println: () => undefined })
    await session.executeSql(source(dir))
    const printf = await session.executeSql(`SELECT uname,\n  PRINTF('%d items', uname) FROM clicks`).then(() => undefined, (x: unknown) => x)
    expect(printf).toBeInstanceOf(WeirError)
    expect((printf as WeirError).message).toBe(`PRINTF format '%d items': '%d' cannot format argument 2 of type STRING`)
    expect((printf as WeirError).span?.start).toMatchObject({ line: 2, column: 3 })
    const regex = await session.executeSql(`SELECT REGEXP_COUNT(uname, 'a(') FROM clicks`).then(() => undefined, (x: unknown) => x)
    expect(regex).toBeInstanceOf(WeirError)
    expect((regex as WeirError).message).toMatch(/^invalid regular expression 'a\('/)
    expect((regex as WeirError).span?.start).toMatchObject({ line: 1, column: 8 })
  })
})
