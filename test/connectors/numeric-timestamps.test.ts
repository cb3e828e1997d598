// Numbers for TIMESTAMP and DATE columns: an error with the record's position and a help line (as
// Flink rejects them), unless 'json.timestamp-format.epoch' / 'csv.timestamp-format.epoch' says
// whether they count seconds or milliseconds.
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { T, type Field } from '../../common/types.js'
import { parseTimestamp } from '../../common/values.js'
import { filesystemConnector } from '../../connectors/filesystem/index.js'
import { epochToMillis } from '../../connectors/filesystem/convert.js'
import { errorOf, readAllRows, sourceCtx, tempDir } from './helpers.js'

const source = filesystemConnector.source!
const TS: Field[] = [{ name: 'id', type: T.int() }, { name: 'ts', type: T.timestamp(3) }, { name: 'ltz', type: T.timestampLtz(3) }]
const MAY_1 = parseTimestamp('2024-05-01 12:00:00')!

let dir: string
let cleanup: () => void
beforeEach(() => {
  ;({ dir, cleanup } = tempDir())
})
afterEach(() => cleanup())

/** Writes `lines` to a file of `dir` and returns its path. */
function write(lines: string[], name = 'in.json'): string {
  const path = join(dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

async function readAll(options: Record<string, string>, schema: Field[]) {
  const all = { connector: 'filesystem', ...options }
  source.validate(all, schema)
  return readAllRows(await source.create(sourceCtx(all, schema)))
}

describe('JSON', () => {
  it('rejects a number for a TIMESTAMP column, naming the file, line and column, with a help line', async () => {
    const path = write(['{"id": 1, "ts": "2024-05-01 12:00:00"}', '{"id": 2, "ts": 1714564800}'])
    const e = await errorOf(() => readAll({ path, format: 'json' }, TS))
    expect(e.message).toBe(
      `bad record at ${path}:2 (table 't'): column 'ts': expected TIMESTAMP(3) as 'yyyy-MM-dd HH:mm:ss[.SSS]' or ISO-8601, found the number 1714564800`,
    )
    expect(e.record?.line).toBe(2)
    expect(e.help).toBe(
      "a number could be epoch seconds or milliseconds: set 'json.timestamp-format.epoch' = 'seconds' or 'millis' to read it as one of them; "
        + "or set 'json.ignore-parse-errors' = 'true' to skip bad records",
    )
  })

  it('rejects a number in a string, and one for TIMESTAMP_LTZ, too', async () => {
    const path = write(['{"id": 1, "ltz": "1714564800000"}'])
    expect((await errorOf(() => readAll({ path, format: 'json' }, TS))).message).toContain(`column 'ltz'`)
    const p2 = write(['{"id": 1, "ts": 1.5}'], 'b.json')
    expect((await errorOf(() => readAll({ path: p2, format: 'json' }, TS))).message).toContain('found the number 1.5')
  })

  it("reads epoch seconds or milliseconds when 'json.timestamp-format.epoch' says which", async () => {
    const lines = ['{"id": 1, "ts": 1714564800, "ltz": "1714564800"}', '{"id": 2, "ts": 1714564800.123, "ltz": "2024-05-01 12:00:00"}', '{"id": 3, "ts": -1.5}']
    const path = write(lines)
    expect(await readAll({ path, format: 'json', 'json.timestamp-format.epoch': 'seconds' }, TS)).toEqual([
      [1, MAY_1, MAY_1],
      [2, MAY_1 + 123, MAY_1],
      [3, -1500, null],
    ])
    expect(await readAll({ path, format: 'json', 'json.timestamp-format.epoch': 'millis' }, TS)).toEqual([
      [1, 1714564800, 1714564800],
      [2, 1714564800, MAY_1],
      [3, -1, null],
    ])
  })

  it('skips such records with json.ignore-parse-errors', async () => {
    const path = write(['{"id": 1, "ts": 1714564800}', '{"id": 2, "ts": "2024-05-01 12:00:00"}'])
    expect(await readAll({ path, format: 'json', 'json.ignore-parse-errors': 'true' }, TS)).toEqual([[2, MAY_1, null]])
  })

  it('rejects a number for a DATE column rather than reading it as days', async () => {
    const schema: Field[] = [{ name: 'day', type: T.date() }]
    const path = write(['{"day": 19844}'])
    const e = await errorOf(() => readAll({ path, format: 'json' }, schema))
    expect(e.message).toContain(`column 'day': expected DATE as 'yyyy-MM-dd', found the number 19844`)
  })

  it('checks the option value', async () => {
    const e = await errorOf(() => source.validate({ connector: 'filesystem', path: dir, format: 'json', 'json.timestamp-format.epoch': 'second' }, TS))
    expect(e.message).toBe(`invalid value 'second' for option 'json.timestamp-format.epoch': expected one of 'seconds', 'millis'`)
    expect(e.help).toBe(`did you mean 'seconds'?`)
  })
})

describe('CSV', () => {
  it("rejects a numeric field for a TIMESTAMP column unless 'csv.timestamp-format.epoch' is set", async () => {
    const path = write(['1,2024-05-01 12:00:00,', '2,1714564800000,'], 'in.csv')
    const e = await errorOf(() => readAll({ path, format: 'csv' }, TS))
    expect(e.message).toContain(`${path}:2`)
    expect(e.message).toContain(`found the numeric string "1714564800000"`)
    expect(e.help).toContain(`set 'csv.timestamp-format.epoch' = 'seconds' or 'millis'`)
    expect(await readAll({ path, format: 'csv', 'csv.timestamp-format.epoch': 'millis' }, TS)).toEqual([
      [1, MAY_1, null],
      [2, MAY_1, null],
    ])
  })
})

describe('epochToMillis', () => {
  it('truncates below a millisecond, exactly on the decimal value', () => {
    expect(epochToMillis(1714564800.123, 'seconds')).toBe(1714564800123)
    expect(epochToMillis(0.0019, 'seconds')).toBe(1)
    expect(epochToMillis(-0.0019, 'seconds')).toBe(-1)
    expect(epochToMillis(1714564800123.9, 'millis')).toBe(1714564800123)
  })
})
