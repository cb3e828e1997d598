// What a process table function refuses, each at its SQL line and column with a caret (a missing or
// unusable module, an unknown function or argument, no PARTITION BY), what EXPLAIN says of its state,
// a handler's exception (the job fails naming the function, the key and the row), and TTL expiry.
import { describe, expect, it } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Session } from '../../engine/session.js'
import { renderError, WeirError } from '../../common/errors.js'
import { fails } from '../engine/helpers.js'
import { ProcessFunctionOperator } from '../../operators/process-function.js'
import { T } from '../../common/types.js'
import { harness } from '../operators/harness.js'

const MODULES = resolve(import.meta.dirname, 'modules')
const TABLE = `CREATE TABLE payments (card_id STRING, merchant STRING, amount DOUBLE)
  WITH ('connector' = 'filesystem', 'path' = '/nonexistent.jsonl', 'format' = 'json');
CREATE FUNCTION counter AS '${MODULES}/counter.ts' LANGUAGE TYPESCRIPT;
`

async function refused(sql: string): Promise<string> {
  const e = await fails(sql)
  return renderError(e, sql)
}

describe('refusals at the SQL', () => {
  it('a module that does not exist', async () => {
    const text = await refused(`CREATE FUNCTION f AS './no/such/module.ts' LANGUAGE TYPESCRIPT`)
    expect(text).toContain('cannot read module')
    expect(text).toContain('no such file')
    expect(text).toContain('<sql>:1:22')
    expect(text).toContain(`  |                      ${'^'.repeat("'./no/such/module.ts'".length)}\n`)
  })

  it('a module that exports no process function', async () => {
    const text = await refused(`CREATE FUNCTION f\n  AS '${MODULES}/not-a-function.ts'`)
    expect(text).toContain('exports no process function')
    expect(text).toContain('<sql>:2:6')
    expect(text).toContain('help: export default defineProcessFunction')
  })

  it('a LANGUAGE other than TypeScript or JavaScript, and one that does not match the file', async () => {
    expect(await refused(`CREATE FUNCTION f AS 'f.py' LANGUAGE PYTHON`)).toContain('LANGUAGE PYTHON are not supported')
    const text = await refused(`CREATE FUNCTION f AS '${MODULES}/counter.ts' LANGUAGE JAVASCRIPT`)
    expect(text).toContain('LANGUAGE JAVASCRIPT does not match')
    expect(text).toMatch(/<sql>:1:\d+/)
  })

  it('an unknown argument, with the closest one', async () => {
    const text = await refused(`${TABLE}SELECT * FROM counter(input => TABLE payments PARTITION BY card_id, treshold => 5)`)
    expect(text).toContain("counter has no argument 'treshold'")
    expect(text).toContain('<sql>:4:69')
    expect(text).toContain(`  | ${' '.repeat(68)}^^^^^^^^\n`)
    expect(text).toContain("did you mean 'threshold'?")
  })

  it('a TABLE argument without PARTITION BY', async () => {
    const text = await refused(`${TABLE}SELECT * FROM counter(input => TABLE payments)`)
    expect(text).toContain('needs PARTITION BY')
    expect(text).toContain('<sql>:4:23')
  })

  it('an unknown function, and a PARTITION BY column that is not there', async () => {
    expect(await refused(`${TABLE}SELECT * FROM countr(input => TABLE payments PARTITION BY card_id)`)).toContain("did you mean 'counter'?")
    const text = await refused(`${TABLE}SELECT * FROM counter(input => TABLE payments PARTITION BY card)`)
    expect(text).toContain("column 'card' not found")
    expect(text).toContain('<sql>:4:60')
  })

  it('spelled TABLE(f(…)): an unknown function, or a misspelt window function without its DESCRIPTOR, with a guess at the name', async () => {
    const text = await refused(`${TABLE}SELECT * FROM TABLE(countr(input => TABLE payments PARTITION BY card_id))`)
    expect(text).toContain("table function 'countr' not found")
    expect(text).toContain("did you mean 'counter'?")
    expect(text).toContain('<sql>:4:21')
    expect(await refused(`${TABLE}SELECT * FROM TABLE(TUMBL(TABLE payments))`)).toContain("did you mean 'TUMBLE'?")
  })

  it('an input without a column the function reads', async () => {
    const text = await refused(`${TABLE}SELECT * FROM counter(input => TABLE (SELECT card_id FROM payments) PARTITION BY card_id)`)
    expect(text).toContain("counter reads column 'amount', which its input does not have")
  })
})

describe('EXPLAIN', () => {
  it('shows each state with its TTL and warns of one without', async () => {
    const session = new Session({ println: () => undefined })
    const [, , , result] = await session.executeSql(`${TABLE}CREATE FUNCTION merchants AS '${MODULES}/merchants.js';
      EXPLAIN SELECT * FROM counter(input => TABLE payments PARTITION BY card_id, threshold => 100)
        UNION ALL SELECT card_id, times, CAST(merchants AS DOUBLE), FALSE FROM merchants(input => TABLE payments PARTITION BY card_id)`)
    const text = (result as { text: string }).text
    expect(text).toContain('ProcessFunction(function=[counter], partitionBy=[card_id], args=[threshold=100], output=[n, total, flagged]')
    expect(text).toContain("state: ValueState 'totals' per key (ctx.state.totals); key=[card_id]; ttl=[1 d]; bounded=[yes: keys idle for 1 d expire]")
    expect(text).toContain("state: MapState 'seen' per key (ctx.state.seen); key=[card_id]; ttl=[none]; bounded=[NO: kept until the function clears it]")
    expect(text).toContain('Exchange(distribution=[hash[card_id]])')
    expect(text).toMatch(/warning: \d+-process-function \(ProcessFunction merchants on \[card_id\]\): its MapState 'seen' has no TTL/)
    expect(text).not.toMatch(/warning: .*'totals'/)
  })
})

describe('at run time', () => {
  it("a handler's exception fails the job naming the function, the key and the row", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-ptf-fail-'))
    const data = join(dir, 'p.jsonl')
    writeFileSync(data, ['{"card_id":"a","amount":1}', '{"card_id":"b","amount":-2}', '{"card_id":"a","amount":3}'].join('\n') + '\n')
    const e = await fails(`CREATE TABLE p (card_id STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = '${data}', 'format' = 'json');
      CREATE TABLE out (card_id STRING, amount DOUBLE) WITH ('connector' = 'blackhole');
      CREATE FUNCTION failing AS '${MODULES}/failing.ts';
      INSERT INTO out SELECT * FROM failing(input => TABLE p PARTITION BY card_id);`)
    expect(e).toBeInstanceOf(WeirError)
    expect(e.message).toContain("process function 'failing' failed on key [b] at row (card_id=b, amount=-2.0): negative amount")
    expect(e.notes.join('\n')).toContain('process-function')
  })

  it('a state with a TTL expires: a key idle for longer starts again', async () => {
    const spec = {
      kind: 'ProcessFunction' as const,
      function: 'counter',
      module: `${MODULES}/counter.ts`,
      keys: [0],
      input: [{ name: 'card_id', type: T.string() }, { name: 'amount', type: T.double() }],
      output: [{ name: 'n', type: T.bigint() }, { name: 'total', type: T.double() }, { name: 'flagged', type: T.boolean() }],
      args: { threshold: 10 },
      states: [{ field: 'totals', name: 'totals', kind: 'value' as const, ttlMs: 86_400_000, updateTtlOnRead: false }],
      timers: false,
    }
    const h = await harness(new ProcessFunctionOperator(spec), { keys: [0], now: 1_000 })
    h.process([['a', 4], ['b', 1], ['a', 7]])
    expect(h.take()).toEqual([['+I', 'a', 1, 4, false], ['+I', 'b', 1, 1, false], ['+I', 'a', 2, 11, true]])
    h.processingTime(1_000 + 86_400_000 - 1)
    h.process([['a', 1]])
    expect(h.take()).toEqual([['+I', 'a', 3, 12, true]])
    // 'a' was written at the clock above; 'b' not since 1000: one day later 'b' is gone, 'a' not yet.
    h.processingTime(1_000 + 86_400_000)
    h.process([['b', 2], ['a', 1]])
    expect(h.take()).toEqual([['+I', 'b', 1, 2, false], ['+I', 'a', 4, 13, true]])
  })
})
