// The REPL in a real terminal: started under tmux (keys sent with send-keys, the screen read with
// capture-pane), a windowed SELECT over the nexmark generator that ends by itself, an endless
// SELECT stopped with Ctrl-C (which must stop the query, not the REPL), an INSERT job listed by SHOW
// JOBS and stopped by STOP JOB, and Ctrl-D to quit, answering the question about a job still running.
import { afterAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

const TMUX = '/usr/bin/tmux'
const bin = join(process.cwd(), 'bin/weir.js')
const socket = `weir-repl-test-${process.pid}`
const tmux = (...args: string[]): string => execFileSync(TMUX, ['-L', socket, ...args], { encoding: 'utf8' })
const screen = (): string => tmux('capture-pane', '-p', '-t', 'repl')

/** Types `text` literally (tmux reads a trailing ';' as its own separator unless escaped), then Enter. */
function typeLine(text: string): void {
  tmux('send-keys', '-t', 'repl', '-l', text.replace(/;$/, '\\;'))
  tmux('send-keys', '-t', 'repl', 'Enter')
}

async function until(ok: (s: string) => boolean): Promise<string> {
  for (const deadline = Date.now() + 40_000; Date.now() < deadline;) {
    const s = screen()
    if (ok(s)) return s
    await new Promise(r => setTimeout(r, 100))
  }
  throw new Error(`the terminal never showed what was expected:\n${screen()}`)
}

afterAll(() => {
  if (existsSync(TMUX)) {
    try {
      tmux('kill-server')
    } catch {
      // already gone with its only session
    }
  }
})

describe.skipIf(!existsSync(TMUX))('weir repl in a terminal (tmux)', () => {
  it('runs a windowed SELECT, stops an endless one with Ctrl-C, lists and stops an INSERT job, and quits with Ctrl-D', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-repl-tty-'))
    const history = join(dir, 'history')
    // CI=true as a CI runner's shell has it: the REPL must still draw its prompt and live view.
    const command = `cd '${dir}' && CI=true WEIR_HISTORY='${history}' '${process.execPath}' '${bin}'; echo "EXITED $?"; sleep 60`
    tmux('new-session', '-d', '-s', 'repl', '-x', '160', '-y', '40', command)
    await until(s => /^weir>/m.test(s))
    typeLine(`CREATE TABLE bid (auction BIGINT, price BIGINT, dateTime TIMESTAMP(3),`)
    await until(s => s.includes('   ->'))
    typeLine(`WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND) WITH ('connector' = 'nexmark', 'nexmark.events.num' = '2000');`)
    await until(s => s.includes("table 'bid' created"))
    typeLine(`SET 'state.backend' = 'heap';`)
    typeLine(
      `SELECT window_start, window_end, COUNT(*) AS bids FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;`,
    )
    let s = await until(s => s.includes("query 'repl-select-1' finished"))
    expect(s).toMatch(/\| +window_start \| +window_end \| +bids \|/)
    expect(s).toMatch(/\| 2015-07-15 00:00:00\.000 \| 2015-07-15 00:00:10\.000 \| +\d+ \|/)
    expect(s).toMatch(/\d rows? in set/)

    typeLine(
      `CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100000000');`,
    )
    typeLine(`SELECT id % 4 AS k, COUNT(*) AS c FROM g GROUP BY id % 4;`)
    s = await until(s => s.includes("running 'repl-select-2'") && s.includes('rows 1–4 of 4'))
    tmux('send-keys', '-t', 'repl', 'C-c')
    s = await until(s => s.includes("query 'repl-select-2' stopped"))
    expect(s).toContain('4 rows in set')
    expect(s).not.toContain('EXITED')
    await until(s => /^weir>\s*$/m.test(s.trimEnd().split('\n').at(-1)!))

    // An INSERT job runs in the background: SHOW JOBS lists it, STOP JOB stops it with a savepoint.
    typeLine(`CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');`)
    typeLine(`INSERT INTO out SELECT id FROM g;`)
    // Unnamed, a job is named after the session (repl-<tag>-<n>): another session's does not resume it.
    const started = /job '(repl-[0-9a-z]{6})-1' started in the background, id '([0-9a-f]{8})'/
    s = await until(s => started.test(s))
    const [, session, id] = started.exec(s)!
    const first = `${session}-1`
    typeLine('SHOW JOBS;')
    s = await until(s => s.includes('| last checkpoint |') && new RegExp(`\\| ${id} \\| +${first} \\| +RUNNING \\|`).test(s))
    typeLine(`STOP JOB '${id}' WITH SAVEPOINT;`)
    s = await until(s => s.includes(`job '${first}' (${id}) stopped with a savepoint: file://${dir}/.weir/checkpoints/${first}/savepoint-`))

    // Quitting with a job running asks what to do with it; 's' stops it with a savepoint.
    typeLine(`INSERT INTO out SELECT id FROM g;`)
    const second = `${session}-2`
    await until(s => s.includes(`job '${second}' started in the background`))
    await until(s => /^weir>\s*$/m.test(s.trimEnd().split('\n').at(-1)!))
    tmux('send-keys', '-t', 'repl', 'C-d')
    await until(s => s.includes(`1 job is running: '${second}'`) && s.includes('❯ (s) stop them with savepoints'))
    tmux('send-keys', '-t', 'repl', 's')
    s = await until(s => s.includes('EXITED'))
    expect(s).toContain(`job '${second}': savepoint file://${dir}/.weir/checkpoints/${second}/savepoint-`)
    // The savepoint STOP JOB took was said then, not again.
    expect(s).not.toContain(`job '${first}': savepoint file`)
    expect(s).toContain('EXITED 0')
    // What was typed is in the history file, a statement of two lines as one entry.
    const entries = readFileSync(history, 'utf8').trim().split('\n').map(l => JSON.parse(l) as string)
    expect(entries).toHaveLength(10)
    expect(entries[0]).toMatch(/^CREATE TABLE bid .*,\nWATERMARK/)
  })
})
