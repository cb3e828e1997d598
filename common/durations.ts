// Durations ('10 s', '1 h', '500ms', '1d') and sizes ('64 mb') as options and hints spell them.

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  milli: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  m: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
}

/** '10 s' → 10000; a bare number is milliseconds; null when not a duration. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text)
  if (!m) return null
  const unit = (m[2] ?? '').toLowerCase()
  const factor = unit === '' ? 1 : DURATION_UNITS[unit]
  if (factor === undefined) return null
  return Math.round(Number(m[1]) * factor)
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  bytes: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
}

/** '64 mb' → 67108864; null when not a size. */
export function parseSize(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text)
  if (!m) return null
  const unit = (m[2] ?? '').toLowerCase()
  const factor = unit === '' ? 1 : SIZE_UNITS[unit]
  if (factor === undefined) return null
  return Math.round(Number(m[1]) * factor)
}

/** 3600000 → '1 h', 1500 → '1500 ms'. */
export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000} d`
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  if (ms % 1000 === 0) return `${ms / 1000} s`
  return `${ms} ms`
}
