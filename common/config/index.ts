// Job options: each defined once (key, kind of value, default, checks, meaning; options.ts), with
// Flink's spellings (flink.ts); what SET and RESET do (set.ts); and the typed JobConfig a job is
// planned with (job-config.ts). Low in the folder graph: everything above may import it.
export { ALL_OPTIONS, BATCH_SIZE, MAX_PARALLELISM, STATE_CACHE_SIZE, WRITE_BUFFER_SIZE, optionOf, runDefaults, type ConfigOption, type OnJobFailure,
  type StateBackendKind } from './options.js'
export { listOptions, resetOption, setOption, type OptionSetting } from './set.js'
export { DEFAULT_JOB_CONFIG, jobConfigOf, type CheckpointingConfig, type JobConfig, type OptionSettings, type S3Config,
  type StateConfig } from './job-config.js'
export { clientSettings, MAX_ROWS, RESULT_MODE, type ClientSettings, type ResultMode } from './client.js'
