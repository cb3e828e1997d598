// `weir` as bin/weir.js runs it, with a fault hook for the crash tests (test only: the shipped
// command installs none): `node dist/test/support/weir-with-faults.js [OPTIONS] run job.sql` where
//   --crash-at <point>:<n>  kills the process (SIGKILL, no cleanup) the n-th time it reaches the point:
//                           a checkpoint's 'upload', 'before-manifest', 'before-commit' (runtime/faults.ts),
//                           'final-commit' (the 'before-commit' of a bounded job's last checkpoint), or
//                           'kafka-transaction' (a Kafka transaction has sent its messages, not committed them)
//   --armed-after <m>       counts a checkpoint's points only once m Kafka transactions have committed
//                           (so that a crash lands while output flows, not during the start)
//   --tell-transactions     prints `weir-with-faults: kafka transaction <k> committed` on stderr after each
import { weir } from '../../cli/main.js'
import type { FaultInjector, FaultPoint, FaultPoints } from '../../index.js'
import { watchKafkaTransactions } from './kafka-transaction-hook.js'

const POINTS = ['upload', 'before-manifest', 'before-commit', 'final-commit', 'kafka-transaction'] as const
type Point = (typeof POINTS)[number]

const die = (): void => void process.kill(process.pid, 'SIGKILL')

/** A hook that kills this process the n-th time it reaches `point` (counted over the whole process, every job included) once armed. */
function crashAt(point: Point, n: number, armed: () => boolean): FaultInjector {
  let reached = 0
  return {
    at<P extends FaultPoint>(at: P, detail: FaultPoints[P]) {
      if (!armed()) return
      const here = at === point || (point === 'final-commit' && at === 'before-commit' && (detail as FaultPoints['before-commit']).final)
      if (here && ++reached === n) die()
    },
  }
}

/** Parses `<point>:<n>`; throws on anything else so a mistyped test does not run without its crash. */
function parseCrashAt(spec: string): { point: Point; n: number } {
  const i = spec.lastIndexOf(':')
  const point = spec.slice(0, i) as Point
  const n = Number(spec.slice(i + 1))
  if (i < 0 || !POINTS.includes(point) || !Number.isInteger(n) || n < 1) {
    throw new Error(`--crash-at takes <point>:<n> with a point of ${POINTS.join(', ')} and n ≥ 1, not '${spec}'`)
  }
  return { point, n }
}

const args = process.argv.slice(2)
let crash: { point: Point; n: number } | undefined
let armedAfter = 0
let tell = false
for (;;) {
  if (args[0] === '--crash-at') crash = parseCrashAt(args.splice(0, 2)[1] ?? '')
  else if (args[0] === '--armed-after') armedAfter = Number(args.splice(0, 2)[1])
  else if (args[0] === '--tell-transactions') tell = args.splice(0, 1).length > 0
  else break
}
let committed = 0
if (tell || armedAfter > 0 || crash?.point === 'kafka-transaction') {
  watchKafkaTransactions({
    open: n => {
      if (crash?.point === 'kafka-transaction' && n === crash.n) die()
    },
    committed: n => {
      committed = n
      if (tell) process.stderr.write(`weir-with-faults: kafka transaction ${n} committed\n`)
    },
  })
}
if (crash === undefined || crash.point === 'kafka-transaction') weir(args)
else weir(args, { faults: crashAt(crash.point, crash.n, () => committed >= armedAfter) })
