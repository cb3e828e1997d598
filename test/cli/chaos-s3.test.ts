// The chaos test (test/cli/chaos.ts) with checkpoints in a bucket of a local S3 server.
import { chaosSuite } from './chaos.js'

chaosSuite('s3')
