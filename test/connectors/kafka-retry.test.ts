// Which kafkajs errors the Kafka connector rides out as a broker restarting (connectors/kafka/retry.ts):
// kafkajs calls some of them final, and a job that failed on one of them failed for a passing state.
import * as kafkajs from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { isRetriable, retrying } from '../../connectors/kafka/retry.js'

// kafkajs' own error classes, with the constructors its code calls (its typings leave some out).
type KafkaErrorClass = new(e: unknown, metadata?: { retriable?: boolean; cause?: unknown }) => Error & { retriable: boolean }
const { KafkaJSConnectionError, KafkaJSError, KafkaJSGroupCoordinatorNotFound, KafkaJSNonRetriableError, KafkaJSProtocolError } = kafkajs as unknown as Record<
  string,
  KafkaErrorClass
>

describe('isRetriable', () => {
  it('takes a failed group coordinator lookup (no broker answered it) as a broker restarting', () => {
    // A job failed committing a transaction with this just after the broker came back.
    expect(new KafkaJSGroupCoordinatorNotFound('Failed to find group coordinator').retriable).toBe(false)
    expect(isRetriable(new KafkaJSGroupCoordinatorNotFound('Failed to find group coordinator'))).toBe(true)
  })

  it('looks through the chain kafkajs wraps an inner retry loop in', () => {
    // As kafkajs' retrier bails: new KafkaJSNonRetriableError(e, { cause: e }).
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092')
    expect(isRetriable(new KafkaJSError(refused, { retriable: false, cause: refused }))).toBe(true)
    const lookup = new KafkaJSGroupCoordinatorNotFound('Failed to find group coordinator')
    expect(isRetriable(new KafkaJSError(lookup, { retriable: false, cause: lookup }))).toBe(true)
  })

  it('does not retry what a restart does not cure', () => {
    const denied = new KafkaJSProtocolError({ type: 'TOPIC_AUTHORIZATION_FAILED', code: 29, retriable: false, message: 'Not authorized' })
    expect(isRetriable(denied)).toBe(false)
    expect(isRetriable(new KafkaJSError(denied, { retriable: false, cause: denied }))).toBe(false)
    expect(isRetriable(new Error('a bug'))).toBe(false)
    expect(isRetriable(undefined)).toBe(false)
  })
})

describe('retrying', () => {
  it('runs an operation again after a passing error and returns what it returns', async () => {
    let calls = 0
    const value = await retrying(async () => {
      calls++
      if (calls === 1) throw new KafkaJSGroupCoordinatorNotFound('Failed to find group coordinator')
      if (calls === 2) throw new KafkaJSError('NOT_COORDINATOR')
      return 'done'
    })
    expect(value).toBe('done')
    expect(calls).toBe(3)
  })

  it('gives up at once on an error a restart does not cure', async () => {
    let calls = 0
    const denied = new KafkaJSNonRetriableError('Not authorized')
    await expect(retrying(async () => {
      calls++
      throw denied
    })).rejects.toBe(denied)
    expect(calls).toBe(1)
  })
})
