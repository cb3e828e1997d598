// Preloaded with `node --import`: writes each module URL the process loads to stderr as
// `load: <url>`, so a test can check what a command loads.
import { register } from 'node:module'

register('data:text/javascript,' + encodeURIComponent(`
export async function load(url, context, next) {
  process.stderr.write('load: ' + url + '\\n')
  return next(url, context)
}`))
