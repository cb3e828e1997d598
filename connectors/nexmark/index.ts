// The 'nexmark' connector: one table ('nexmark.table' = bid | auction | person) of the Nexmark event
// stream, generated as fast as the consumer takes it in chunks of batchSize rows, one split. Event n
// is a function of n alone, so a position is an event number and a restored reader starts there.
import type { Row } from '../../core/batch.js'
import type { ConnectorFactory, SourceChunk, SourceContext, SourceReader, SplitPosition } from '../api.js'
import { nexmarkBounded, resolveNexmarkConfig, type NexmarkConfig } from './config.js'
import { auctionRowBuilder, bidRowBuilder, NexmarkModel, personRowBuilder, type RowBuilder } from './generator.js'
import { singleSplitPosition } from '../positions.js'
import { EventLoopYielder } from '../../core/yield.js'

export { resolveNexmarkConfig } from './config.js'

/**
 * Generates the rows of one Nexmark table. The whole event sequence is walked (so ids and times are
 * those of the full stream) but only events of the table's kind are built.
 */
export class NexmarkTableGenerator {
  readonly model: NexmarkModel
  private readonly build: RowBuilder
  /** The table's event kind occupies [kindStart, kindEnd) of each cycle of `total` event numbers. */
  private readonly kindStart: number
  private readonly kindEnd: number
  /** The next event number to consider; the rows from here on do not depend on where generation started. */
  position = 0

  constructor(readonly config: NexmarkConfig) {
    const m = new NexmarkModel(config)
    this.model = m
    const p = config.personProportion, a = config.auctionProportion
    switch (config.table) {
      case 'person':
        this.build = personRowBuilder(m, config.columns)
        this.kindStart = 0
        this.kindEnd = p
        break
      case 'auction':
        this.build = auctionRowBuilder(m, config.columns)
        this.kindStart = p
        this.kindEnd = p + a
        break
      case 'bid':
        this.build = bidRowBuilder(m, config.columns)
        this.kindStart = p + a
        this.kindEnd = m.total
        break
    }
    const decimals = config.types.flatMap((t, i) => (t.kind === 'DECIMAL' ? [[i, 10n ** BigInt(t.scale)] as const] : []))
    if (decimals.length > 0) {
      const inner = this.build
      this.build = n => {
        const row = inner(n)
        for (const [i, factor] of decimals) row[i] = BigInt(row[i] as number) * factor
        return row
      }
    }
  }

  /** True once every event up to 'events.num' has been considered. */
  get done(): boolean {
    return this.position >= this.config.maxEvents || this.kindEnd <= this.kindStart
  }

  /** Appends up to `max` rows to `out`; returns how many. */
  fill(out: Row[], max: number): number {
    const total = this.model.total
    const { kindStart, kindEnd } = this
    const end = this.config.maxEvents
    const build = this.build
    // A table whose kind has proportion 0 has no events (`done` is true); the position stays finite for checkpoints.
    if (kindEnd <= kindStart) return 0
    let n = this.position
    let rem = n % total
    let made = 0
    while (made < max) {
      // Jump to the next event of this table's kind.
      if (rem < kindStart) {
        n += kindStart - rem
        rem = kindStart
      } else if (rem >= kindEnd) {
        n += total - rem + kindStart
        rem = kindStart
      }
      if (n >= end) {
        n = end
        break
      }
      out.push(build(n))
      made++
      n++
      rem++
      if (rem === total) rem = 0
    }
    this.position = n
    return made
  }
}

/**
 * The position of nexmark's one split after a chunk: the number of the next event to consider
 * (events of every kind count, as the stream's ids and times do). The split has ended once it
 * reaches 'events.num', or at once for a table whose proportion is 0.
 *
 * @example { event: 46000 }
 */
export interface NexmarkPosition {
  readonly event: number
}

function asNexmarkPosition(restored: readonly (SplitPosition | null)[] | undefined, table: string): NexmarkPosition | null {
  return singleSplitPosition(restored, table, 'nexmark', '{ event }', p => {
    const event = (p as Partial<NexmarkPosition>).event
    return typeof event === 'number' && Number.isSafeInteger(event) && event >= 0 ? { event } : null
  })
}

class NexmarkReader implements SourceReader {
  readonly splitCount = 1
  private ended = false
  private readonly gen: NexmarkTableGenerator
  private readonly yielder = new EventLoopYielder()

  constructor(config: NexmarkConfig, private readonly ctx: SourceContext) {
    this.gen = new NexmarkTableGenerator(config)
    const restored = asNexmarkPosition(ctx.restoredPositions, ctx.table)
    // Past 'events.num' (a checkpoint of a longer run): the split has ended.
    if (restored !== null) this.gen.position = Math.min(restored.event, config.maxEvents)
  }

  async next(): Promise<SourceChunk | null> {
    if (this.ended || this.ctx.signal.aborted) return null
    const turn = this.yielder.due()
    if (turn !== null) {
      await turn
      if (this.ctx.signal.aborted) return null
    }
    const rows: Row[] = []
    this.gen.fill(rows, Math.max(1, this.ctx.batchSize))
    const position: NexmarkPosition = { event: this.gen.position }
    if (this.gen.done) {
      this.ended = true
      return { rows, split: 0, splitEnded: true, position }
    }
    return { rows, split: 0, position }
  }

  metrics(): Readonly<Record<string, number>> {
    return { events: Math.min(this.gen.position, this.gen.config.maxEvents) }
  }

  async close(): Promise<void> {
    this.ended = true
  }
}

/**
 * @example CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
 *   dateTime TIMESTAMP(3), extra STRING) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'nexmark.events.num' = '10000000')
 */
export const nexmarkConnector: ConnectorFactory = {
  name: 'nexmark',
  source: {
    validate(options, schema) {
      resolveNexmarkConfig(options, schema)
    },
    bounded: nexmarkBounded,
    async create(ctx) {
      return new NexmarkReader(resolveNexmarkConfig(ctx.options, ctx.schema), ctx)
    },
  },
}
