// Riding out a broker restart: which kafkajs errors are passing states of a broker going away and
// coming back, and a loop that runs an operation again while it fails with one, for up to two minutes.

/** How long retriable errors (a coordinator loading or moving, a broker restarting) are retried. */
export const RETRY_FOR_MS = 120_000

/**
 * Errors kafkajs calls non-retriable that are passing states of a broker restarting: no broker
 * answered a coordinator lookup (one still loading its offsets or transactions answers
 * COORDINATOR_LOAD_IN_PROGRESS, which kafkajs gives up on at once), or a lock not taken in time.
 */
const TRANSIENT = new Set(['KafkaJSNumberOfRetriesExceeded', 'KafkaJSConnectionError', 'KafkaJSGroupCoordinatorNotFound', 'KafkaJSLockTimeout'])

export function isRetriable(e: unknown): boolean {
  // kafkajs wraps the failure of an inner retry loop (retries exceeded on a refused connection while
  // the broker restarts) in a KafkaJSNonRetriableError of the outer one: look at the whole chain.
  for (let x = e as { retriable?: boolean; name?: string; originalError?: unknown; cause?: unknown } | null, i = 0; x && i < 10; i++) {
    if (x.retriable === true || (x.name !== undefined && TRANSIENT.has(x.name))) return true
    x = (x.originalError ?? x.cause) as typeof x
  }
  return false
}

/** Runs `what` again while it fails with an error Kafka calls retriable (kafkajs does not retry some, e.g. NOT_COORDINATOR on sendOffsets). */
export async function retrying<T>(what: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RETRY_FOR_MS
  let wait = 100
  for (;;) {
    try {
      return await what()
    } catch (e) {
      if (!isRetriable(e) || Date.now() > deadline) throw e
      await new Promise(r => setTimeout(r, wait))
      wait = Math.min(wait * 2, 2000)
    }
  }
}
