// Rows → Kafka messages: the key's and the value's columns encoded with their formats (json, csv,
// raw), and the partition the sink's partitioner picks. A message is a plain tuple so that an
// exactly-once sink can keep a checkpoint's messages in the checkpoint as JSON.
import type { Field } from '../../../common/types.js'
import { RowKind, type Batch, type Row } from '../../../core/batch.js'
import { csvRowEncoder, jsonRowEncoder } from '../../filesystem/encoders.js'
import { keyPartition } from './murmur2.js'
import type { KafkaSinkConfig, MessageFormat } from './options.js'

/** [partition (null, in checkpoints of earlier versions: the producer's partitioner picks it by key), key, value (null: a tombstone)]. */
export type Message = [partition: number | null, key: string | null, value: string | null]

type Encode = (row: Row) => string | null

function encoder(format: MessageFormat, columns: readonly number[], schema: readonly Field[]): Encode {
  const fields = columns.map(i => schema[i]!)
  const project = (row: Row): Row => columns.map(i => row[i])
  switch (format) {
    case 'json': {
      const encode = jsonRowEncoder(fields, { ignoreParseErrors: false, failOnMissingField: false, timestampStandard: 'SQL', timestampEpoch: null })
      return row => encode(project(row))
    }
    case 'csv': {
      const encode = csvRowEncoder(fields, {
        delimiter: ',',
        ignoreParseErrors: false,
        nullLiteral: '',
        allowComments: false,
        quote: '"',
        escape: null,
        timestampEpoch: null,
      })
      return row => encode(project(row))
    }
    case 'raw': {
      const i = columns[0]!
      return row => (row[i] === null || row[i] === undefined ? null : (row[i] as string))
    }
  }
}

/**
 * Turns the rows of batches into messages. 'kafka' takes inserts only; 'upsert-kafka' writes +I/+U
 * as the new value of their key and -D as a tombstone, and drops -U (the +U that follows replaces
 * it), as Flink does.
 */
export class MessageEncoder {
  private readonly key: Encode | undefined
  private readonly value: Encode
  private roundRobin = 0

  constructor(private readonly config: KafkaSinkConfig, schema: readonly Field[], private readonly partitions: number) {
    this.key = config.keyColumns.length > 0 ? encoder(config.keyFormat!, config.keyColumns, schema) : undefined
    this.value = encoder(config.valueFormat, config.valueColumns, schema)
  }

  encode(batch: Batch, out: Message[]): void {
    const { rows, kinds } = batch
    for (let r = 0; r < rows.length; r++) {
      const kind = kinds === null ? RowKind.INSERT : kinds[r]!
      if (kind === RowKind.UPDATE_BEFORE) continue
      const row = rows[r]!
      const key = this.key === undefined ? null : this.key(row)
      out.push([this.partition(key), key, kind === RowKind.DELETE ? null : this.value(row)])
    }
  }

  private partition(key: string | null): number | null {
    switch (this.config.partitioner) {
      case 'default':
        // By key as Kafka's default partitioner does, computed here (kafkajs' own murmur2 costs far more).
        return key === null ? this.roundRobin++ % this.partitions : keyPartition(key, this.partitions)
      case 'round-robin':
        return this.roundRobin++ % this.partitions
      case 'fixed':
        // Flink's fixed partitioner: sink subtask i writes partition i % partitions; Weir runs one sink subtask.
        return 0
    }
  }
}
