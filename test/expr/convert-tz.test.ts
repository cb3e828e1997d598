// CONVERT_TZ: Flink's documented example, daylight saving time both ways, offsets and Java's short IDs,
// text that is not a date-time, and the refusal of an unknown zone written as a literal.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { apply, call, col, errorOf, str } from './helpers.js'

const S = T.string()
const tz = (text: unknown, from: unknown, to: unknown) => apply('CONVERT_TZ', [S, S, S], [text, from, to])

describe('CONVERT_TZ', () => {
  it("Flink's example, and summer and winter in Berlin", () => {
    expect(tz('1970-01-01 00:00:00', 'UTC', 'America/Los_Angeles')).toBe('1969-12-31 16:00:00')
    expect(tz('2024-07-01 12:00:00', 'UTC', 'Europe/Berlin')).toBe('2024-07-01 14:00:00')
    expect(tz('2024-01-01 12:00:00', 'UTC', 'Europe/Berlin')).toBe('2024-01-01 13:00:00')
    expect(tz('2024-07-01 14:00:00', 'Europe/Berlin', 'UTC')).toBe('2024-07-01 12:00:00')
  })

  it('offsets, GMT/UTC and Java short IDs', () => {
    expect(tz('2024-01-01 12:00:00', 'GMT+8', 'GMT-08:00')).toBe('2023-12-31 20:00:00')
    expect(tz('2024-01-01 12:00:00', 'UTC+05:30', 'GMT')).toBe('2024-01-01 06:30:00')
    expect(tz('2024-01-01 12:00:00', 'PST', 'CTT')).toBe('2024-01-02 04:00:00')
    expect(tz('2024-07-01 12:00:00', 'EST', 'UTC')).toBe('2024-07-01 17:00:00')
  })

  it('a wall-clock time skipped by daylight saving time reads with the offset before it', () => {
    expect(tz('2024-03-31 02:30:00', 'Europe/Berlin', 'UTC')).toBe('2024-03-31 01:30:00')
  })

  it('NULL for NULL or text that does not start with a date and time; trailing text ignored', () => {
    expect(tz(null, 'UTC', 'UTC')).toBe(null)
    expect(tz('2024-01-01 12:00:00', null, 'UTC')).toBe(null)
    expect(tz('noon', 'UTC', 'UTC')).toBe(null)
    expect(tz('2024-01-01 00:00:00.123', 'UTC', 'Asia/Kolkata')).toBe('2024-01-01 05:30:00')
  })

  it('an unknown zone from a column is GMT, as in Flink; written as a literal it is refused', () => {
    expect(tz('2024-01-01 12:00:00', 'Nowhere/Town', 'Asia/Tokyo')).toBe('2024-01-01 21:00:00')
    const e = errorOf(() => call('CONVERT_TZ', col(0, S), str('UTC'), str('Nowhere/Town')))
    expect(e.message).toBe("CONVERT_TZ: unknown time zone 'Nowhere/Town'")
    expect(errorOf(() => call('CONVERT_TZ', col(0, S), str('GMT+25'), str('UTC'))).message).toBe("CONVERT_TZ: unknown time zone 'GMT+25'")
  })
})
