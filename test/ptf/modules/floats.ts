// A process function with FLOAT columns and argument: what it sees of a FLOAT input column (rounded
// to 32 bits, whatever its input held) and what it emits as FLOAT (rounded on the way out).
import { defineProcessFunction } from 'weir'

export default defineProcessFunction({
  input: { k: 'STRING', x: 'FLOAT' },
  output: { seen: 'DOUBLE', third: 'FLOAT', factor: 'DOUBLE' },
  args: { factor: 'FLOAT' },
  process(row, ctx) {
    const x = row.x ?? 0
    ctx.emit({ seen: x, third: x / 3, factor: ctx.args.factor ?? null })
  },
})
