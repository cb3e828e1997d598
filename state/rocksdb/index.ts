// The RocksDB keyed-state backend's public surface.
export { RocksDbKeyedStateBackend, type KeyGroupSnapshot, type RocksDbBackendOptions } from './rocksdb-backend.js'
