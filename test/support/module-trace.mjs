// Registered with `node --import` (worker-modules.test.ts): every thread, the job's and each worker,
// registers hooks that print each module it loads as `LOAD <threadId> <url>` on stderr.
import { register } from 'node:module'
import { threadId } from 'node:worker_threads'

register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { thread: threadId } })
