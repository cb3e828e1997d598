// The 'filesystem' connector: a bounded source over a file or a directory of JSON-lines / CSV files
// or debezium-json changelogs that resumes at byte offsets, and a sink writing part files (JSON
// lines, CSV, or a debezium-json changelog), exactly-once when the job takes checkpoints.
import type { ConnectorFactory } from '../api.js'
import { resolveFsOptions } from './options.js'
import { fileSinkCommittedAfter } from './exactly-once-sink.js'
import { checkFileSinkOptions, createFileSink } from './sink.js'
import { partitionedCommittedAfter } from './partitioned-sink.js'
import { createFileSource } from './source.js'
import { checkCsvColumns } from './csv-columns.js'
import { checkFileMetadata, FILE_METADATA_KEYS } from './file-metadata.js'

/**
 * @example CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'data/', 'format' = 'csv')
 */
export const filesystemConnector: ConnectorFactory = {
  name: 'filesystem',
  source: {
    validate(options, schema, metadata) {
      checkFileMetadata(schema, metadata)
      checkCsvColumns(resolveFsOptions(options).format, schema.filter((_, i) => (metadata?.[i] ?? null) === null))
    },
    metadataKeys: FILE_METADATA_KEYS,
    // Files, and byte ranges of large JSON files, are dealt to the subtasks (splits.ts).
    splittable: true,
    bounded() {
      return true
    },
    changelogMode(options) {
      return resolveFsOptions(options).format === 'debezium-json' ? 'updating' : 'insert-only'
    },
    create: createFileSource,
  },
  sink: {
    validate(options, schema) {
      checkCsvColumns(resolveFsOptions(options).format, schema)
    },
    acceptsUpdates(options) {
      return (options['format'] ?? '').trim().toLowerCase() === 'debezium-json'
    },
    checkWrite(options) {
      checkFileSinkOptions(options)
    },
    create: createFileSink,
    committedAfter: (query, checkpointId) =>
      (query.partitionKeys ?? []).length > 0 ? partitionedCommittedAfter(query, checkpointId) : fileSinkCommittedAfter(query, checkpointId),
    overwrite: true,
  },
  partitioned: true,
}
