// Which subtask of a Kafka source reads a partition: a rule of the topic's name and the partition
// number alone, so every reader agrees without talking to the others, and a partition found while
// running goes to exactly one of them. It is Flink's (KafkaSourceEnumerator): a topic's partitions
// are dealt round robin from a start subtask that depends on the topic, so several topics of few
// partitions do not all pile onto subtask 0.
import type { SourceSubtask } from '../api.js'
import type { TopicPartition } from './source-offsets.js'

/**
 * The subtask (0 ≤ n < parallelism) that reads `tp`.
 * @example ownerOf({ topic: 'clicks', partition: 3 }, 2) // the same in every reader and every run
 */
export function ownerOf(tp: TopicPartition, parallelism: number): number {
  const start = (Math.imul(javaHashCode(tp.topic), 31) & 0x7fffffff) % parallelism
  return (start + tp.partition) % parallelism
}

/** Whether the reader of `subtask` reads `tp` (absent: the only reader reads everything). */
export function owns(subtask: SourceSubtask | undefined, tp: TopicPartition): boolean {
  return subtask === undefined || subtask.parallelism <= 1 || ownerOf(tp, subtask.parallelism) === subtask.index
}

/** Java's String.hashCode (UTF-16 code units, 32-bit wrap-around), so topics spread as Flink spreads them. */
function javaHashCode(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h
}
