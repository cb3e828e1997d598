// Ambient types for the parts of rocksdb-native (a CommonJS package without declarations) that
// the RocksDB state backend uses. Keys and values are raw bytes: no key or value encoding is set.
// Reads and writes go through the binding directly (native-batch.ts), not through the library's batches.
declare module 'rocksdb-native' {
  class RocksDB {
    constructor(path: string, options?: RocksDB.Options)
    readonly path: string
    readonly opened: boolean
    readonly closed: boolean
    ready(): Promise<void>
    close(options?: { readonly force?: boolean }): Promise<void>
    /** Ascending (unless reversed) over the range; async iterable of raw entries. */
    iterator(range: RocksDB.IteratorRange, options?: RocksDB.IteratorOptions): AsyncIterable<RocksDB.Entry> & { destroy(): void }
    /** Flushes the memtable to an SST file. */
    flush(): Promise<void>
    /** Compacts every key (or [start, end)). */
    compactRange(start?: Uint8Array | null, end?: Uint8Array | null): Promise<void>
    suspend(): Promise<void>
    resume(): Promise<void>
  }

  namespace RocksDB {
    interface Options {
      readonly createIfMissing?: boolean
      readonly readOnly?: boolean
      readonly maxBackgroundJobs?: number
      /** Column-family options, passed at the top level. */
      readonly writeBufferSize?: number
      readonly tableBlockSize?: number
    }

    interface IteratorRange {
      readonly gt?: Uint8Array
      readonly gte?: Uint8Array
      readonly lt?: Uint8Array
      readonly lte?: Uint8Array
    }

    interface IteratorOptions {
      readonly reverse?: boolean
      readonly values?: boolean
      readonly limit?: number
      /** Entries fetched per native call. */
      readonly capacity?: number
    }

    interface Entry {
      readonly key: Buffer
      readonly value: Buffer
    }
  }

  export = RocksDB
}
