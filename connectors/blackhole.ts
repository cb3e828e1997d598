// The 'blackhole' sink: takes every row (updates too) and discards it, counting rows; for benchmarks.
import type { Batch } from '../core/batch.js'
import type { ConnectorFactory, SinkWriter } from './api.js'
import { checkKnownOptions } from './options.js'

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
      checkKnownOptions('blackhole', options, [])
    },
    acceptsUpdates: () => true,
    updateBefore: () => 'ignored',
    async create() {
      return new BlackholeWriter()
    },
  },
}
