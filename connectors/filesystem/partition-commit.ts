// Partition commit of a PARTITIONED BY filesystem sink, with Flink's options: a partition whose rows
// are visible is "committed" — its policies run ('success-file': an empty `_SUCCESS` in its folder, so
// a batch reader downstream knows the partition is complete) — once its trigger says no more rows
// will come: 'process-time' when the wall clock passes the partition's first write plus
// 'sink.partition-commit.delay'; 'partition-time' when the watermark passes the time its values stand
// for ('partition.time-extractor.timestamp-pattern') plus the delay. At the end of a bounded input
// every partition is committed. Rows that come later reopen the partition, and it is committed again.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { WeirError } from '../../common/errors.js'
import { sinkFsError } from './part-file.js'
import type { PartitionCommitConfig } from './options.js'
import { parseFolder } from './partitions.js'

/** A partition written and not committed since: when it was first written (epoch ms), and its time (partition-time only). */
export interface Awaiting {
  readonly created: number
  readonly time: number | null
  /** The last checkpoint that sealed rows of it (null: none yet, or no checkpoints). */
  checkpoint: number | null
  /** Rows written since the last checkpoint was prepared. */
  dirty: boolean
}

/** The parts of a timestamp formatter, e.g. 'yyyy-MM-dd HH:mm:ss' or 'yyyyMMdd'. */
function formatterRegExp(formatter: string): { re: RegExp; fields: string[] } {
  const fields: string[] = []
  let re = ''
  for (const m of formatter.matchAll(/yyyy|MM|dd|HH|mm|ss|[^A-Za-z]/g)) {
    const t = m[0]
    if (t.length > 1) {
      fields.push(t)
      re += t === 'yyyy' ? '(\\d{4})' : '(\\d{2})'
    } else re += t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  }
  return { re: new RegExp(`^${re}$`), fields }
}

/**
 * Reads the time a partition stands for from its folder's values, as Flink's default extractor does:
 * the pattern with `$column` replaced by values (default: the first partition value), parsed with the
 * formatter; with the default formatter a bare date is its midnight. Times are UTC.
 */
export class PartitionTime {
  private readonly parsed: { re: RegExp; fields: string[] }
  private readonly isDefault: boolean

  constructor(private readonly config: PartitionCommitConfig, private readonly keys: readonly string[], private readonly defaultName: string,
    private readonly table: string)
  {
    this.parsed = formatterRegExp(config.timestampFormatter)
    this.isDefault = config.timestampFormatter === 'yyyy-MM-dd HH:mm:ss'
  }

  of(folder: string): number {
    const values = parseFolder(folder, this.keys, this.defaultName) ?? []
    const pattern = this.config.timestampPattern
    const text = pattern === null
      ? values[0] ?? ''
      : pattern.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => {
        const i = this.keys.indexOf(name)
        return i < 0 ? whole : values[i] ?? ''
      })
    const full = this.parsed.re.exec(text)
    const m = full ?? (this.isDefault ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(text) : null)
    const fields = full !== null ? this.parsed.fields : ['yyyy', 'MM', 'dd']
    if (m !== null) {
      const part = (f: string): number => {
        const i = fields.indexOf(f)
        return i < 0 ? (f === 'MM' || f === 'dd' ? 1 : 0) : Number(m[i + 1])
      }
      const ms = Date.UTC(part('yyyy'), part('MM') - 1, part('dd'), part('HH'), part('mm'), part('ss'))
      if (!Number.isNaN(ms)) return ms
    }
    throw WeirError.execution(
      `the filesystem sink of table '${this.table}' cannot read a time from partition '${folder}': '${text}' does not match '${this.config.timestampFormatter}'`,
      {
        help: `'sink.partition-commit.trigger' = 'partition-time' reads each partition's time with 'partition.time-extractor.timestamp-pattern'`
          + ` (e.g. '$dt $hour:00:00') and 'partition.time-extractor.timestamp-formatter'; set them to match the partition values`,
      },
    )
  }
}

/** Decides when partitions are committed and runs the policies. */
export class PartitionCommitter {
  private readonly time: PartitionTime | null

  constructor(private readonly root: string, private readonly config: PartitionCommitConfig, keys: readonly string[], defaultName: string,
    private readonly table: string)
  {
    this.time = config.trigger === 'partition-time' ? new PartitionTime(config, keys, defaultName, table) : null
  }

  /** What a newly written partition waits with. */
  awaiting(folder: string, now: number): Awaiting {
    return { created: now, time: this.time === null ? null : this.time.of(folder), checkpoint: null, dirty: true }
  }

  /** Restored from a checkpoint: its rows are visible (the checkpoint completed). */
  restored(folder: string, created: number): Awaiting {
    return { ...this.awaiting(folder, created), checkpoint: 0, dirty: false }
  }

  /** Whether the trigger lets a partition with visible rows commit now. */
  due(a: Awaiting, now: number, watermark: number): boolean {
    if (this.config.trigger === 'process-time') return now >= a.created + this.config.delayMs
    return a.time !== null && watermark > a.time + this.config.delayMs
  }

  /** Runs the policies for one partition. */
  async commit(folder: string): Promise<void> {
    if (!this.config.successFile) return
    const path = join(this.root, folder, this.config.successFileName)
    await writeFile(path, '').catch((e: unknown) => {
      throw sinkFsError(e, this.table, 'write', path)
    })
  }
}
