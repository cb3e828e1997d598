// The physical spec of a process table function: which module to load, its key, its arguments and
// the state it declared (for EXPLAIN and restore checks). Plain data, like every spec.
import type { Field } from '../common/types.js'

/** One state a process function declared, as its module said. */
export interface ProcessStateInfo {
  /** The property of `ctx.state` it is reached by. */
  readonly field: string
  /** Its name in the state backend. */
  readonly name: string
  readonly kind: 'value' | 'list' | 'map'
  /** 0: no TTL. */
  readonly ttlMs: number
  readonly updateTtlOnRead: boolean
  /** The id of its values' codec (ptf/codecs.ts); absent: the default, 'json'. */
  readonly codec?: string
}

/**
 * A user's process function over a partitioned input: keyed by `keys` (the PARTITION BY columns),
 * each input row goes to `process` with its key's state current. Output row: [...key values, ...output].
 */
export interface ProcessFunctionSpec {
  readonly kind: 'ProcessFunction'
  /** The function's name in SQL (CREATE FUNCTION). */
  readonly function: string
  /** The module, an absolute path (.ts compiled on load, or .js / .mjs). */
  readonly module: string
  readonly keys: readonly number[]
  /** The input's columns, in order: each row reaches the handler as an object of these. */
  readonly input: readonly Field[]
  /** The columns the function emits (after the key columns). */
  readonly output: readonly Field[]
  /** The call's scalar arguments by name. */
  readonly args: Readonly<Record<string, string | number | boolean | null>>
  readonly states: readonly ProcessStateInfo[]
  /** Whether the module declares onTimer (then it may register timers of both domains). */
  readonly timers: boolean
  /**
   * 'retract': its output carries changes (-U/+U/-D) of rows it emitted; 'upsert': the latest row per
   * upsert key (+I/+U without -U) and deletes by key (-D); absent: insert-only.
   */
  readonly changelog?: 'retract' | 'upsert'
  /** With 'upsert': the output columns that, after the key columns, identify a row. */
  readonly upsertKey?: readonly string[]
}
