// The RocksDB backend's factory: a database per subtask in the job's state folder, opened empty or
// restored from the handles of a checkpoint (restore.ts), with deferred write-back.
import { join } from 'node:path'
import { safeFileName } from '../../common/names.js'
import type { StateBackendFactory } from '../backend.js'
import { referencedObjects, type RocksDbStateHandle } from './handle.js'
import { restoreRocksDbSubtask } from './restore.js'
import { RocksDbKeyedStateBackend, type RocksDbBackendOptions } from './rocksdb-backend.js'

export const rocksDbStateBackend: StateBackendFactory<RocksDbStateHandle> = {
  name: 'rocksdb',
  async create(o, restore) {
    // A bundle spans batches until the cache's budget of held changes is reached (deferred
    // write-back): a hot key is written once per bundle, not once per batch. sync() ends it early.
    const open: RocksDbBackendOptions = {
      dir: join(o.jobDir, safeFileName(o.parallelism === 1 ? o.operatorId : `${o.operatorId}-${o.subtask}`)),
      operatorId: o.operatorId,
      jobName: o.jobName,
      maxParallelism: o.maxParallelism,
      keyGroupRange: o.keyGroupRange,
      cacheBytes: o.cacheBytes,
      writeBufferBytes: o.writeBufferBytes,
      writeBack: 'deferred',
    }
    if (restore === undefined) return RocksDbKeyedStateBackend.open(open)
    const restored = await restoreRocksDbSubtask({ open, range: o.keyGroupRange, storage: restore.storage, tmpDir: await o.tmpDir(), handles: restore.handles })
    return restored.backend
  },
  referencedObjects,
}
