// A kafkajs client made from a table's options: 'properties.bootstrap.servers' and the
// 'properties.*' keys kafkajs has an equivalent for (any other is refused: silently ignoring a
// client setting would run the job with other settings than the user asked for), quiet logging,
// retries with back-off, and broker errors turned into WeirErrors that say what to do.
import { createRequire } from 'node:module'
import type { Kafka, KafkaConfig } from 'kafkajs'
import { framedSockets } from './framed-socket.js'
import { WeirError } from '../../common/errors.js'
import type { ConnectorOptions } from '../api.js'
import { aboutKey, aboutValue, badValue, closest, intOption } from '../options.js'

/**
 * kafkajs, loaded on first use (it is CommonJS): a job without a Kafka table does not pay the
 * 0.2-0.5 s its modules take to load.
 */
export function kafkajs(): typeof import('kafkajs') {
  return (loaded ??= createRequire(import.meta.url)('kafkajs') as typeof import('kafkajs'))
}
let loaded: typeof import('kafkajs') | undefined

/** The 'properties.*' keys Weir maps onto kafkajs (the Kafka client's names, as Flink passes them). */
export const CLIENT_PROPERTIES: readonly string[] = [
  'properties.bootstrap.servers',
  'properties.group.id',
  'properties.client.id',
  'properties.security.protocol',
  'properties.request.timeout.ms',
  'properties.socket.connection.setup.timeout.ms',
  'properties.retry.backoff.ms',
  'properties.reconnect.backoff.max.ms',
]

/** Consumer 'properties.*' keys the Kafka source maps (see source-options.ts). */
export const CONSUMER_PROPERTIES: readonly string[] = [
  'properties.auto.offset.reset',
  'properties.isolation.level',
  'properties.session.timeout.ms',
  'properties.heartbeat.interval.ms',
  'properties.fetch.min.bytes',
  'properties.fetch.max.bytes',
  'properties.fetch.max.wait.ms',
  'properties.max.partition.fetch.bytes',
]

/** Throws for a 'properties.*' key that is not in `supported`. */
export function checkProperties(options: ConnectorOptions, supported: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!key.startsWith('properties.') || supported.includes(key)) continue
    const guess = closest(key, supported)
    throw aboutKey(
      WeirError.connector(`Kafka client property '${key.slice('properties.'.length)}' is not supported by Weir's Kafka connector (kafkajs has no equivalent)`, {
        help: `${guess !== undefined ? `did you mean '${guess}'? ` : ''}the supported properties are ${supported.map(k => `'${k}'`).join(', ')}`,
      }),
      key,
    )
  }
}

/** The broker addresses of 'properties.bootstrap.servers' ('host:port' list, comma separated). */
export function bootstrapServers(options: ConnectorOptions): string[] {
  const text = options['properties.bootstrap.servers']
  if (text === undefined) {
    throw aboutValue(
      WeirError.connector(`required option 'properties.bootstrap.servers' is missing for connector 'kafka'`, {
        help: `add 'properties.bootstrap.servers' = 'host:9092' to the table's WITH clause`,
      }),
      'connector',
    )
  }
  const brokers = text.split(',').map(s => s.trim()).filter(s => s !== '')
  if (brokers.length === 0 || brokers.some(b => !/^[^\s:]+:\d+$/.test(b))) {
    throw badValue('properties.bootstrap.servers', text, `a comma-separated list of 'host:port' addresses`)
  }
  return brokers
}

/** kafkajs' client settings for the table's options (already validated). */
export function clientConfig(options: ConnectorOptions, table: string): KafkaConfig {
  const protocol = (options['properties.security.protocol'] ?? 'PLAINTEXT').trim().toUpperCase()
  if (protocol !== 'PLAINTEXT' && protocol !== 'SSL') {
    throw badValue('properties.security.protocol', options['properties.security.protocol']!, `'PLAINTEXT' or 'SSL'`, 'SASL is not supported yet')
  }
  const retryMs = intOption(options, 'properties.retry.backoff.ms', 300, 1)
  return {
    clientId: options['properties.client.id'] ?? `weir-${table}`,
    brokers: bootstrapServers(options),
    ssl: protocol === 'SSL',
    // Whole responses per 'data' event (framed-socket.ts); TLS connections are kafkajs' own.
    ...(protocol === 'SSL' ? {} : { socketFactory: framedSockets }),
    requestTimeout: intOption(options, 'properties.request.timeout.ms', 30_000, 1),
    connectionTimeout: intOption(options, 'properties.socket.connection.setup.timeout.ms', 5_000, 1),
    // Retries with exponential back-off: a broker that restarts is waited for, one that stays down
    // fails the call after about half a minute (and the job with a clear error).
    retry: { initialRetryTime: retryMs, maxRetryTime: intOption(options, 'properties.reconnect.backoff.max.ms', 5_000, 1), retries: 6 },
    // The job reports errors itself, as WeirErrors; kafkajs' own log lines would only be noise.
    logLevel: kafkajs().logLevel.NOTHING,
  }
}

/** A kafkajs client for the table's options. */
export function kafkaClient(options: ConnectorOptions, table: string): Kafka {
  return new (kafkajs().Kafka)(clientConfig(options, table))
}

/** What the connector was doing when a Kafka call failed, for the error message. */
export interface KafkaAction {
  readonly table: string
  /** e.g. `read topic 'clicks'` */
  readonly doing: string
  readonly brokers: readonly string[]
}

/**
 * A WeirError for a failed kafkajs call: a broker that cannot be reached, a topic that does not
 * exist, or another broker error by its Kafka name. WeirErrors pass through.
 */
export function kafkaError(e: unknown, action: KafkaAction): WeirError {
  if (e instanceof WeirError) return e
  const err = e as { name?: string; type?: string; message?: string; cause?: unknown; originalError?: unknown }
  const chain = errorChain(e)
  const where = `table '${action.table}' could not ${action.doing}`
  const brokers = action.brokers.join(',')
  const unreachable = unreachableBroker(e, action.brokers)
  if (unreachable !== undefined) return WeirError.connector(`${where}: ${unreachable.message}`, { help: unreachable.help, cause: e })
  const type = chain.map(x => x.type).find(t => typeof t === 'string')
  if (type === 'UNKNOWN_TOPIC_OR_PARTITION') {
    return WeirError.connector(`${where}: the topic does not exist on the broker at ${brokers}`, {
      help: `create the topic first (Weir does not create topics it reads), or fix the table's 'topic' option`,
      cause: e,
    })
  }
  return WeirError.connector(`${where}: ${type !== undefined ? `Kafka error ${type}: ` : ''}${rootMessage(chain)}`, {
    help: `check the broker at ${brokers} (its log says more); the job can be restarted from its last checkpoint`,
    cause: err,
  })
}

/** What to say when `e` is a failure to reach the brokers (connection refused, timed out, no such host); undefined for any other error. */
export function unreachableBroker(e: unknown, brokers: readonly string[]): { message: string; help: string } | undefined {
  const chain = errorChain(e)
  if (
    !chain.some(x => /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|Connection timeout|connect ECONN/i.test(x.message ?? '')) &&
    !chain.some(x => x.name === 'KafkaJSConnectionError')
  ) {
    return undefined
  }
  const list = brokers.join(',')
  return {
    message: `the Kafka broker at ${list} cannot be reached (${rootMessage(chain)})`,
    help: `check that the broker is running and that 'properties.bootstrap.servers' = '${list}' is its address`,
  }
}

interface ErrorLike {
  readonly name?: string
  readonly type?: string
  readonly message?: string
}

/** The error and what caused it (kafkajs wraps the cause of a retried call in `cause` or `originalError`). */
function errorChain(e: unknown): ErrorLike[] {
  const chain: ErrorLike[] = []
  let x: unknown = e
  while (typeof x === 'object' && x !== null && chain.length < 10) {
    chain.push(x as ErrorLike)
    const o = x as { cause?: unknown; originalError?: unknown }
    x = o.originalError ?? o.cause
  }
  return chain
}

function rootMessage(chain: readonly ErrorLike[]): string {
  return chain.at(-1)?.message ?? chain[0]?.message ?? 'unknown error'
}
