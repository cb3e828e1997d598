// The nexmark connector's options and tables: which event kind a table holds, its fields (matched to
// the declared columns by name, ignoring case and underscores), and the generator's parameters.
import { WeirError } from '../../common/errors.js'
import { parseSize } from '../../common/durations.js'
import type { DataType, Field, TypeKind } from '../../common/types.js'
import { formatType } from '../../common/types.js'
import { parseTimestamp } from '../../common/values.js'
import type { ConnectorOptions } from '../api.js'
import { about, aboutKey, aboutValue, badValue, boolOption, checkKnownOptions, closest, enumOption, intOption, numberOption } from '../options.js'

export type NexmarkTable = 'person' | 'auction' | 'bid'

type FieldKind = 'long' | 'string' | 'time'

/** Each table's fields in the reference order, with their kind. */
export const TABLE_FIELDS: Record<NexmarkTable, readonly (readonly [string, FieldKind])[]> = {
  person: [['id', 'long'], ['name', 'string'], ['emailAddress', 'string'], ['creditCard', 'string'], ['city', 'string'], ['state', 'string'], ['dateTime',
    'time'], ['extra', 'string']],
  auction: [['id', 'long'], ['itemName', 'string'], ['description', 'string'], ['initialBid', 'long'], ['reserve', 'long'], ['dateTime', 'time'], ['expires',
    'time'], ['seller', 'long'], ['category', 'long'], ['extra', 'string']],
  bid: [['auction', 'long'], ['bidder', 'long'], ['price', 'long'], ['channel', 'string'], ['url', 'string'], ['dateTime', 'time'], ['extra', 'string']],
}

const ACCEPTS: Record<FieldKind, readonly TypeKind[]> = {
  long: ['BIGINT', 'INT', 'DOUBLE', 'DECIMAL'],
  string: ['STRING'],
  time: ['TIMESTAMP', 'TIMESTAMP_LTZ'],
}

export interface NexmarkConfig {
  readonly table: NexmarkTable
  /** Total events of all kinds, or Infinity. */
  readonly maxEvents: number
  /** Events per second of event time. */
  readonly rate: number
  /**
   * 'max-emit-speed' (true unless set, as in the reference generator): rows go out as fast as the job
   * takes them; false paces event n to its wall-clock time, the start + n / rate seconds.
   */
  readonly maxEmitSpeed: boolean
  readonly seed: number
  /** Event time of event 0, epoch ms. */
  readonly baseTime: number
  readonly personProportion: number
  readonly auctionProportion: number
  readonly bidProportion: number
  readonly hotAuctionRatio: number
  readonly hotBiddersRatio: number
  readonly hotSellersRatio: number
  readonly avgPersonByteSize: number
  readonly avgAuctionByteSize: number
  readonly avgBidByteSize: number
  /** For each declared column, the index of its field in TABLE_FIELDS[table]. */
  readonly columns: readonly number[]
  /** The declared types, for conversion (DECIMAL columns). */
  readonly types: readonly DataType[]
}

/** 2015-07-15 00:00:00.000 UTC, the reference generator's base time. */
export const DEFAULT_BASE_TIME = Date.UTC(2015, 6, 15)

// Tuning options of the reference generator, accepted with or without the 'nexmark.' prefix.
const TUNING = [
  'person.proportion',
  'auction.proportion',
  'bid.proportion',
  'bid.hot-ratio.auctions',
  'bid.hot-ratio.bidders',
  'auction.hot-ratio.sellers',
  'person.avg-size',
  'auction.avg-size',
  'bid.avg-size',
] as const

const OPTIONS = [
  'nexmark.table',
  'nexmark.events.num',
  'events.num',
  'nexmark.event.rate',
  'first-event.rate',
  'nexmark.first-event.rate',
  'next-event.rate',
  'nexmark.next-event.rate',
  'max-emit-speed',
  'nexmark.max-emit-speed',
  'nexmark.seed',
  'nexmark.base-time',
  // Read by the runtime (subtasks.ts): how many subtasks generate the events.
  'scan.parallelism',
  ...TUNING,
  ...TUNING.map(t => `nexmark.${t}`),
]

function normalize(name: string): string {
  return name.replace(/_/g, '').toLowerCase()
}

/** The option under its first present spelling. */
function pick(options: ConnectorOptions, keys: readonly string[]): string | undefined {
  const present = keys.filter(k => options[k] !== undefined)
  if (present.length > 1 && new Set(present.map(k => options[k]!.trim())).size > 1) {
    throw aboutKey(
      WeirError.connector(`options ${present.map(k => `'${k}'`).join(' and ')} are synonyms but have different values`, { help: 'keep one of them' }),
      present[1]!,
    )
  }
  return present[0]
}

function tuningInt(options: ConnectorOptions, name: string, fallback: number, min: number): number {
  const key = pick(options, [name, `nexmark.${name}`])
  return key === undefined ? fallback : intOption(options, key, fallback, min)
}

function tuningSize(options: ConnectorOptions, name: string, fallback: number): number {
  const key = pick(options, [name, `nexmark.${name}`])
  if (key === undefined) return fallback
  const v = parseSize(options[key]!)
  if (v === null) throw badValue(key, options[key]!, `a size such as '100b' or '1kb'`)
  return v
}

function parseBaseTime(options: ConnectorOptions): number {
  const text = options['nexmark.base-time']
  if (text === undefined) return DEFAULT_BASE_TIME
  if (/^\s*-?\d+\s*$/.test(text)) return Number(text)
  const ms = parseTimestamp(text)
  if (ms === null) {
    throw badValue('nexmark.base-time', text, `epoch milliseconds or 'yyyy-MM-dd HH:mm:ss'`)
  }
  return ms
}

/** Checks the options and the declared columns; resolves everything the generator needs. */
export function resolveNexmarkConfig(options: ConnectorOptions, schema: readonly Field[]): NexmarkConfig {
  checkKnownOptions('nexmark', options, OPTIONS)
  const table = enumOption(options, 'nexmark.table', ['bid', 'auction', 'person'] as const, 'bid')
  const eventsKey = pick(options, ['nexmark.events.num', 'events.num'])
  // As in the reference generator, 0 events means unbounded.
  const events = eventsKey === undefined ? 0 : intOption(options, eventsKey, 0, 0)
  const rateKey = pick(options, ['nexmark.event.rate', 'first-event.rate', 'nexmark.first-event.rate'])
  const rate = rateKey === undefined ? 10_000_000 : numberOption(options, rateKey, 10_000_000, Number.MIN_VALUE)
  const nextRateKey = pick(options, ['next-event.rate', 'nexmark.next-event.rate'])
  if (nextRateKey !== undefined && numberOption(options, nextRateKey, rate, Number.MIN_VALUE) !== rate) {
    throw aboutValue(WeirError.unsupported(`option '${nextRateKey}' differs from the first event rate; Weir's nexmark generator keeps one rate`, {
      help: `remove '${nextRateKey}' or give it the same value as the event rate`,
    }), nextRateKey)
  }
  const speedKey = pick(options, ['nexmark.max-emit-speed', 'max-emit-speed'])
  const maxEmitSpeed = speedKey === undefined ? true : boolOption(options, speedKey, true)
  const seed = intOption(options, 'nexmark.seed', 0)
  const personProportion = tuningInt(options, 'person.proportion', 1, 0)
  const auctionProportion = tuningInt(options, 'auction.proportion', 3, 0)
  const bidProportion = tuningInt(options, 'bid.proportion', 46, 0)
  if (personProportion + auctionProportion + bidProportion === 0) {
    throw WeirError.connector(`the nexmark proportions add up to 0`, { help: `the defaults are person 1, auction 3, bid 46` })
  }
  const fields = TABLE_FIELDS[table]
  const normalized = fields.map(([name]) => normalize(name))
  const columns = schema.map(col => {
    const index = normalized.indexOf(normalize(col.name))
    if (index === -1) {
      const names = fields.map(([name]) => name)
      const guess = closest(col.name, names)
      throw about(WeirError.connector(`column '${col.name}' is not a field of nexmark table '${table}'`, {
        help: `${guess !== undefined ? `did you mean '${guess}'? ` : ''}the fields are ${names.join(', ')}`,
      }), { column: col.name })
    }
    const [name, kind] = fields[index]!
    if (!ACCEPTS[kind].includes(col.type.kind)) {
      throw about(
        WeirError.connector(
          `column '${col.name}' is declared ${formatType(col.type)}, but nexmark's ${table}.${name} is ${
            kind === 'long' ? 'BIGINT' : kind === 'string' ? 'STRING' : 'TIMESTAMP(3)'
          }`,
          {
            help: `declare it as one of ${ACCEPTS[kind].join(', ')}`,
          },
        ),
        { column: col.name },
      )
    }
    return index
  })
  return {
    table,
    maxEvents: events === 0 ? Infinity : events,
    rate,
    maxEmitSpeed,
    seed,
    baseTime: parseBaseTime(options),
    personProportion,
    auctionProportion,
    bidProportion,
    hotAuctionRatio: tuningInt(options, 'bid.hot-ratio.auctions', 2, 1),
    hotBiddersRatio: tuningInt(options, 'bid.hot-ratio.bidders', 4, 1),
    hotSellersRatio: tuningInt(options, 'auction.hot-ratio.sellers', 4, 1),
    avgPersonByteSize: tuningSize(options, 'person.avg-size', 200),
    avgAuctionByteSize: tuningSize(options, 'auction.avg-size', 500),
    avgBidByteSize: tuningSize(options, 'bid.avg-size', 100),
    columns,
    types: schema.map(f => f.type),
  }
}

/** Whether the options bound the stream ('events.num' > 0). */
export function nexmarkBounded(options: ConnectorOptions): boolean {
  const text = options['nexmark.events.num'] ?? options['events.num']
  return text !== undefined && /^\s*\d+\s*$/.test(text) && Number(text) > 0
}
