// Equality, ordering and a canonical form for values of any type, nested ones included (ROW and
// ARRAY as JS arrays, MAP as an array of [key, value] pairs; see common/types.ts). Built once per
// type, so the per-value work is a few closures deep.
//
// As in Flink's generated comparisons: inside a ROW, ARRAY or MAP two NULLs are equal and a NULL
// differs from any value (only a NULL at the top makes `=` unknown); ARRAYs are equal element by
// element, ROWs field by field, and MAPs entry by entry whatever their order.
import type { DataType } from '../common/types.js'
import { compareBytes } from '../common/values.js'

/** Equality of two non-null values of type `t`. */
export type Equals = (a: any, b: any) => boolean

/** -1, 0 or 1 for two non-null values of type `t`. */
export type Compare = (a: any, b: any) => number

const same: Equals = (a, b) => a === b

/** Equality for values of `t` (non-null at the top; NULLs nested inside are equal to each other). */
export function equalsFor(t: DataType): Equals {
  switch (t.kind) {
    case 'ROW': {
      const fields = t.fields.map(f => nullSafe(equalsFor(f.type)))
      return (a: readonly unknown[], b: readonly unknown[]) => {
        for (let i = 0; i < fields.length; i++) if (!fields[i]!(a[i], b[i])) return false
        return true
      }
    }
    case 'ARRAY': {
      const element = nullSafe(equalsFor(t.element))
      return (a: readonly unknown[], b: readonly unknown[]) => {
        if (a.length !== b.length) return false
        for (let i = 0; i < a.length; i++) if (!element(a[i], b[i])) return false
        return true
      }
    }
    case 'MAP': {
      const key = nullSafe(equalsFor(t.key)), value = nullSafe(equalsFor(t.value))
      // Keys are distinct within a map, so equal sizes and every entry of `a` found in `b` suffice.
      return (a: readonly (readonly [unknown, unknown])[], b: readonly (readonly [unknown, unknown])[]) => {
        if (a.length !== b.length) return false
        outer: for (const [k, v] of a) {
          for (const [k2, v2] of b) {
            if (key(k, k2)) {
              if (!value(v, v2)) return false
              continue outer
            }
          }
          return false
        }
        return true
      }
    }
    case 'BYTES':
      return (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) === 0
    default:
      // BIGINT has one form per value (a number while safe, else a bigint) and DECIMAL is a bigint: === is exact.
      return same
  }
}

/** `eq` extended to NULLs: NULL equals NULL only. */
export function nullSafe(eq: Equals): (a: unknown, b: unknown) => boolean {
  return (a, b) => (a == null ? b == null : b != null && eq(a, b))
}

/** True for the types ARRAY_SORT, ARRAY_MAX and ARRAY_MIN can order: everything but ROW, ARRAY, MAP and INTERVAL-less oddities. */
export function isOrderable(t: DataType): boolean {
  return t.kind !== 'ROW' && t.kind !== 'ARRAY' && t.kind !== 'MAP' && t.kind !== 'NULL'
}

/**
 * Ordering for non-null scalar values of `t`: numbers, bigints (a BIGINT may be either: JS compares
 * them across), strings by UTF-16 code unit, FALSE before TRUE. A DOUBLE NaN is greater than every
 * number, as Java's Double.compare has it.
 */
export function compareFor(t: DataType): Compare {
  if (t.kind === 'DOUBLE') {
    return (a: number, b: number) => {
      if (a < b) return -1
      if (a > b) return 1
      if (a === b) return 0
      return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1
    }
  }
  if (t.kind === 'BYTES') return compareBytes
  return (a, b) => (a < b ? -1 : a > b ? 1 : 0)
}

/** True when `t` holds a MAP at any depth (its values need canonicalFor before they serve as keys). */
export function containsMap(t: DataType): boolean {
  switch (t.kind) {
    case 'MAP':
      return true
    case 'ROW':
      return t.fields.some(f => containsMap(f.type))
    case 'ARRAY':
      return containsMap(t.element)
    default:
      return false
  }
}

/**
 * A function giving equal values one representation: the entries of every MAP sorted by their
 * key's canonical text. State keys compare by their encoding, so a MAP used as a join key must pass
 * through this first, or {a=1, b=2} and {b=2, a=1} would not meet.
 */
export function canonicalFor(t: DataType): (v: unknown) => unknown {
  switch (t.kind) {
    case 'ROW': {
      const fields = t.fields.map(f => canonicalFor(f.type))
      return (v: any) => (v == null ? v : fields.map((f, i) => f(v[i])))
    }
    case 'ARRAY': {
      const element = canonicalFor(t.element)
      return (v: any) => (v == null ? v : (v as unknown[]).map(element))
    }
    case 'MAP': {
      const key = canonicalFor(t.key), value = canonicalFor(t.value)
      return (v: any) => {
        if (v == null) return v
        const entries = (v as [unknown, unknown][]).map(([k, x]) => {
          const ck = key(k)
          return { text: textOf(ck), pair: [ck, value(x)] as [unknown, unknown] }
        })
        entries.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
        return entries.map(e => e.pair)
      }
    }
    default:
      return v => v
  }
}

function textOf(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)) ?? 'null'
}
