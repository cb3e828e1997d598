// `weir run` prints warnings (an ignored hint or Flink option) on stderr with the file, line and a
// caret, also with --quiet, and runs the job.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

describe('weir run warnings', () => {
  it('names an ignored hint and an ignored Flink option with file, line and caret, even with --quiet', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-warn-'))
    const file = join(dir, 'job.sql')
    writeFileSync(file, `SET 'execution.runtime-mode' = 'streaming';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '2');
CREATE TABLE o (a INT) WITH ('connector' = 'print');
INSERT INTO o SELECT /*+ BOGUS */ a FROM t;
`)
    const r = spawnSync(process.execPath, [join(process.cwd(), 'bin/weir.js'), 'run', file, '--quiet'], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
    expect(r.status).toBe(0)
    expect(r.stdout).toBe('+I[1]\n+I[2]\n')
    expect(r.stderr).toBe(
      `warning: option 'table.exec.mini-batch.allow-latency' is ignored: Weir's mini-batches are the rows a source read together ('execution.batch-size'); they never wait for more
 --> ${file}:2:1
  |
2 | SET 'table.exec.mini-batch.allow-latency' = '1 s';
  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
warning: unknown hint 'BOGUS' is ignored
 --> ${file}:5:26
  |
5 | INSERT INTO o SELECT /*+ BOGUS */ a FROM t;
  |                          ^^^^^
help: Weir acts on STATE_TTL after SELECT and OPTIONS after a table's name
`,
    )
  })
})
