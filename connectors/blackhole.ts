// The 'blackhole' sink: takes every row (updates too) and discards it, counting rows; for benchmarks.
// It splits: at parallelism N it runs as N subtasks chained to its input's ('sink.parallelism' sets another number).
import type { Batch } from '../core/batch.js'
import type { ConnectorFactory, SinkWriter } from './api.js'
import { checkKnownOptions, checkSinkParallelism } from './options.js'

/** A writer that only counts what it is given. */
export class BlackholeWriter implements SinkWriter {
  rows = 0
  batches = 0
  write(batch: Batch): void {
    this.rows += batch.rows.length
    this.batches++
  }
  async finish(): Promise<void> {}
  async close(): Promise<void> {}
}

/**
 * @example CREATE TABLE discard (id BIGINT) WITH ('connector' = 'blackhole')
 */
export const blackholeConnector: ConnectorFactory = {
  name: 'blackhole',
  sink: {
    validate(options) {
      checkKnownOptions('blackhole', options, ['sink.parallelism'])
      checkSinkParallelism(options)
    },
    parallel: true,
    acceptsUpdates: () => true,
    updateBefore: () => 'ignored',
    async create() {
      return new BlackholeWriter()
    },
  },
}
