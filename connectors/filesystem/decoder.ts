// What the filesystem source's format decoders share: the per-line decoding contract and the error a
// bad record raises (the reader adds the file and line number to it).
import type { Row } from '../../core/batch.js'

/** Returned for a line that holds no record (blank line, comment). */
export const SKIP: unique symbol = Symbol('skip')
/** Returned when the record continues on the next line (a CSV quoted field holding a newline). */
export const MORE: unique symbol = Symbol('more')

export interface RecordDecoder {
  /** Decodes one line into a row in the physical schema's order; throws RecordError for a bad record. */
  decode(line: string): Row | typeof SKIP | typeof MORE
  /** Forgets a record left unfinished by MORE (after an error, or at end of file); returns whether there was one. */
  reset(): boolean
  /** The option that makes the reader skip bad records, for the error's help line. */
  readonly ignoreOption: string
}

/** A record that cannot be decoded; `column` names the column when one value is at fault, `help` what to do besides skipping it. */
export class RecordError extends Error {
  constructor(readonly detail: string, readonly column?: string, readonly help?: string) {
    super(detail)
  }
}
