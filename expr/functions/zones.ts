// CONVERT_TZ(datetime, fromZone, toZone): a 'yyyy-MM-dd HH:mm:ss' wall-clock time in one time zone as
// the same instant's wall-clock time in another, as Flink's DateTimeUtils.convertTz does with Java's
// TimeZone: a zone is an IANA name ('America/Los_Angeles'), 'UTC' or 'GMT' with an optional offset
// ('GMT+8', 'GMT-08:00', 'UTC+05:30'), or one of Java's three-letter IDs ('PST', 'CTT', 'EST'). Java
// takes an unknown zone for GMT without a word; Weir refuses one written as a literal, and takes GMT
// for one from a column, as Flink does. Text that does not start with a date and time gives NULL.
import { T } from '../../common/types.js'
import { formatTimestamp } from '../../common/values.js'
import { checkArgs, literalValue, mkCall, type FunctionDef } from '../registry.js'

/** Java's ZoneId.SHORT_IDS, which TimeZone.getTimeZone also takes (EST, MST and HST are fixed offsets). */
const SHORT_IDS: Readonly<Record<string, string>> = {
  ACT: 'Australia/Darwin',
  AET: 'Australia/Sydney',
  AGT: 'America/Argentina/Buenos_Aires',
  ART: 'Africa/Cairo',
  AST: 'America/Anchorage',
  BET: 'America/Sao_Paulo',
  BST: 'Asia/Dhaka',
  CAT: 'Africa/Harare',
  CNT: 'America/St_Johns',
  CST: 'America/Chicago',
  CTT: 'Asia/Shanghai',
  EAT: 'Africa/Addis_Ababa',
  ECT: 'Europe/Paris',
  IET: 'America/Indiana/Indianapolis',
  IST: 'Asia/Kolkata',
  JST: 'Asia/Tokyo',
  MIT: 'Pacific/Apia',
  NET: 'Asia/Yerevan',
  NST: 'Pacific/Auckland',
  PLT: 'Asia/Karachi',
  PNT: 'America/Phoenix',
  PRT: 'America/Puerto_Rico',
  PST: 'America/Los_Angeles',
  SST: 'Pacific/Guadalcanal',
  VST: 'Asia/Ho_Chi_Minh',
  EST: '-05:00',
  MST: '-07:00',
  HST: '-10:00',
}

/** A zone: a fixed offset in ms, or a formatter that tells the wall-clock time of an instant there. */
type Zone = { readonly fixed: number } | { readonly fmt: Intl.DateTimeFormat }

const zones = new Map<string, Zone | null>()

/** The zone `id` names, or null when Java would not know it either (then it would take GMT). */
export function zoneOf(id: string): Zone | null {
  let z = zones.get(id)
  if (z !== undefined) return z
  z = resolve(SHORT_IDS[id] ?? id)
  if (zones.size > 1000) zones.clear()
  zones.set(id, z)
  return z
}

function resolve(id: string): Zone | null {
  const off = /^(?:(?:GMT|UTC)(?=$|[+-]))?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(id) ?? /^(?:GMT|UTC)$/.exec(id)
  if (off !== null) {
    if (off[1] === undefined) return { fixed: 0 }
    const h = Number(off[2]), m = Number(off[3] ?? 0)
    if (h > 23 || m > 59) return null
    return { fixed: (off[1] === '-' ? -1 : 1) * (h * 60 + m) * 60_000 }
  }
  try {
    return {
      fmt: new Intl.DateTimeFormat('en-US', {
        timeZone: id,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      }),
    }
  } catch {
    return null
  }
}

/** The zone's offset from UTC at instant `utc` (ms). */
function offsetAt(z: Zone, utc: number): number {
  if ('fixed' in z) return z.fixed
  const p: Record<string, string> = {}
  for (const part of z.fmt.formatToParts(new Date(utc))) p[part.type] = part.value
  const year = p['era'] === 'BC' ? 1 - Number(p['year']) : Number(p['year'])
  const wall = Date.UTC(year, Number(p['month']) - 1, Number(p['day']), Number(p['hour']), Number(p['minute']), Number(p['second']))
  return wall - (utc - (((utc % 1000) + 1000) % 1000))
}

/** The instant of wall-clock time `wall` (ms, read as if UTC) in zone `z`. */
function instantOf(z: Zone, wall: number): number {
  const first = offsetAt(z, wall)
  const second = offsetAt(z, wall - first)
  return wall - second
}

/** CONVERT_TZ of one row; NULL when `text` does not start with 'yyyy-MM-dd HH:mm:ss'. */
export function convertTz(text: string, from: string, to: string): string | null {
  const m = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{1,2}):(\d{1,2})/.exec(text)
  if (m === null) return null
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]))
  const zf = zoneOf(from) ?? { fixed: 0 }, zt = zoneOf(to) ?? { fixed: 0 }
  const utc = instantOf(zf, wall)
  // formatTimestamp without its milliseconds: 'yyyy-MM-dd HH:mm:ss'.
  return formatTimestamp(utc + offsetAt(zt, utc)).slice(0, 19)
}

export const CONVERT_TZ: FunctionDef = {
  names: ['CONVERT_TZ'],
  signature: 'CONVERT_TZ(STRING, fromZone, toZone)',
  bind: (args, ctx) => {
    const typed = checkArgs(args, ['STRING', 'STRING', 'STRING'], 3, ctx, 'CONVERT_TZ(STRING, fromZone, toZone)')
    for (const a of typed.slice(1)) {
      const id = literalValue(a)
      if (typeof id === 'string' && zoneOf(id) === null) {
        throw ctx.error(`CONVERT_TZ: unknown time zone '${id}'`,
          `write a zone name such as 'America/Los_Angeles', 'UTC', an offset such as 'GMT-08:00', or a short ID such as 'PST'`)
      }
    }
    return mkCall('CONVERT_TZ', typed, T.string(true), ctx.span)
  },
  impl: () => ({ fn: convertTz, nulls: 'strict' }),
}
