// Test helpers for connectors: source/sink contexts, draining a reader, temp directories.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { T, type Field } from '../../common/types.js'
import type { ConnectorOptions, SinkContext, SourceChunk, SourceContext, SourceReader, SplitPosition } from '../../connectors/api.js'
import type { Row } from '../../core/batch.js'
import { WeirError } from '../../common/errors.js'
import { Session } from '../../engine/session.js'
import { expect } from 'vitest'

/** The nexmark tables' columns, declared as a user would (the tests' own copy, not the connector's list). */
export const BID: Field[] = [
  { name: 'auction', type: T.bigint() },
  { name: 'bidder', type: T.bigint() },
  { name: 'price', type: T.bigint() },
  { name: 'channel', type: T.string() },
  { name: 'url', type: T.string() },
  { name: 'dateTime', type: T.timestamp(3) },
  { name: 'extra', type: T.string() },
]
export const AUCTION: Field[] = [
  { name: 'id', type: T.bigint() },
  { name: 'itemName', type: T.string() },
  { name: 'description', type: T.string() },
  { name: 'initialBid', type: T.bigint() },
  { name: 'reserve', type: T.bigint() },
  { name: 'dateTime', type: T.timestamp(3) },
  { name: 'expires', type: T.timestamp(3) },
  { name: 'seller', type: T.bigint() },
  { name: 'category', type: T.bigint() },
  { name: 'extra', type: T.string() },
]
export const PERSON: Field[] = [
  { name: 'id', type: T.bigint() },
  { name: 'name', type: T.string() },
  { name: 'emailAddress', type: T.string() },
  { name: 'creditCard', type: T.string() },
  { name: 'city', type: T.string() },
  { name: 'state', type: T.string() },
  { name: 'dateTime', type: T.timestamp(3) },
  { name: 'extra', type: T.string() },
]

export function sourceCtx(
  options: ConnectorOptions,
  schema: readonly Field[],
  batchSize = 1024,
  signal: AbortSignal = new AbortController().signal,
  restoredPositions?: readonly (SplitPosition | null)[],
): SourceContext {
  return { table: 't', options, schema, signal, batchSize, ...(restoredPositions !== undefined ? { restoredPositions } : {}) }
}

/** What a sink's context adds for checkpointed jobs; by default job 'test-job', operator '9-sink', not exactly-once. */
export type SinkJob = Partial<Pick<SinkContext, 'jobName' | 'operatorId' | 'exactlyOnce' | 'restoredCommit' | 'restoredData' | 'metadata'>>

export function sinkCtx(options: ConnectorOptions, schema: readonly Field[], println: (line: string) => void = () => {}, job: SinkJob = {}): SinkContext {
  return { table: 'out', options, schema, changelog: 'insert-only', primaryKey: [], println, jobName: 'test-job', operatorId: '9-sink', exactlyOnce: false,
    ...job }
}

/** Every chunk a reader gives until it returns null; then (or when it fails) closes it, as the runtime does. */
export async function drain(reader: SourceReader): Promise<SourceChunk[]> {
  try {
    const chunks: SourceChunk[] = []
    for (let i = 0; i < 1_000_000; i++) {
      const c = await reader.next()
      if (c === null) return chunks
      chunks.push(c)
    }
    throw new Error('reader did not end')
  } finally {
    await reader.close()
  }
}

export async function readAllRows(reader: SourceReader): Promise<Row[]> {
  return (await drain(reader)).flatMap(c => c.rows)
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'weir-connectors-'))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Runs `fn` and returns the error it throws (failing if it does not throw). */
export async function errorOf(
  fn: () => unknown,
): Promise<Error & { kind?: string; help?: string; record?: { source: string; line?: number; record?: string } }> {
  try {
    await fn()
  } catch (e) {
    return e as Error
  }
  throw new Error('expected an error')
}

/** The WeirError that planning or running `sql` in a fresh session throws (failing if it throws none, or another error). */
export async function sqlError(sql: string): Promise<WeirError> {
  const e = await errorOf(() => new Session({ println: () => undefined }).executeSql(sql))
  expect(e).toBeInstanceOf(WeirError)
  return e as WeirError
}

/** The visible lines of a filesystem sink's directory (hidden pending and in-progress files are not output), sorted. */
export function visibleRows(dir: string): string[] {
  if (!existsSync(dir)) return []
  const rows: string[] = []
  for (const f of readdirSync(dir)) {
    if (f.startsWith('.') || f.startsWith('_')) continue
    rows.push(...readFileSync(join(dir, f), 'utf8').split('\n').filter(l => l !== ''))
  }
  return rows.sort()
}
