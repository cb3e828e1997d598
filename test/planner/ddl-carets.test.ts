// Where a CREATE TABLE's error points: at the option key that is unknown or misplaced, at the value
// that is wrong (an unknown connector's name too), at the column a connector cannot serve — for
// every connector — never at the whole statement when the fault is one part of it.
import { describe, expect, it } from 'vitest'
import { pointed } from '../support/pointed.js'

const table = (cols: string, options: string): string => `CREATE TABLE t (${cols}) WITH (${options})`

describe('CREATE TABLE errors point at', () => {
  it("an unknown connector's name, not the 'connector' key", async () => {
    expect(await pointed(table('a INT', `'connector' = 'filesytem', 'path' = '/x'`))).toEqual({ message: "unknown connector 'filesytem'", at: "'filesytem'" })
  })

  it('the option a connector needs and lacks: the connector', async () => {
    expect((await pointed(table('a INT', `'connector' = 'filesystem', 'format' = 'json'`))).at).toBe("'filesystem'")
  })

  it.each([
    ['filesystem', `'connector' = 'filesystem', 'path' = '/x', 'format' = 'xml'`, "'xml'"],
    ['filesystem', `'connector' = 'filesystem', 'path' = '/x', 'json.ignore-parse-errors' = 'yes'`, "'yes'"],
    ['filesystem', `'connector' = 'filesystem', 'path' = '/x', 'format' = 'csv', 'csv.field-delimiter' = ';;'`, "';;'"],
    ['filesystem', `'connector' = 'filesystem', 'path' = ' '`, "' '"],
    ['datagen', `'connector' = 'datagen', 'rows-per-second' = 'fast'`, "'fast'"],
    ['datagen', `'connector' = 'datagen', 'fields.a.kind' = 'sequence', 'fields.a.start' = '9', 'fields.a.end' = '1'`, "'1'"],
    ['datagen', `'connector' = 'datagen', 'fields.a.min' = '9', 'fields.a.max' = '1'`, "'1'"],
    ['datagen', `'connector' = 'datagen', 'fields.a.kind' = 'randm'`, "'randm'"],
    ['nexmark', `'connector' = 'nexmark', 'nexmark.table' = 'bids'`, "'bids'"],
    ['nexmark', `'connector' = 'nexmark', 'nexmark.base-time' = 'yesterday'`, "'yesterday'"],
    ['print', `'connector' = 'print', 'standard-error' = 'maybe'`, "'maybe'"],
  ])('a bad value (%s): the value', async (_connector, options, at) => {
    const cols = options.includes('nexmark') ? 'auction BIGINT' : 'a INT'
    expect((await pointed(table(cols, options))).at).toBe(at)
  })

  it.each([
    ['filesystem', `'connector' = 'filesystem', 'path' = '/x', 'pth' = '/y'`, "'pth'"],
    ['filesystem', `'connector' = 'filesystem', 'path' = '/x', 'format' = 'json', 'csv.null-literal' = 'n'`, "'csv.null-literal'"],
    ['datagen', `'connector' = 'datagen', 'rows-per-secnd' = '5'`, "'rows-per-secnd'"],
    ['datagen', `'connector' = 'datagen', 'fields.b.kind' = 'random'`, "'fields.b.kind'"],
    ['datagen', `'connector' = 'datagen', 'fields.a.length' = '3'`, "'fields.a.length'"],
    ['nexmark', `'connector' = 'nexmark', 'nexmark.tabel' = 'bid'`, "'nexmark.tabel'"],
    ['print', `'connector' = 'print', 'print-identifer' = 'x'`, "'print-identifer'"],
    ['blackhole', `'connector' = 'blackhole', 'path' = '/x'`, "'path'"],
  ])('an unknown or misplaced option (%s): its key', async (_connector, options, at) => {
    const cols = options.includes('nexmark') ? 'auction BIGINT' : 'a INT'
    expect((await pointed(table(cols, options))).at).toBe(at)
  })

  it('a column nexmark does not have, or of another type: the column', async () => {
    expect(await pointed(table('auction BIGINT, bidr BIGINT', `'connector' = 'nexmark'`))).toEqual({
      message: "column 'bidr' is not a field of nexmark table 'bid'",
      at: 'bidr BIGINT',
    })
    expect((await pointed(table('auction BIGINT, url DATE', `'connector' = 'nexmark'`))).at).toBe('url DATE')
  })
})

describe('reading a table its connector cannot read is refused where the query reads it', () => {
  it.each(['print', 'blackhole'])('%s: the table reference', async connector => {
    const sql = `${table('a INT', `'connector' = '${connector}'`)}; SELECT a FROM t AS x`
    expect(await pointed(sql)).toEqual({ message: `table 't' uses connector '${connector}', which cannot be read`, at: 't AS x' })
  })

  it('a Kafka table written without a consumer group, read with the default group-offsets start', async () => {
    const kafka = `'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'h:1', 'format' = 'json'`
    // Written, the table needs no group; the error points at the read, not at the INSERT's target.
    const sql = `${table('a INT', kafka)}; INSERT INTO t SELECT a FROM t AS r`
    const e = await pointed(sql)
    expect(e.message).toBe(`table 't' cannot be read: 'scan.startup.mode' = 'group-offsets' needs 'properties.group.id'`)
    expect(e.at).toBe('t AS r')
  })
})

describe('an OPTIONS hint is checked where it is written, before any job runs', () => {
  const fs = `'connector' = 'filesystem', 'path' = '/x', 'format' = 'json'`
  it.each([
    [`'bogus' = '1'`, `unsupported option 'bogus' for connector 'filesystem'`],
    [`'format' = 'xml'`, `'xml'`],
  ])('%s', async (hint, message) => {
    const sql = `${table('a INT', fs)}; SELECT a FROM t /*+ OPTIONS(${hint}) */`
    const e = await pointed(sql)
    expect(e.message).toContain(`in the OPTIONS hint on table 't': `)
    expect(e.message).toContain(message)
    expect(e.at).toBe(`OPTIONS(${hint})`)
  })
})
