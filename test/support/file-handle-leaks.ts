// Fails a test file that leaves a FileHandle for the garbage collector to close ("Closing file
// descriptor N on garbage collection", DEP0137): every file Weir or a test opens must be closed.
// Runs as a setup file of every test file; the workers run with --expose-gc so the check can collect.
import { afterAll, expect } from 'vitest'

const leaks: string[] = []
process.on('warning', w => {
  if (/^Closing file descriptor \d+ on garbage collection/.test(w.message)) leaks.push(w.message)
})

afterAll(async () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc !== undefined) {
    gc()
    // The warning is emitted after the collection, from the event loop.
    for (let i = 0; i < 3; i++) await new Promise(resolve => setImmediate(resolve))
  }
  expect(leaks, 'file handles left open for the garbage collector to close').toEqual([])
})
