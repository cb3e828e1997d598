// The hooks module-trace.mjs registers: one instance per thread, tagged with the thread's id.
let thread = '?'
export function initialize(data) {
  thread = String(data.thread)
}
export async function load(url, context, next) {
  process.stderr.write(`LOAD ${thread} ${url}\n`)
  return next(url, context)
}
