// Proleptic Gregorian calendar arithmetic on epoch days and epoch milliseconds (UTC wall clock),
// without allocating Date objects: civil dates, month arithmetic, ISO weeks.

export const MS_PER_SECOND = 1000
export const MS_PER_MINUTE = 60_000
export const MS_PER_HOUR = 3_600_000
export const MS_PER_DAY = 86_400_000

/** Integer division rounding toward negative infinity. */
export function floorDiv(a: number, b: number): number {
  return Math.floor(a / b)
}

/** Remainder with the sign of the divisor. */
export function floorMod(a: number, b: number): number {
  return a - Math.floor(a / b) * b
}

/** Epoch days of a civil date (month 1–12). Howard Hinnant's days_from_civil. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/** Civil date of epoch days as year * 10000 + month * 100 + day (no allocation). */
export function civilOf(days: number): number {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  return y * 10000 + m * 100 + d
}

/** Year, month (1–12) and day of month (1–31) of epoch days. */
export function yearOf(days: number): number {
  return Math.floor(civilOf(days) / 10000)
}
export function monthOf(days: number): number {
  return Math.floor(civilOf(days) / 100) % 100
}
export function dayOfMonth(days: number): number {
  return civilOf(days) % 100
}

/** Gregorian leap years: 2024 and 2000, not 1900. */
export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
}

/** Days in month `m` (1–12) of year `y`. */
export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31
}

/** 1-based day of the year. */
export function dayOfYear(days: number): number {
  return days - daysFromCivil(yearOf(days), 1, 1) + 1
}

/** Day of the week with Sunday = 1 … Saturday = 7 (SQL DAYOFWEEK). 1970-01-01 was a Thursday. */
export function dayOfWeek(days: number): number {
  return floorMod(days + 4, 7) + 1
}

/** ISO day of the week, Monday = 1 … Sunday = 7. */
export function isoDayOfWeek(days: number): number {
  return floorMod(days + 3, 7) + 1
}

/** ISO-8601 week of the year (1–53): weeks start on Monday; week 1 holds the year's first Thursday. */
export function isoWeek(days: number): number {
  const thursday = days - isoDayOfWeek(days) + 4
  return Math.floor((thursday - daysFromCivil(yearOf(thursday), 1, 1)) / 7) + 1
}

/** The ISO week-numbering year. */
export function isoYear(days: number): number {
  return yearOf(days - isoDayOfWeek(days) + 4)
}

/** Adds calendar months to epoch days, clamping the day to the target month's length (as Java's plusMonths). */
export function addMonthsToDays(days: number, months: number): number {
  const c = civilOf(days)
  const y = Math.floor(c / 10000), m = Math.floor(c / 100) % 100, d = c % 100
  const total = y * 12 + (m - 1) + months
  const ny = Math.floor(total / 12), nm = total - ny * 12 + 1
  return daysFromCivil(ny, nm, Math.min(d, daysInMonth(ny, nm)))
}

/** Adds calendar months to epoch milliseconds, keeping the time of day. */
export function addMonthsToMillis(ms: number, months: number): number {
  const days = floorDiv(ms, MS_PER_DAY)
  return addMonthsToDays(days, months) * MS_PER_DAY + (ms - days * MS_PER_DAY)
}

/** Whole months from `a` to `b` (epoch ms), truncated toward zero as Flink's TIMESTAMPDIFF(MONTH). */
export function monthsBetween(a: number, b: number): number {
  const da = floorDiv(a, MS_PER_DAY), db = floorDiv(b, MS_PER_DAY)
  const ca = civilOf(da), cb = civilOf(db)
  let months = (Math.floor(cb / 10000) - Math.floor(ca / 10000)) * 12 + (Math.floor(cb / 100) % 100 - Math.floor(ca / 100) % 100)
  // Compare the remainders (day of month, then time of day) to see whether the last month is complete.
  const ra = (ca % 100) * MS_PER_DAY + (a - da * MS_PER_DAY)
  const rb = (cb % 100) * MS_PER_DAY + (b - db * MS_PER_DAY)
  if (months > 0 && rb < ra) months--
  else if (months < 0 && rb > ra) months++
  return months
}
