// The processing threads first. A job runs its operators on one thread per subtask; every other thread
// of the process serves them: V8's collector and compiler threads, libuv's pool (where RocksDB's reads,
// writes and write-ahead log run) and RocksDB's flush and compaction threads. With fewer cores than
// runnable threads, Linux shares the cores evenly by thread, and a processing thread waits behind its
// own helpers. So a job, once its state is open, lowers the priority of every other thread of the
// process ('execution.helper-threads.nice'), as RocksDB's Env::LowerThreadPoolCPUPriority does for its
// background threads: they still take every core the processing threads leave idle.
//
// On the 2-core host (scale 1, 3 alternating rounds against the build before, 2026-12-06, events/s):
// q20-rocksdb 524–536K → 548–586K, q4-rocksdb 551–562K → 563–594K, q9-rocksdb 351–360K → 364–384K,
// heap q20 1.18–1.23M → 1.19–1.29M; q18, q19-rocksdb and q3-rocksdb within the spread. The processing
// thread of q20-rocksdb waited for a core 0.71 s and ran 3.10 s before; 0.24 s and 3.30 s after (it
// does more of the collector's work itself). Nice 19 measured no better than 10 (5 rounds each).
//
// Linux only (a thread's nice value is its own there, set through its kernel thread id); elsewhere, and
// where the kernel refuses, nothing changes. A thread once lowered stays so: an unprivileged process
// cannot raise a priority back.
import { readdirSync, readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'

/** Kernel thread ids of the processing threads (never lowered), each with how many holders marked it. */
const processing = new Map<number, number>()
/** Processing threads marked whose id could not be read: while there is one, nothing is lowered. */
let unknown = 0

/** The calling thread's kernel id (Linux's /proc/thread-self), or undefined where there is none. */
export function currentThreadId(): number | undefined {
  try {
    const link = readlinkSync('/proc/thread-self')
    const tid = Number(link.slice(link.lastIndexOf('/') + 1))
    return Number.isInteger(tid) && tid > 0 ? tid : undefined
  } catch {
    return undefined
  }
}

/**
 * Marks thread `tid` as a processing thread until the returned function is called. Undefined (a
 * processing thread whose id could not be read) stops lowerHelperThreads until it is unmarked: it
 * could not tell that thread from a helper.
 */
export function markProcessing(tid: number | undefined): () => void {
  if (tid === undefined) unknown++
  else processing.set(tid, (processing.get(tid) ?? 0) + 1)
  let marked = true
  return () => {
    if (!marked) return
    marked = false
    if (tid === undefined) {
      unknown--
      return
    }
    const n = processing.get(tid)! - 1
    if (n === 0) processing.delete(tid)
    else processing.set(tid, n)
  }
}

/**
 * Raises the nice value of every thread of this process not marked as processing to `nice` (a thread
 * already at or past it is left). Returns how many threads it lowered: none while a processing thread
 * of unknown id is marked.
 */
export function lowerHelperThreads(nice: number): number {
  if (nice <= 0 || process.platform !== 'linux' || unknown > 0) return 0
  let tasks: string[]
  try {
    tasks = readdirSync('/proc/self/task')
  } catch {
    return 0
  }
  let lowered = 0
  for (const name of tasks) {
    const tid = Number(name)
    if (processing.has(tid)) continue
    try {
      if (getPriority(tid) >= nice) continue
      setPriority(tid, nice)
      lowered++
    } catch {
      // The thread ended meanwhile, or the kernel refused: it stays as it is.
    }
  }
  return lowered
}
