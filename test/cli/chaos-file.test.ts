// The chaos test (test/cli/chaos.ts) with checkpoints in a directory.
import { chaosSuite } from './chaos.js'

chaosSuite('file')
