// The 'print' sink: writes each row as Flink does, `+I[1, foo, 2024-01-01 00:00:00.000]`, optionally
// prefixed `<print-identifier>> `, to the job's output (ctx.println) or to stderr. Not transactional:
// after a restore, the rows replayed since the checkpoint are printed again (at-least-once).
import type { Field } from '../common/types.js'
import { formatValue } from '../common/values.js'
import { ROW_KIND_SHORT, type Batch, type Row } from '../core/batch.js'
import type { ConnectorFactory, ConnectorOptions, SinkContext, SinkWriter } from './api.js'
import { aboutValue, boolOption, checkKnownOptions, checkSinkParallelism } from './options.js'
import { WeirError } from '../common/errors.js'

const OPTIONS = ['print-identifier', 'standard-error', 'sink.parallelism']

function validate(options: ConnectorOptions): void {
  checkKnownOptions('print', options, OPTIONS)
  boolOption(options, 'standard-error', false)
  checkSinkParallelism(options)
  if (options['sink.parallelism'] !== undefined && Number(options['sink.parallelism']) !== 1) {
    throw aboutValue(
      WeirError.connector(`connector 'print' writes with one subtask (its lines keep the order of the query's output): 'sink.parallelism' can only be 1`, {
        help: `remove 'sink.parallelism', or write to 'blackhole', which runs as several subtasks`,
      }),
      'sink.parallelism',
    )
  }
}

/** `+I[1, NULL, foo]`: the row kind, then each value as formatValue prints it. */
export function formatRow(row: Row, kind: number, schema: readonly Field[]): string {
  let s = ROW_KIND_SHORT[kind] + '['
  for (let i = 0; i < schema.length; i++) {
    if (i > 0) s += ', '
    s += formatValue(row[i], schema[i]!.type)
  }
  return s + ']'
}

class PrintWriter implements SinkWriter {
  rows = 0
  constructor(
    private readonly schema: readonly Field[],
    private readonly prefix: string,
    private readonly out: (line: string) => void,
  ) {}

  write(batch: Batch): void {
    const { rows, kinds } = batch
    for (let i = 0; i < rows.length; i++) this.out(this.prefix + formatRow(rows[i]!, kinds === null ? 0 : kinds[i]!, this.schema))
    this.rows += rows.length
  }

  async finish(): Promise<void> {}
  async close(): Promise<void> {}
}

/**
 * @example CREATE TABLE out (id INT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'q1')
 */
export const printConnector: ConnectorFactory = {
  name: 'print',
  sink: {
    validate,
    acceptsUpdates: () => true,
    upsertsAsTheyCome: true,
    async create(ctx: SinkContext): Promise<SinkWriter> {
      validate(ctx.options)
      const id = ctx.options['print-identifier']
      const toStderr = boolOption(ctx.options, 'standard-error', false)
      const out = toStderr
        ? (line: string) => {
          process.stderr.write(line + '\n')
        }
        : ctx.println
      return new PrintWriter(ctx.schema, id !== undefined && id !== '' ? `${id}> ` : '', out)
    },
  },
}
