// `weir` as bin/weir.js runs it, with a fault hook for the crash tests (test only: the shipped
// command installs none): `node dist/test/support/weir-with-faults.js --crash-at <point>:<n> run job.sql`
// kills the process (SIGKILL, no cleanup) the n-th time a checkpoint reaches that point
// (runtime/faults.ts: 'upload', 'before-manifest', 'before-commit').
import { weir } from '../../cli/main.js'
import type { FaultInjector, FaultPoint } from '../../index.js'

const POINTS: readonly FaultPoint[] = ['upload', 'before-manifest', 'before-commit']

/** A hook that kills this process the n-th time it reaches `point` (counted over the whole process, every job included). */
function crashAt(point: FaultPoint, n: number): FaultInjector {
  let reached = 0
  return {
    at(at) {
      if (at === point && ++reached === n) process.kill(process.pid, 'SIGKILL')
    },
  }
}

/** Parses `<point>:<n>`; throws on anything else so a mistyped test does not run without its crash. */
function parseCrashAt(spec: string): { point: FaultPoint; n: number } {
  const i = spec.lastIndexOf(':')
  const point = spec.slice(0, i) as FaultPoint
  const n = Number(spec.slice(i + 1))
  if (i < 0 || !POINTS.includes(point) || !Number.isInteger(n) || n < 1) {
    throw new Error(`--crash-at takes <point>:<n> with a point of ${POINTS.join(', ')} and n ≥ 1, not '${spec}'`)
  }
  return { point, n }
}

const args = process.argv.slice(2)
if (args[0] === '--crash-at') {
  const { point, n } = parseCrashAt(args[1] ?? '')
  weir(args.slice(2), { faults: crashAt(point, n) })
} else {
  weir(args)
}
