// What the Kafka source tests share: creating topics and appending messages on the test broker,
// a table's DDL, running a bounded SELECT, and waiting for a condition.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { IHeaders, Kafka } from 'kafkajs'
import { afterAll, beforeAll, expect } from 'vitest'
import { isWeirError, type WeirError } from '../../common/errors.js'
import { Session, type StatementResult } from '../../engine/session.js'
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-server.js'

/** The suite's broker, a client of it, and a temporary folder; valid inside tests (set by beforeAll). */
export interface KafkaSuite {
  readonly broker: KafkaBroker
  readonly kafka: Kafka
  readonly root: string
}

/** Starts a broker and a temporary folder for the calling test file, and removes them after it. */
export function kafkaSuite(name: string): KafkaSuite {
  const suite: { broker?: KafkaBroker; kafka?: Kafka; root?: string } = {}
  beforeAll(async () => {
    suite.broker = await startKafkaBroker()
    suite.kafka = suite.broker.client()
    suite.root = mkdtempSync(join(tmpdir(), `weir-${name}-`))
  }, 450_000)
  afterAll(async () => {
    await suite.broker?.close()
    if (suite.root !== undefined) rmSync(suite.root, { recursive: true, force: true })
  }, 150_000)
  return {
    get broker() {
      return suite.broker!
    },
    get kafka() {
      return suite.kafka!
    },
    get root() {
      return suite.root!
    },
  }
}

export interface Message {
  readonly partition: number
  readonly value: string | null
  readonly timestamp?: number
  readonly key?: string | null
  readonly headers?: IHeaders
}

/** Creates `topic` with `partitions` partitions and appends `messages` in order. */
export async function produce(kafka: Kafka, topic: string, partitions: number, messages: readonly Message[]): Promise<void> {
  const admin = kafka.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
  await admin.disconnect()
  await append(kafka, topic, messages)
}

export async function append(kafka: Kafka, topic: string, messages: readonly Message[]): Promise<void> {
  // Idempotent: a send retried on a busy machine must not append its messages twice.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  for (let i = 0; i < messages.length; i += 500) {
    await producer.send({
      topic,
      messages: messages.slice(i, i + 500).map(m => ({
        partition: m.partition,
        value: m.value,
        ...(m.key !== undefined ? { key: m.key } : {}),
        ...(m.headers !== undefined ? { headers: m.headers } : {}),
        ...(m.timestamp !== undefined ? { timestamp: String(m.timestamp) } : {}),
      })),
    })
  }
  await producer.disconnect()
}

export function kafkaTable(bootstrap: string, name: string, columns: string, topic: string | null, options: Record<string, string> = {}): string {
  const all = { 'connector': 'kafka', ...(topic !== null ? { topic } : {}), 'properties.bootstrap.servers': bootstrap, 'format': 'json', ...options }
  return `CREATE TABLE ${name} (${columns}) WITH (${Object.entries(all).map(([k, v]) => `'${k}' = '${v}'`).join(', ')});`
}

/** Runs the statements; returns the rows of the last (a SELECT over a bounded source) as JSON text, sorted. */
export async function select(sql: string, options: Record<string, string> = {}): Promise<{ rows: string[]; result: StatementResult }> {
  const session = new Session({ println: () => undefined, options })
  const results = await session.executeSql(sql)
  const last = results.at(-1)!
  if (last.kind !== 'rows') throw new Error(`expected rows, got ${last.kind}`)
  for (const c of last.changes) expect(c.kind).toBe(0)
  return { rows: last.changes.map(c => JSON.stringify(c.row)).sort(), result: last }
}

export async function failure(sql: string): Promise<WeirError> {
  const session = new Session({ println: () => undefined })
  try {
    await session.executeSql(sql)
    await session.awaitJobs()
  } catch (e) {
    if (isWeirError(e)) return e
    throw e
  }
  throw new Error('expected the statements to fail')
}

/** Waits until `done()` holds, checking every 100 ms for at most `ms`; false when it never did. */
export async function until(done: () => boolean | Promise<boolean>, ms = 60_000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (await done()) return true
    await new Promise(r => setTimeout(r, 100))
  }
  return done()
}
