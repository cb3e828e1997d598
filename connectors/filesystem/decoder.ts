// What the filesystem source's format decoders share: the per-line decoding contract, the rows a
// changelog record stands for, and the error a bad record raises (the reader adds the file and line
// number to it).
import { RowKind, type Row } from '../../core/batch.js'

/** Returned for a line that holds no record (blank line, comment). */
export const SKIP: unique symbol = Symbol('skip')
/** Returned when the record continues on the next line (a CSV quoted field holding a newline). */
export const MORE: unique symbol = Symbol('more')

/**
 * What a changelog format (debezium-json) decodes a record into: its rows with their kinds, in order
 * (an update is a -U row and a +U row). Readers keep a record's rows in one chunk.
 *
 * @example new Changes([before, after], [RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER])
 */
export class Changes {
  /** `event`: the change event the rows stand for, which format metadata columns read. */
  constructor(readonly rows: Row[], readonly kinds: RowKind[], readonly event?: ChangeEvent) {}

  /** The same changes with each row replaced by `f(row)` (a Kafka message's key and metadata columns added). */
  map(f: (row: Row) => Row): Changes {
    return new Changes(this.rows.map(f), this.kinds, this.event)
  }
}

/** A decoded change event: its payload ({"before", "after", "op", "source", "ts_ms"}) and, in an envelope, its schema. */
export interface ChangeEvent {
  readonly payload: Readonly<Record<string, unknown>>
  /** The envelope's "schema" ('debezium-json.schema-include'); undefined without one. */
  readonly schema?: unknown
}

/** The rows of a decoded record: a row alone, or a changelog record's rows. */
export function rowsOf(decoded: Row | Changes): readonly Row[] {
  return decoded instanceof Changes ? decoded.rows : [decoded]
}

/**
 * A chunk's rows and, once a record with another kind than +I is added, their kinds: an insert-only
 * chunk carries none (SourceChunk.kinds), so insert-only sources pay nothing for row kinds.
 */
export class ChunkRows {
  readonly rows: Row[] = []
  private kinds: RowKind[] | null = null

  add(decoded: Row | Changes): void {
    if (!(decoded instanceof Changes)) {
      this.rows.push(decoded)
      this.kinds?.push(RowKind.INSERT)
      return
    }
    for (let i = 0; i < decoded.rows.length; i++) {
      const kind = decoded.kinds[i]!
      if (kind !== RowKind.INSERT && this.kinds === null) this.kinds = this.rows.map(() => RowKind.INSERT)
      this.rows.push(decoded.rows[i]!)
      this.kinds?.push(kind)
    }
  }

  /** SourceChunk.kinds for the rows added, to spread into the chunk: none when every one is an insert. */
  chunkKinds(): { readonly kinds?: Uint8Array } {
    return this.kinds === null ? {} : { kinds: Uint8Array.from(this.kinds) }
  }
}

export interface RecordDecoder {
  /**
   * Decodes one line into a row in the physical schema's order (a changelog format: into Changes);
   * throws RecordError for a bad record.
   */
  decode(line: string): Row | Changes | typeof SKIP | typeof MORE
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
