// Nexmark's strings: random words, the shared 1 MB padding text that 'extra' fields are sliced from,
// and the fixed tables of channels and URLs (built once per process from a fixed seed).
import { below, mix32, stream } from './random.js'

const MIN_STRING_LENGTH = 3

/** A random string of 3..maxLength-1 letters, each a `special` with probability 1/13 (made char by char). */
function nextStringOf(next: () => number, maxLength: number, special: string): string {
  const len = MIN_STRING_LENGTH + below(next(), maxLength - MIN_STRING_LENGTH)
  let s = ''
  for (let i = 0; i < len; i++) {
    const u = next()
    s += below(u, 13) === 0 ? special : LETTERS[u % 26]!
  }
  return s
}

/**
 * A random string of 3..maxLength-1 letters, each a space with probability 1/13, trimmed: a slice
 * of a shared random text of such letters (the same distribution, without building the string).
 */
export function nextString(next: () => number, maxLength: number): string {
  const text = wordsSource()
  const len = MIN_STRING_LENGTH + below(next(), maxLength - MIN_STRING_LENGTH)
  const at = below(next(), text.length - len)
  return text.substring(at, at + len).trim()
}

/** The length `nextString` picks for `maxLength` from its first draw (before trimming). */
export function nextStringLength(firstDraw: number, maxLength: number): number {
  return MIN_STRING_LENGTH + below(firstDraw, maxLength - MIN_STRING_LENGTH)
}

const LETTERS = Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i))

// Just under 1 MB: Node makes longer latin1 strings external, and slicing those is several times slower.
const EXTRA_LENGTH = 1_000_000
let extraText: string | undefined
let wordsText: string | undefined

/** 1 MB of letters and spaces (1 in 13), for `nextString`. */
function wordsSource(): string {
  if (wordsText === undefined) {
    const bytes = Buffer.allocUnsafe(EXTRA_LENGTH)
    const next = stream(0x776f7264)
    for (let i = 0; i < EXTRA_LENGTH; i++) {
      const u = next()
      bytes[i] = below(u, 13) === 0 ? 32 : 97 + (u % 26)
    }
    wordsText = bytes.toString('latin1')
  }
  return wordsText
}

/** 1 MB of random lowercase letters; 'extra' fields are slices of it (as in the reference generator). */
export function extraSource(): string {
  if (extraText === undefined) {
    const bytes = Buffer.allocUnsafe(EXTRA_LENGTH)
    const next = stream(0x6e65786d)
    for (let i = 0; i < EXTRA_LENGTH; i += 4) {
      const u = next()
      bytes[i] = 97 + (u & 0xff) % 26
      bytes[i + 1] = 97 + ((u >>> 8) & 0xff) % 26
      bytes[i + 2] = 97 + ((u >>> 16) & 0xff) % 26
      bytes[i + 3] = 97 + (u >>> 24) % 26
    }
    extraText = bytes.toString('latin1')
  }
  return extraText
}

/**
 * Padding so that an event's size is on average `averageSize` bytes: a slice of the shared text
 * whose length is within ±20% of `averageSize - currentSize`, chosen by two draws (length, offset).
 */
export class ExtraPadding {
  private readonly text = extraSource()
  private readonly mins: number[] = []
  private readonly spreads: number[] = []

  constructor(private readonly averageSize: number) {}

  /** The padding length for an event of `currentSize` bytes and a length draw. */
  length(currentSize: number, u: number): number {
    let min = this.mins[currentSize]
    let spread = this.spreads[currentSize]!
    if (min === undefined) {
      const want = this.averageSize - currentSize
      const delta = Math.round(want * 0.2)
      min = want < 0 ? 0 : want - delta
      spread = want < 0 ? 0 : 2 * delta
      this.mins[currentSize] = min
      this.spreads[currentSize] = spread
    }
    return spread === 0 ? min : min + below(u, spread)
  }

  /**
   * The padding itself, from one draw (its low 12 bits pick the length, its high 20 bits the
   * offset): a slice of the shared text, which V8 makes without copying.
   */
  slice(currentSize: number, u: number): string {
    const len = Math.min(this.length(currentSize, (u & 0xfff) * 0x100000), this.text.length)
    if (len === 0) return ''
    const at = Math.floor(((u >>> 12) / 0x100000) * (this.text.length - len))
    return this.text.substring(at, at + len)
  }
}

/** Java's Integer.reverse: the 32 bits in reverse order, as a signed int. */
function reverseBits(x: number): number {
  x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1)
  x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2)
  x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4)
  x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8)
  return ((x >>> 16) | (x << 16)) | 0
}

/** Java's Math.abs on an int (which leaves Integer.MIN_VALUE negative). */
function javaAbs(x: number): number {
  return x === -2147483648 ? x : Math.abs(x)
}

export const HOT_CHANNELS = ['Google', 'Facebook', 'Baidu', 'Apple'] as const
export const CHANNELS_NUMBER = 10_000

export interface ChannelTables {
  readonly hotUrls: readonly string[]
  readonly channels: readonly string[]
  readonly urls: readonly string[]
}

let channelTables: ChannelTables | undefined

/** The four hot channels' URLs, and 'channel-N' with its URL (90% carry '&channel_id=…') for N < 10,000. */
export function channelTablesOf(): ChannelTables {
  if (channelTables === undefined) {
    const next = stream(mix32(0x63686e6c))
    const baseUrl = (): string =>
      `https://www.nexmark.com/${nextStringOf(next, 5, '_')}/${nextStringOf(next, 5, '_')}/${nextStringOf(next, 5, '_')}/item.htm?query=1`
    const hotUrls = HOT_CHANNELS.map(() => baseUrl())
    const channels: string[] = []
    const urls: string[] = []
    for (let i = 0; i < CHANNELS_NUMBER; i++) {
      let url = baseUrl()
      if (below(next(), 10) > 0) url += `&channel_id=${javaAbs(reverseBits(i))}`
      channels.push(`channel-${i}`)
      urls.push(url)
    }
    channelTables = { hotUrls, channels, urls }
  }
  return channelTables
}

export const US_STATES = ['AZ', 'CA', 'ID', 'OR', 'WA', 'WY'] as const
export const US_CITIES = ['Phoenix', 'Los Angeles', 'San Francisco', 'Boise', 'Portland', 'Bend', 'Redmond', 'Seattle', 'Kent', 'Cheyenne'] as const
export const FIRST_NAMES = ['Peter', 'Paul', 'Luke', 'John', 'Saul', 'Vicky', 'Kate', 'Julie', 'Sarah', 'Deiter', 'Walter'] as const
export const LAST_NAMES = ['Shultz', 'Abrams', 'Spencer', 'White', 'Bartels', 'Walton', 'Smith', 'Jones', 'Noris'] as const
