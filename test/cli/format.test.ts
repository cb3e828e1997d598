// Terminal tables: any number of rows, and rows streamed with widths from the column types.
import { describe, expect, it } from 'vitest'
import { renderTable, StreamingTable } from '../../cli/format.js'
import { T } from '../../common/types.js'

describe('renderTable', () => {
  it('renders 200,000 rows (widths found without spreading the rows into arguments)', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => ['+I', String(i)])
    const text = renderTable(['op', 'n'], rows)
    const lines = text.split('\n')
    expect(lines).toHaveLength(200_000 + 5)
    expect(lines[3]).toBe('| +I |      0 |')
    expect(lines.at(-2)).toBe('+----+--------+')
    expect(lines.at(-1)).toBe('200000 rows in set')
  })
})

describe('StreamingTable', () => {
  it('prints the header at once, rows as they come, long values cut, then the count', () => {
    const out: string[] = []
    const t = new StreamingTable([{ name: 'n', type: T.int() }, { name: 's', type: T.string() }, { name: 'ok', type: T.boolean() }], s => out.push(s))
    expect(out.join('')).toBe([
      '+----+-------------+--------------------------------+--------+',
      '| op |           n |                              s |     ok |',
      '+----+-------------+--------------------------------+--------+',
      '',
    ].join('\n'))
    t.rows([[1, 'x'.repeat(40), true], [null, 'y', null]], Uint8Array.of(0, 3))
    t.end()
    expect(out.slice(1).join('')).toBe([
      `| +I |           1 | ${'x'.repeat(27)}... |   TRUE |`,
      '| -D |      <NULL> |                              y | <NULL> |',
      '+----+-------------+--------------------------------+--------+',
      'Received a total of 2 rows',
      '',
    ].join('\n'))
  })
})
