// Job options read into a typed JobConfig: every default in the option table, a value SET accepts
// always reads at planning, and a value that never went through SET is refused as SET refuses it.
import { describe, expect, it } from 'vitest'
import { WeirError } from '../../common/errors.js'
import { ALL_OPTIONS, DEFAULT_JOB_CONFIG, jobConfigOf, runDefaults, setOption, type JobConfig } from '../../common/config/index.js'
import { readOption } from '../../common/config/set.js'

const MB = 2 ** 20

/** What SET stores for these statements, in order. */
function settingsOf(sets: readonly (readonly [string, string])[]): Record<string, string> {
  const settings: Record<string, string> = {}
  for (const [key, value] of sets) {
    const s = setOption(key, value)
    if (s.key !== undefined) settings[s.key] = s.value!
  }
  return settings
}

describe('JobConfig', () => {
  it('is every option at its default when nothing is set: plain, frozen data that survives JSON', () => {
    const expected: JobConfig = {
      batchSize: 1024,
      parallelism: 1,
      maxParallelism: 128,
      workerThreads: false,
      helperThreadsNice: 10,
      stateTtlMs: 0,
      miniBatch: true,
      aggPhaseStrategy: 'auto',
      reuseSubPlan: true,
      reuseSource: true,
      onJobFailure: 'stop-with-savepoint',
      sinkNotNull: 'error',
      processFunctionOnError: 'fail',
      udfOnError: 'fail',
      state: { backend: 'heap', dir: '.weir/state', cacheBytes: 64 * MB, writeBufferBytes: 64 * MB },
      checkpointing: { intervalMs: 0, retained: 1 },
      s3: { region: 'us-east-1' },
    }
    expect(jobConfigOf({})).toEqual(expected)
    expect(DEFAULT_JOB_CONFIG).toEqual(expected)
    expect(JSON.parse(JSON.stringify(DEFAULT_JOB_CONFIG))).toEqual(DEFAULT_JOB_CONFIG)
    for (const part of [DEFAULT_JOB_CONFIG, DEFAULT_JOB_CONFIG.state, DEFAULT_JOB_CONFIG.checkpointing, DEFAULT_JOB_CONFIG.s3]) {
      expect(Object.isFrozen(part)).toBe(true)
    }
  })

  it('reads what SET stored, Flink spellings included, as typed values', () => {
    const config = jobConfigOf(settingsOf([
      ['table.exec.state.ttl', '1 h'],
      ['table.exec.mini-batch.enabled', 'FALSE'],
      ['pipeline.name', 'clicks'],
      ['weir.on-job-failure', 'Continue'],
      ['table.exec.mini-batch.size', '100'],
      ['table.exec.resource.default-parallelism', '4'],
      ['pipeline.max-parallelism', '16'],
      ['execution.worker-threads', 'true'],
      ['state.backend.type', 'rocksdb'],
      ['state.dir', '/tmp/state'],
      ['state.cache.size', '512 kb'],
      ['state.backend.rocksdb.writebuffer.size', '1 mb'],
      ['execution.checkpointing.interval', '10 s'],
      ['execution.checkpointing.dir', 's3://b/chk'],
      ['state.savepoints.dir', 'file:///sp'],
      ['state.checkpoints.num-retained', '3'],
      ['s3.endpoint', ' http://127.0.0.1:9000 '],
      ['s3.access-key', 'k'],
      ['s3.secret-key', 's'],
      ['s3.path.style.access', 'false'],
      ['table.exec.sink.not-null-enforcer', 'DROP'],
      ['weir.process-function.on-error', 'SKIP'],
      ['weir.udf.on-error', 'SKIP'],
      ['table.optimizer.agg-phase-strategy', 'TWO_PHASE'],
      ['table.optimizer.reuse-sub-plan-enabled', 'FALSE'],
      ['table.optimizer.reuse-source-enabled', 'false'],
      ['execution.helper-threads.nice', ' 19 '],
    ]))
    expect(config).toEqual({
      pipelineName: 'clicks',
      batchSize: 100,
      parallelism: 4,
      maxParallelism: 16,
      workerThreads: true,
      helperThreadsNice: 19,
      stateTtlMs: 3_600_000,
      miniBatch: false,
      aggPhaseStrategy: 'two_phase',
      reuseSubPlan: false,
      reuseSource: false,
      onJobFailure: 'continue',
      sinkNotNull: 'drop',
      processFunctionOnError: 'skip',
      udfOnError: 'skip',
      state: { backend: 'rocksdb', dir: '/tmp/state', cacheBytes: 512 * 1024, writeBufferBytes: MB },
      checkpointing: { intervalMs: 10_000, dir: 's3://b/chk', savepointDir: 'file:///sp', retained: 3 },
      s3: { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', accessKey: 'k', secretKey: 's', pathStyleAccess: false },
    })
  })

  it('leaves an option written empty at its default, as Weir always has for locations and S3 keys', () => {
    const config = jobConfigOf(settingsOf([['state.checkpoints.dir', ''], ['s3.region', ' '], ['s3.endpoint', '']]))
    expect(config.checkpointing).toEqual({ intervalMs: 0, retained: 1 })
    expect(config.s3).toEqual({ region: 'us-east-1' })
  })

  it('reads every value SET accepts (planning cannot fail on what SET took)', () => {
    const samples = ['0', '1', '7', '-1', '1.5', '10 s', '64 mb', '4 kb', 'true', 'FALSE', 'heap', 'ROCKSDB', 'stop', 'drop', 'UTC', 'streaming',
      'at_least_once', 's3://b/p', '', ' ', 'x']
    let accepted = 0
    for (const option of ALL_OPTIONS) {
      for (const value of samples) {
        let stored: string | undefined
        try {
          stored = setOption(option.key, value).value
        } catch (e) {
          expect(e).toBeInstanceOf(WeirError)
          continue
        }
        accepted++
        expect(() => jobConfigOf({ [option.key]: stored! }), `${option.key} = '${value}'`).not.toThrow()
      }
    }
    expect(accepted).toBeGreaterThan(ALL_OPTIONS.length)
  })

  it('refuses a value that never went through SET (an embedding program’s) as SET refuses it', () => {
    const read = (settings: Record<string, string>): WeirError => {
      try {
        jobConfigOf(settings)
      } catch (e) {
        return e as WeirError
      }
      throw new Error('expected an error')
    }
    expect(read({ 'execution.batch-size': 'many' }).message).toBe("invalid value 'many' for option 'execution.batch-size': expected a positive integer")
    expect(read({ 'state.backend': 'disk' }).message).toBe("invalid value 'disk' for option 'state.backend': expected one of 'heap', 'rocksdb'")
    expect(read({ 'state.backend.rocksdb.writebuffer.size': '4 kb' }).message).toBe(
      "invalid value '4 kb' for option 'state.backend.rocksdb.writebuffer.size': a memtable takes at least 64 kb",
    )
  })
})

describe('the option table', () => {
  it("writes each default (and weir run's) as text that reads back as that default", () => {
    for (const option of ALL_OPTIONS) {
      for (const value of [option.default, option.runDefault]) {
        if (value == null) continue
        expect(readOption(option, option.type.format(value)), option.key).toEqual({ value })
      }
    }
  })

  it('gives weir run RocksDB state and checkpoints under .weir/checkpoints', () => {
    expect(runDefaults()).toEqual({ 'state.backend': 'rocksdb', 'state.checkpoints.dir': '.weir/checkpoints' })
    expect(jobConfigOf(runDefaults()).state.backend).toBe('rocksdb')
  })
})
