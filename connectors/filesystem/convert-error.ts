// The error of a value that does not fit its column type (its own file: convert.ts and
// convert-nested.ts both throw it, and import each other's converters).

/** A value that does not fit its column type; `help` says what to do when that is more than skipping the record. */
export class ConvertError extends Error {
  constructor(readonly found: string, readonly expected: string, readonly help?: string) {
    super(`expected ${expected}, found ${found}`)
  }
}
