// Ambient types for the parts of rocksdb-native (a CommonJS package without declarations) that
// the RocksDB state backend uses. Keys and values are raw bytes: no key or value encoding is set.
declare module 'rocksdb-native' {
  class RocksDB {
    constructor(path: string, options?: RocksDB.Options)
    readonly path: string
    readonly opened: boolean
    readonly closed: boolean
    ready(): Promise<void>
    close(options?: { readonly force?: boolean }): Promise<void>
    /** A read batch: many gets answered by one native call. */
    read(options?: RocksDB.ReadBatchOptions): RocksDB.ReadBatch
    /** A write batch: puts and deletes applied atomically, in order, by one native call. */
    write(options?: RocksDB.BatchOptions): RocksDB.WriteBatch
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

    interface BatchOptions {
      /** Initial number of operations; the batch grows past it. */
      readonly capacity?: number
      /** Frees the batch after its flush; otherwise call destroy(), or close() never resolves. */
      readonly autoDestroy?: boolean
    }

    interface ReadBatchOptions extends BatchOptions {
      /** Whether data blocks read go into RocksDB's block cache (default true). */
      readonly fillCache?: boolean
      /** RocksDB's async_io for MultiGet (default false). */
      readonly asyncIO?: boolean
    }

    interface ReadBatch {
      /** Resolves to the value, or null when the key is absent. */
      get(key: Uint8Array): Promise<Buffer | null>
      flush(): Promise<void>
      tryFlush(): void
      destroy(): void
    }

    interface WriteBatch {
      /** The try* variants queue the operation without a promise of their own; flush() reports errors. */
      tryPut(key: Uint8Array, value: Uint8Array): void
      tryDelete(key: Uint8Array): void
      /** Deletes every key in [start, end). */
      tryDeleteRange(start: Uint8Array, end: Uint8Array): void
      flush(): Promise<void>
      destroy(): void
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
