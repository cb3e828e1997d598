// The 'nexmark' connector: one table ('nexmark.table' = bid | auction | person) of the Nexmark event
// stream, generated as fast as the consumer takes it in chunks of batchSize rows (or, with
// 'max-emit-speed' = 'false', each event at its wall-clock time at 'event.rate'). Event n is a
// function of n alone, so the source splits (splits.ts: each subtask generates its own blocks of
// events), a position is an event number and a restored reader starts there.
import type { Row } from '../../core/batch.js'
import type { ConnectorFactory, SourceChunk, SourceContext, SourceReader, SplitPosition } from '../api.js'
import { nexmarkBounded, resolveNexmarkConfig, type NexmarkConfig } from './config.js'
import { auctionRowBuilder, bidRowBuilder, NexmarkModel, personRowBuilder, type RowBuilder } from './generator.js'
import { freshSplits, restoredSplits, splitPosition, type NexmarkSplit } from './splits.js'
import { untilDue } from '../../core/yield.js'

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

  /** Appends up to `max` rows of the events before `limit` (and 'events.num') to `out`; returns how many. */
  fill(out: Row[], max: number, limit = Infinity): number {
    const total = this.model.total
    const { kindStart, kindEnd } = this
    const end = Math.min(this.config.maxEvents, limit)
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
 * The position of a nexmark split after a chunk: the number of the next event to consider (events of
 * every kind count, as the stream's ids and times do), and which blocks of events the split holds
 * (splits.ts; absent for the one split of a run at parallelism 1). The split has ended once it
 * reaches 'events.num', or at once for a table whose proportion is 0.
 *
 * @example { event: 46000 }, { event: 46000, stride: 2, residue: 1, block: 1000 }
 */
export type NexmarkPosition = ReturnType<typeof splitPosition>

/** The first event at or after `s.event` that is in one of the split's blocks (at most `end`). */
function nextOwn(s: NexmarkSplit, end: number): number {
  let n = Math.min(s.event, end)
  if (s.stride > 1) {
    const b = Math.floor(n / s.block)
    const skip = (s.residue - (b % s.stride) + s.stride) % s.stride
    if (skip !== 0) n = Math.min((b + skip) * s.block, end)
  }
  return n
}

/** Reads the splits a subtask owns (splits.ts), the one furthest behind first so their event times move together. */
class NexmarkReader implements SourceReader {
  readonly splitCount: number
  readonly startPositions: readonly SplitPosition[]
  /**
   * Every split holds the watermark back from the start: a split restored ahead of another must not
   * move it past the rows the other still has to give (they would be late).
   */
  readonly concurrentSplits = true
  private readonly gen: NexmarkTableGenerator
  private readonly splits: { event: number; readonly stride: number; readonly residue: number; readonly block: number; ended: boolean }[]
  private ended = false
  /** Pacing ('max-emit-speed' = false): when the first next() ran, and the event due then (0, or where a restore resumed). */
  private startedAt = -1
  private readonly firstEvent: number

  constructor(config: NexmarkConfig, private readonly ctx: SourceContext) {
    this.gen = new NexmarkTableGenerator(config)
    const index = ctx.subtask?.index ?? 0, parallelism = ctx.subtask?.parallelism ?? 1
    const restored = ctx.restoredPositions === undefined
      ? freshSplits(index, parallelism)
      : restoredSplits(ctx.restoredPositions, ctx.table, index, parallelism)
    // Past 'events.num' (a checkpoint of a longer run): the split has ended.
    this.splits = restored.map(s => ({ ...s, event: nextOwn(s, config.maxEvents), ended: false }))
    this.splitCount = this.splits.length
    this.startPositions = this.splits.map(splitPosition)
    // A fresh run's clock starts at event 0 for every subtask (a subtask's first block may start later); a restored one
    // at the earliest event its splits resume from.
    this.firstEvent = ctx.restoredPositions === undefined ? 0 : Math.min(...restored.map(s => s.event))
  }

  async next(): Promise<SourceChunk | null> {
    const { signal } = this.ctx
    if (this.ended || signal.aborted) return null
    let at = -1
    for (let i = 0; i < this.splits.length; i++) {
      const s = this.splits[i]!
      if (!s.ended && (at < 0 || s.event < this.splits[at]!.event)) at = i
    }
    if (at < 0) {
      this.ended = true
      return null
    }
    const split = this.splits[at]!
    const { rate, maxEmitSpeed } = this.gen.config
    // Paced: wait until the chunk's first event is due (the split's events are the stream's numbers, so every subtask keeps to
    // the one clock and together they make 'event.rate'); a chunk spans at most a tenth of a second of events.
    const wait = maxEmitSpeed ? 0 : this.dueAt(split.event) - Date.now()
    if (!(await untilDue(wait, signal))) return null
    const limit = maxEmitSpeed ? Infinity : split.event + Math.max(1, Math.ceil(rate / 10))
    const rows: Row[] = []
    // At the split's next event of its own, so the split furthest behind in event time is read first.
    split.event = nextOwn({ ...split, event: this.fillSplit(split, rows, Math.max(1, this.ctx.batchSize), limit) }, this.gen.config.maxEvents)
    const position = splitPosition(split)
    if (split.event >= this.gen.config.maxEvents || this.gen.done) {
      split.ended = true
      return { rows, split: at, splitEnded: true, position }
    }
    return { rows, split: at, position }
  }

  /** When event `n` is due at 'event.rate', in epoch ms, counted from this reader's first next(). */
  private dueAt(n: number): number {
    if (this.startedAt < 0) this.startedAt = Date.now()
    return this.startedAt + ((n - this.firstEvent) * 1000) / this.gen.config.rate
  }

  /** Appends up to `max` rows of `split`'s events before `limit` from its position; returns its position after them. */
  private fillSplit(split: NexmarkSplit, out: Row[], max: number, limit: number): number {
    const gen = this.gen
    const end = Math.min(gen.config.maxEvents, limit)
    const { stride, residue, block } = split
    let n = split.event
    if (stride === 1) {
      gen.position = n
      gen.fill(out, max, end)
      return gen.position
    }
    let made = 0
    while (made < max && n < end) {
      // To the next block of this split's.
      const b = Math.floor(n / block)
      const skip = (residue - (b % stride) + stride) % stride
      if (skip !== 0) n = (b + skip) * block
      if (n >= end) break
      gen.position = n
      made += gen.fill(out, max - made, Math.min((Math.floor(n / block) + 1) * block, end))
      n = gen.position
      if (gen.done) break
    }
    return Math.min(n, end)
  }

  metrics(): Readonly<Record<string, number>> {
    return {}
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
    splittable: true,
    async create(ctx) {
      return new NexmarkReader(resolveNexmarkConfig(ctx.options, ctx.schema), ctx)
    },
  },
}
