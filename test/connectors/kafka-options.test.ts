// One 'kafka' table may be read and written: each side checks the options that are its own and the
// ones both share, so a sink's options do not make the table unreadable or the other way round, while an
// option neither side knows is still refused at its key.
import { describe, expect, it } from 'vitest'
import { Session } from '../../engine/session.js'
import { WeirError } from '../../common/errors.js'
import { resolveConnection } from '../../connectors/kafka/sink/options.js'

const table = (extra: string): string =>
  `CREATE TABLE t (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json', 'scan.startup.mode' = 'earliest-offset'${extra})`

async function create(extra: string): Promise<unknown> {
  return new Session({ println: () => undefined }).executeSql(table(extra)).then(() => undefined, (e: unknown) => e)
}

describe("the 'kafka' connector's options, as source and sink", () => {
  it('takes the sink options and the source options on one table', async () => {
    expect(await create(`, 'sink.delivery-guarantee' = 'at-least-once', 'scan.bounded.mode' = 'latest-offset'`)).toBeUndefined()
    expect(await create(`, 'key.fields' = 'id', 'key.format' = 'json', 'properties.group.id' = 'g', 'json.ignore-parse-errors' = 'true'`)).toBeUndefined()
  })

  it('takes a table only a sink can be (no group for the default startup mode), and one only a source can be', async () => {
    const sinkOnly = `CREATE TABLE o (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'o', 'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json')`
    expect(await new Session({ println: () => undefined }).executeSql(sinkOnly).then(() => undefined, (e: unknown) => e)).toBeUndefined()
    expect(await create(`, 'scan.bounded.mode' = 'latest-offset', 'properties.group.id' = 'g'`)).toBeUndefined()
  })

  it("checks the sink's options as the sink would, and refuses what neither side knows", async () => {
    const bad = await create(`, 'sink.partitioner' = 'sideways'`)
    expect(bad).toBeInstanceOf(WeirError)
    expect((bad as WeirError).message).toContain('sink.partitioner')
    const unknown = await create(`, 'scan.startup.mood' = 'latest-offset'`)
    expect(unknown).toBeInstanceOf(WeirError)
    expect((unknown as WeirError).message).toContain('scan.startup.mood')
    const keyless = await create(`, 'key.fields' = 'nope'`)
    expect(keyless).toBeInstanceOf(WeirError)
    expect((keyless as WeirError).message).toContain('key.fields')
  })

  it("takes 'properties.compression.type' none or gzip for the sink (the source side leaves it alone), and refuses codecs Weir has not", async () => {
    expect(await create(`, 'properties.compression.type' = 'gzip'`)).toBeUndefined()
    expect(await create(`, 'properties.compression.type' = 'none'`)).toBeUndefined()
    expect(resolveConnection({ topic: 't', 'properties.bootstrap.servers': 'h:1', 'properties.compression.type': 'gzip' }).compression).toBe('gzip')
    expect(resolveConnection({ topic: 't', 'properties.bootstrap.servers': 'h:1' }).compression).toBe('none')
    const snappy = await create(`, 'properties.compression.type' = 'snappy'`)
    expect(snappy).toBeInstanceOf(WeirError)
    expect((snappy as WeirError).message).toContain(`invalid value 'snappy' for option 'properties.compression.type'`)
    expect((snappy as WeirError).help).toContain(`use 'gzip' or 'none'`)
  })
})
