// Weir's public entry (package.json "main"): what a program embedding the engine uses — a Session that
// runs SQL and what it returns, the error type and how it renders, job metrics, the SQL parser, and
// reading a checkpoint or savepoint, and the job options (what SET takes and the typed configuration).
// The `weir` command (cli/) uses the engine only through this file.
export { Session, type SessionOptions, type StatementResult } from './engine/session.js'
export type { Script, SelectConsumer, SelectInfo } from './engine/script.js'
export type { JobInfo, JobOutcome, JobStatus } from './engine/jobs.js'
export type { JobSample } from './runtime/job-probe.js'
export type { SubtaskCheckpoint, SubtaskSample } from './runtime/subtask-stats.js'
export { completionNames, type CompletionNames, type NamedObject } from './engine/completion-names.js'
export { readCheckpointInfo, type CheckpointInfo } from './engine/checkpoint-info.js'
export { clientSettings, type ClientSettings, type ResultMode } from './common/config/index.js'
export { jobConfigOf, listOptions, resetOption, runDefaults, setOption, type JobConfig, type OptionSetting, type S3Config } from './common/config/index.js'
export type { JobMetrics } from './runtime/executor.js'
export type { FaultInjector, FaultPoint, FaultPoints } from './runtime/faults.js'
export { WeirError, renderError, type ErrorKind, type RecordPosition } from './common/errors.js'
export { padTo, parseSql, splitStatements, type SplitText, type StatementText } from './grammar/index.js'
export type { Statement } from './grammar/ast.js'
export type { DataType, Field } from './common/types.js'
export { formatValue } from './common/values.js'
export { RowKind, ROW_KIND_SHORT, type Batch, type Row } from './core/batch.js'
export type { JobGraph } from './core/job-graph.js'
export { defineProcessFunction, listState, mapState, valueState } from './ptf/api.js'
export { codecs, type StateCodec } from './ptf/codecs.js'
export type { ColumnType, Columns, Context, ListHandle, MapHandle, OpenContext, ProcessFunction, ProcessFunctionDefinition, RowOf, StateOptions, CodecOptions,
  TimerContext, Timers, ValueHandle } from './ptf/api.js'
export { defineAggregateFunction, defineScalarFunction } from './udf/api.js'
export type { AggregateFunction, AggregateFunctionDefinition, ArgTypes, ScalarFunction, ScalarFunctionDefinition, SqlType } from './udf/api.js'
