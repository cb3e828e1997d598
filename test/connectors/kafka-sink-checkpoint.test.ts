// The exactly-once Kafka sink's sealed messages in checkpoints, in a directory and on S3 (a local moto
// server): each checkpoint stores them as an object of its own beside its manifest, which keeps only
// a count of them; a job that fails after a checkpoint completed but before its transaction
// committed produces them from that object when it restores; retention removes the objects with
// their checkpoints; and a checkpoint in the form earlier versions wrote (the messages as JSON in
// the manifest) still restores.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Kafka } from 'kafkajs'
import { jobConfigOf } from '../../common/config/job-config.js'
import { openCheckpointStorage } from '../../checkpoint/storage/index.js'
import type { CheckpointStorage } from '../../checkpoint/storage/api.js'
import { decodeSealedMessages } from '../../connectors/kafka/sink/sealed-messages.js'
import { Session } from '../../engine/session.js'
import type { Manifest } from '../../runtime/checkpoint.js'
import type { FaultInjector, FaultPoints } from '../../runtime/faults.js'
import { startKafkaBroker, type KafkaBroker } from '../support/kafka-server.js'
import { createTopics, readTopic } from '../support/kafka-topics.js'
import { startS3Bucket, type S3Bucket } from '../support/s3-server.js'

const ROWS = 12_000
const BUCKET = 'weir-kafka-sealed'

let broker: KafkaBroker
let kafka: Kafka
let s3: S3Bucket
let root: string

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'weir-kafka-sealed-'))
  ;[broker, s3] = await Promise.all([startKafkaBroker(), startS3Bucket(BUCKET)])
  kafka = broker.client()
}, 450_000)

afterAll(async () => {
  await Promise.all([broker?.close(), s3?.stop()])
  rmSync(root, { recursive: true, force: true })
}, 150_000)

/** Where a test's checkpoints go: the 'state.checkpoints.dir' (and S3 options) of the job, and its job folder opened as the job would. */
interface Where {
  readonly options: Record<string, string>
  readonly jobFolder: () => CheckpointStorage
}

const STORAGES: { name: string; where: (test: string) => Where }[] = [
  {
    name: 'a directory',
    where: test => {
      const dir = join(root, test)
      return { options: { 'state.checkpoints.dir': `file://${dir}` }, jobFolder: () => openCheckpointStorage(join(dir, test), jobConfigOf({}).s3) }
    },
  },
  {
    name: 'S3',
    where: test => ({
      options: { 'state.checkpoints.dir': `s3://${BUCKET}/${test}`, ...s3.options },
      jobFolder: () => openCheckpointStorage(`s3://${BUCKET}/${test}/${test}`, jobConfigOf(s3.options).s3),
    }),
  },
]

/** Runs the job (ids 1…ROWS over 4 s, a few hundred per checkpoint, into `topic`) until it ends or `faults` fails it; the log, and the error it failed with. */
async function runJob(test: string, where: Where, topic: string, faults?: FaultInjector): Promise<{ log: string[]; error?: Error }> {
  const log: string[] = []
  const session = new Session({
    println: () => undefined,
    log: line => log.push(line),
    ...(faults ? { faults } : {}),
    options: { 'pipeline.name': test, 'execution.checkpointing.interval': '40 ms', 'execution.batch-size': '50', ...where.options },
  })
  await session.executeSql(`
    CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '${ROWS}', 'rows-per-second' = '3000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
    CREATE TABLE out (id BIGINT) WITH ('connector' = 'kafka', 'topic' = '${topic}', 'properties.bootstrap.servers' = '${broker.bootstrap}', 'format' = 'json');
    INSERT INTO out SELECT id FROM gen;`)
  try {
    await session.awaitJobs()
    return { log }
  } catch (e) {
    return { log, error: e as Error }
  }
}

/** A hook that fails the job when its second (or a later) checkpoint is complete, before its transaction commits; `at` says which. */
function failingBeforeCommit(): { faults: FaultInjector; at: number } {
  const failed = {
    at: 0,
    faults: {
      at(point, detail) {
        if (point !== 'before-commit') return
        const { checkpointId, final } = detail as FaultPoints['before-commit']
        if (final || checkpointId < 2) return
        failed.at = checkpointId
        throw new Error(`test failure before checkpoint ${checkpointId}'s commit`)
      },
    } satisfies FaultInjector,
  }
  return failed
}

/** The ids a read_committed consumer of `topic` gets, sorted. */
async function committedIds(topic: string): Promise<number[]> {
  const got = await readTopic(kafka, topic, 2)
  return got.map(m => (JSON.parse(m.value!) as { id: number }).id).sort((a, b) => a - b)
}

const ALL = Array.from({ length: ROWS }, (_, i) => i + 1)

async function manifestOf(folder: CheckpointStorage, id: number): Promise<Manifest> {
  return JSON.parse((await folder.get(`chk-${id}/_metadata`)).toString('utf8')) as Manifest
}

describe.each(STORAGES)('sealed Kafka output in checkpoints in $name', ({ where: whereOf }) => {
  let n = 0
  const name = (): string => `sealed-${whereOf === STORAGES[0]!.where ? 'dir' : 's3'}-${++n}`

  it('is an object of the checkpoint beside a small manifest; a restore after a failure before the commit produces it once', async () => {
    const test = name()
    const where = whereOf(test)
    await createTopics(kafka, [{ topic: test, partitions: 2 }])
    const failed = failingBeforeCommit()
    const first = await runJob(test, where, test, failed.faults)
    const failedAt = failed.at
    expect(failedAt, 'the job must have failed before its end').toBeGreaterThan(0)
    expect(first.error?.message).toContain('test failure before checkpoint')

    const folder = where.jobFolder()
    const manifest = await manifestOf(folder, failedAt)
    const [sinkId, commit] = Object.entries(manifest.sinks)[0]!
    const sealed = (commit as { sealed: { checkpoint: number; messages: number }[] }).sealed
    expect(sealed.length).toBeGreaterThan(0)
    const count = sealed.reduce((a, s) => a + s.messages, 0)
    expect(count).toBeGreaterThan(0)
    // The messages are in the object the manifest names, in the checkpoint's folder; not in the manifest.
    const object = manifest.sinkData![sinkId]!
    expect(object.path).toBe(`chk-${failedAt}/${sinkId}-sink.bin`)
    expect(Object.keys(commit as object).sort()).toEqual(['checkpoint', 'sealed'])
    expect((await folder.get(`chk-${failedAt}/_metadata`)).length).toBeLessThan(5000)
    const messages = decodeSealedMessages(await folder.get(object.path), object.path)
    expect(messages).toHaveLength(count)
    const sealedIds = messages.map(m => (JSON.parse(m[2]!) as { id: number }).id)
    // Not visible before the restore…
    const before = await committedIds(test)
    expect(before.filter(id => sealedIds.includes(id))).toEqual([])
    expect(before.length).toBeLessThan(ROWS)

    // …and once after it, with everything else.
    const second = await runJob(test, where, test)
    expect(second.error).toBeUndefined()
    expect(second.log.join('\n')).toContain(`resuming from checkpoint ${failedAt}`)
    expect(await committedIds(test)).toEqual(ALL)
  }, 300_000)

  it('goes with its checkpoint when retention removes it', async () => {
    const test = name()
    const where = whereOf(test)
    await createTopics(kafka, [{ topic: test, partitions: 2 }])
    const folder = where.jobFolder()
    // At each completed checkpoint, before its commit: the sink objects stored so far.
    const seen = new Set<string>()
    const { error } = await runJob(test, where, test, {
      at(point) {
        if (point !== 'before-commit') return
        return (async () => {
          for (const path of await folder.list('')) if (path.endsWith('-sink.bin')) seen.add(path)
        })()
      },
    })
    expect(error).toBeUndefined()
    expect(await committedIds(test)).toEqual(ALL)
    const checkpoints = new Set([...seen].map(path => path.split('/')[0]))
    expect(checkpoints.size, 'several checkpoints must have sealed messages').toBeGreaterThan(2)
    // One checkpoint is retained (the default): only its folder, and its sink object, remain.
    const left = (await folder.list('')).filter(path => path.endsWith('-sink.bin'))
    const kept = (await folder.list('')).filter(path => path.endsWith('/_metadata')).map(path => path.split('/')[0])
    expect(kept).toHaveLength(1)
    expect(left.every(path => path.startsWith(`${kept[0]}/`))).toBe(true)
    expect([...seen].filter(path => !path.startsWith(`${kept[0]}/`)).length).toBeGreaterThan(1)
  }, 300_000)

  it('restores a checkpoint in the form earlier versions wrote: the messages as JSON in the manifest', async () => {
    const test = name()
    const where = whereOf(test)
    await createTopics(kafka, [{ topic: test, partitions: 2 }])
    const failed = failingBeforeCommit()
    await runJob(test, where, test, failed.faults)
    const failedAt = failed.at
    expect(failedAt, 'the job must have failed before its end').toBeGreaterThan(0)
    // Rewrite the checkpoint as an earlier version wrote it: the commit { checkpoint, pending: [{ checkpoint, messages }] }
    // with the messages as [partition, key, value] in the manifest, and no object beside it.
    const folder = where.jobFolder()
    const manifest = await manifestOf(folder, failedAt)
    const [sinkId, commit] = Object.entries(manifest.sinks)[0]!
    const object = manifest.sinkData![sinkId]!
    const messages = decodeSealedMessages(await folder.get(object.path), object.path)
    let at = 0
    const pending = (commit as { sealed: { checkpoint: number; messages: number }[] }).sealed.map(s => ({
      checkpoint: s.checkpoint,
      messages: messages.slice(at, at += s.messages),
    }))
    const { sinkData: _, ...rest } = manifest
    const old = { ...rest, sinks: { [sinkId]: { checkpoint: failedAt, pending } } }
    await folder.delete([object.path])
    await folder.put(`chk-${failedAt}/_metadata`, Buffer.from(JSON.stringify(old, null, 1)))

    const second = await runJob(test, where, test)
    expect(second.error).toBeUndefined()
    expect(second.log.join('\n')).toContain(`resuming from checkpoint ${failedAt}`)
    expect(await committedIds(test)).toEqual(ALL)
  }, 300_000)
})
