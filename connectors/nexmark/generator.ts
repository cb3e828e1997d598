// The Nexmark event model, after the reference generator (nexmark/nexmark, nexmark-flink): event n is
// a person, an auction or a bid by n mod 50 (1/3/46); ids start at 1000; bids favour a hot auction
// (½) and a hot bidder (¾); prices are log-uniform; event time is base + n / rate.
import { blankRows, type Row } from '../../core/batch.js'
import type { NexmarkConfig } from './config.js'
import { below, draw, EventRandom, mix32, stream, TWO_32 } from './random.js'
import { channelTablesOf, ExtraPadding, FIRST_NAMES, HOT_CHANNELS, LAST_NAMES, nextString, nextStringLength, US_CITIES, US_STATES,
  type ChannelTables } from './strings.js'

export const FIRST_PERSON_ID = 1000
export const FIRST_AUCTION_ID = 1000
export const FIRST_CATEGORY_ID = 10
const NUM_CATEGORIES = 5
const HOT_AUCTION_GROUP = 100
const HOT_BIDDER_GROUP = 100
const HOT_SELLER_GROUP = 100
const NUM_IN_FLIGHT_AUCTIONS = 100
const NUM_ACTIVE_PEOPLE = 1000
const AUCTION_ID_LEAD = 10
const PERSON_ID_LEAD = 10

export const EventKind = { PERSON: 0, AUCTION: 1, BID: 2 } as const
export type EventKind = (typeof EventKind)[keyof typeof EventKind]

const FULL_NAMES = FIRST_NAMES.flatMap(f => LAST_NAMES.map(l => `${f} ${l}`))
const CARD_GROUPS = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0'))

// 10^(6u/2^32) × 100 from three small tables (by 11, 11 and 10 bits of u): Math.pow costs ~80 ns.
const PRICE_HI = Float64Array.from({ length: 2048 }, (_, i) => Math.pow(10, (i * 6) / 2048) * 100)
const PRICE_MID = Float64Array.from({ length: 2048 }, (_, i) => Math.pow(10, (i * 6) / 4194304))
const PRICE_LO = Float64Array.from({ length: 1024 }, (_, i) => Math.pow(10, (i * 6) / TWO_32))

/** A log-uniform price between 100 and 10^8 (cents), from one draw: round(10^(6u/2^32) × 100). */
export function price(u: number): number {
  return Math.round(PRICE_HI[u >>> 21]! * PRICE_MID[(u >>> 10) & 2047]! * PRICE_LO[u & 1023]!)
}

/** The first value `stream(seed)` gives, to learn a string's length without making it. */
function firstOf(seed: number): number {
  return mix32((seed + 0x9e3779b9) >>> 0)
}

/**
 * Positions, times and ids of the event sequence; shared by the three tables' row builders.
 *
 * Deliberate differences from the reference: event numbers start at 0 (so event 0 is person 1000);
 * every random choice is a hash of (seed, n, slot) instead of a draw from one shared
 * java.util.Random, so any subset of columns or tables sees the same events; bidder ids get
 * FIRST_PERSON_ID once (the reference adds it twice, so its bidders never match a person id).
 */
export class NexmarkModel {
  readonly total: number
  readonly rand: EventRandom
  private readonly hotAuctionAbove: number
  private readonly hotBidderAbove: number
  private readonly hotSellerAbove: number
  private readonly eventsForInFlightAuctions: number

  constructor(readonly config: NexmarkConfig) {
    this.total = config.personProportion + config.auctionProportion + config.bidProportion
    this.rand = new EventRandom(config.seed)
    // The reference's `nextInt(ratio) > 0`: true for a uniform draw at or above 2^32 / ratio.
    this.hotAuctionAbove = TWO_32 / config.hotAuctionRatio
    this.hotBidderAbove = TWO_32 / config.hotBiddersRatio
    this.hotSellerAbove = TWO_32 / config.hotSellersRatio
    this.eventsForInFlightAuctions = config.auctionProportion === 0 ?
      0
      : Math.floor((NUM_IN_FLIGHT_AUCTIONS * this.total) / config.auctionProportion)
  }

  kindOf(n: number): EventKind {
    const rem = n % this.total
    return rem < this.config.personProportion ?
      EventKind.PERSON
      : rem < this.config.personProportion + this.config.auctionProportion
      ? EventKind.AUCTION
      : EventKind.BID
  }

  /** Event time of event n: base + n × (1000 / rate) ms, rounded down. */
  timestamp(n: number): number {
    return this.config.baseTime + Math.floor((n * 1000) / this.config.rate)
  }

  /** The last person id (base 0) created at or before event n. */
  lastPerson(n: number): number {
    const p = this.config.personProportion
    const epoch = Math.floor(n / this.total)
    let offset = n - epoch * this.total
    if (offset >= p) offset = p - 1
    return epoch * p + offset
  }

  /** The last auction id (base 0) created at or before event n. */
  lastAuction(n: number): number {
    const { personProportion: p, auctionProportion: a } = this.config
    let epoch = Math.floor(n / this.total)
    let offset = n - epoch * this.total
    if (offset < p) {
      epoch--
      offset = a - 1
    } else if (offset >= p + a) offset = a - 1
    else offset -= p
    return epoch * a + offset
  }

  /** A random recent person (one of the last 1,000, or up to 10 not yet created). */
  randomPerson(n: number, u: number): number {
    const numPeople = this.lastPerson(n) + 1
    const active = Math.min(numPeople, NUM_ACTIVE_PEOPLE)
    return numPeople - active + below(u, active + PERSON_ID_LEAD)
  }

  /** A random in-flight auction (one of the last 100, or up to 10 not yet created). */
  randomAuction(n: number, u: number): number {
    const last = this.lastAuction(n)
    const min = Math.max(last - NUM_IN_FLIGHT_AUCTIONS, 0)
    return min + below(u, last - min + 1 + AUCTION_ID_LEAD)
  }

  isHotAuction(u: number): boolean {
    return u >= this.hotAuctionAbove
  }
  isHotBidder(u: number): boolean {
    return u >= this.hotBidderAbove
  }
  isHotSeller(u: number): boolean {
    return u >= this.hotSellerAbove
  }

  /** How long an auction created at event n runs: on average as long as creating 100 more auctions takes. */
  auctionLength(n: number, u: number): number {
    const horizon = this.timestamp(n + this.eventsForInFlightAuctions) - this.timestamp(n)
    return 1 + Math.floor((u / TWO_32) * Math.max(horizon * 2, 1))
  }
}

/** Builds the row of event n (which must be of the table's kind) holding the declared columns. */
export type RowBuilder = (n: number) => Row

// Draw slots per event kind: each random choice has its own slot. Bids, the hot path, take their
// three coin flips from bit fields of one draw (11 + 11 + 10 bits).
const BID = { flags: 0, auction: 1, bidder: 2, price: 3, channel: 4, extra: 5 } as const
const AUCTION = { hotSeller: 0, seller: 1, category: 2, initialBid: 3, expires: 4, itemName: 5, description: 6, reserve: 7, extra: 8 } as const
const PERSON = { first: 0, last: 1, email: 2, card: 3, city: 4, state: 5, extra: 6, emailDomain: 7 } as const

export function bidRowBuilder(m: NexmarkModel, columns: readonly number[]): RowBuilder {
  const tables: ChannelTables = channelTablesOf()
  // Channel i < 4 is a hot channel; i ≥ 4 is 'channel-(i-4)'.
  const channels = [...HOT_CHANNELS, ...tables.channels]
  const urls = [...tables.hotUrls, ...tables.urls]
  const padding = new ExtraPadding(m.config.avgBidByteSize)
  const rand = m.rand
  // `nextInt(ratio) > 0` on an 11-bit field: true at or above 2048 / ratio.
  const hotAuctionAbove = 2048 / m.config.hotAuctionRatio
  const hotBidderAbove = 2048 / m.config.hotBiddersRatio
  const auction = (n: number, flags: number, key: number): number => {
    const id = (flags & 0x7ff) >= hotAuctionAbove
      ? Math.floor(m.lastAuction(n) / HOT_AUCTION_GROUP) * HOT_AUCTION_GROUP
      : m.randomAuction(n, draw(key, BID.auction))
    return id + FIRST_AUCTION_ID
  }
  const bidder = (n: number, flags: number, key: number): number => {
    // The second person of the current group of 100, so hot bidders and hot sellers differ.
    const id = ((flags >>> 11) & 0x7ff) >= hotBidderAbove
      ? Math.floor(m.lastPerson(n) / HOT_BIDDER_GROUP) * HOT_BIDDER_GROUP + 1
      : m.randomPerson(n, draw(key, BID.bidder))
    return id + FIRST_PERSON_ID
  }
  // Half the bids come from one of four well-known channels, half from 'channel-N'.
  const channelIndex = (flags: number, key: number): number => {
    const u = draw(key, BID.channel)
    return flags >>> 22 >= 512 ? below(u, HOT_CHANNELS.length) : HOT_CHANNELS.length + below(u, tables.channels.length)
  }
  const BID_SIZE = 8 + 8 + 8 + 8
  const extra = (key: number): string => padding.slice(BID_SIZE, draw(key, BID.extra))

  const blank = blankRows(columns.length)
  // The usual case, every field in the reference order, gets a builder without a per-column switch.
  if (columns.length === 7 && columns.every((c, i) => c === i)) {
    return n => {
      const key = rand.key(n)
      const flags = draw(key, BID.flags)
      const ch = channelIndex(flags, key)
      const row = blank()
      row[0] = auction(n, flags, key)
      row[1] = bidder(n, flags, key)
      row[2] = price(draw(key, BID.price))
      row[3] = channels[ch]
      row[4] = urls[ch]
      row[5] = m.timestamp(n)
      row[6] = extra(key)
      return row
    }
  }
  const ncols = columns.length
  return n => {
    const key = rand.key(n)
    const flags = draw(key, BID.flags)
    const row = blank()
    for (let c = 0; c < ncols; c++) {
      switch (columns[c]) {
        case 0:
          row[c] = auction(n, flags, key)
          break
        case 1:
          row[c] = bidder(n, flags, key)
          break
        case 2:
          row[c] = price(draw(key, BID.price))
          break
        case 3:
          row[c] = channels[channelIndex(flags, key)]
          break
        case 4:
          row[c] = urls[channelIndex(flags, key)]
          break
        case 5:
          row[c] = m.timestamp(n)
          break
        default:
          row[c] = extra(key)
      }
    }
    return row
  }
}

export function auctionRowBuilder(m: NexmarkModel, columns: readonly number[]): RowBuilder {
  const blank = blankRows(columns.length)
  const padding = new ExtraPadding(m.config.avgAuctionByteSize)
  const rand = m.rand
  const ncols = columns.length
  return n => {
    const key = rand.key(n)
    const ts = m.timestamp(n)
    const row = blank()
    for (let c = 0; c < ncols; c++) {
      switch (columns[c]) {
        case 0:
          row[c] = m.lastAuction(n) + FIRST_AUCTION_ID
          break
        case 1:
          row[c] = nextString(stream(draw(key, AUCTION.itemName)), 20)
          break
        case 2:
          row[c] = nextString(stream(draw(key, AUCTION.description)), 100)
          break
        case 3:
          row[c] = price(draw(key, AUCTION.initialBid))
          break
        case 4:
          row[c] = price(draw(key, AUCTION.initialBid)) + price(draw(key, AUCTION.reserve))
          break
        case 5:
          row[c] = ts
          break
        case 6:
          row[c] = ts + m.auctionLength(n, draw(key, AUCTION.expires))
          break
        case 7: {
          const id = m.isHotSeller(draw(key, AUCTION.hotSeller))
            ? Math.floor(m.lastPerson(n) / HOT_SELLER_GROUP) * HOT_SELLER_GROUP
            : m.randomPerson(n, draw(key, AUCTION.seller))
          row[c] = id + FIRST_PERSON_ID
          break
        }
        case 8:
          row[c] = FIRST_CATEGORY_ID + below(draw(key, AUCTION.category), NUM_CATEGORIES)
          break
        default: {
          // Sizes use the strings' lengths before trimming, so 'extra' does not need them made.
          const nameLength = nextStringLength(firstOf(draw(key, AUCTION.itemName)), 20)
          const descLength = nextStringLength(firstOf(draw(key, AUCTION.description)), 100)
          const size = 8 + nameLength + descLength + 8 + 8 + 8 + 8 + 8
          row[c] = padding.slice(size, draw(key, AUCTION.extra))
        }
      }
    }
    return row
  }
}

export function personRowBuilder(m: NexmarkModel, columns: readonly number[]): RowBuilder {
  const blank = blankRows(columns.length)
  const padding = new ExtraPadding(m.config.avgPersonByteSize)
  const rand = m.rand
  const ncols = columns.length
  const name = (key: number): string =>
    FULL_NAMES[below(draw(key, PERSON.first), FIRST_NAMES.length) * LAST_NAMES.length + below(draw(key, PERSON.last), LAST_NAMES.length)]!
  const city = (key: number): string => US_CITIES[below(draw(key, PERSON.city), US_CITIES.length)]!
  const state = (key: number): string => US_STATES[below(draw(key, PERSON.state), US_STATES.length)]!
  return n => {
    const key = rand.key(n)
    const row = blank()
    for (let c = 0; c < ncols; c++) {
      switch (columns[c]) {
        case 0:
          row[c] = m.lastPerson(n) + FIRST_PERSON_ID
          break
        case 1:
          row[c] = name(key)
          break
        case 2:
          row[c] = `${nextString(stream(draw(key, PERSON.email)), 7)}@${nextString(stream(draw(key, PERSON.emailDomain)), 5)}.com`
          break
        case 3: {
          const next = stream(draw(key, PERSON.card))
          row[c] = `${CARD_GROUPS[below(next(), 10_000)]} ${CARD_GROUPS[below(next(), 10_000)]} ${CARD_GROUPS[below(next(), 10_000)]} ${
            CARD_GROUPS[below(next(), 10_000)]
          }`
          break
        }
        case 4:
          row[c] = city(key)
          break
        case 5:
          row[c] = state(key)
          break
        case 6:
          row[c] = m.timestamp(n)
          break
        default: {
          const emailLength = nextStringLength(firstOf(draw(key, PERSON.email)), 7) + 1 + nextStringLength(firstOf(draw(key, PERSON.emailDomain)), 5) + 4
          const size = 8 + name(key).length + emailLength + 19 + city(key).length + state(key).length
          row[c] = padding.slice(size, draw(key, PERSON.extra))
        }
      }
    }
    return row
  }
}
