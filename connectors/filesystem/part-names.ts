// Part file names that sort in the order they were written: a reader of the sink's folder (Weir's
// own filesystem source reads files in name order) replays a changelog in order only if they do.
// A writer's id is a UUID version 7 (RFC 9562: the Unix time in milliseconds first, then random
// bits), so a later run's parts sort after an earlier one's; a writer's parts are numbered with a
// fixed width, so part 10 sorts after part 9.
import { randomBytes } from 'node:crypto'

/** Digits of a part's sequence number: 10^10 parts per writer before the order would break. */
const SEQ_DIGITS = 10

/**
 * A UUID whose text sorts by creation time (to the millisecond; random after that).
 *
 * @example timeOrderedUuid(1764633600000) // '019adc5b-e000-7c3e-9f1a-2b4c6d8e0f12'
 */
export function timeOrderedUuid(now = Date.now()): string {
  const b = randomBytes(16)
  let ms = now
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256
    ms = Math.floor(ms / 256)
  }
  b[6] = 0x70 | (b[6]! & 0x0f) // version 7
  b[8] = 0x80 | (b[8]! & 0x3f) // variant 10
  const hex = b.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A part's sequence number as its name holds it: `partSeq(12)` is '0000000012'. */
export function partSeq(seq: number): string {
  return String(seq).padStart(SEQ_DIGITS, '0')
}
