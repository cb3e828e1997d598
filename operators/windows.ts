// Window assignment math for TUMBLE, HOP and CUMULATE: which windows [start, end) hold a timestamp.
// A window is identified by its end alone (for one window spec), so state and timers use the end as namespace.
import { WeirError } from '../common/errors.js'
import type { WindowSpec } from '../core/windows.js'

/** Windows with fixed boundaries (not SESSION). */
export type AlignedWindowSpec = Exclude<WindowSpec, { kind: 'SESSION' }>

/** a mod b with the sign of b (so negative timestamps land in the right window). */
export function floorMod(a: number, b: number): number {
  const r = a % b
  return r < 0 ? r + b : r
}

/** Start of the TUMBLE window holding ts: ts - ((ts - offset) mod size). */
export function tumbleStart(ts: number, size: number, offset: number): number {
  return ts - floorMod(ts - offset, size)
}

/** Rejects window sizes that cannot work; the planner should have caught them with a span. */
export function validateWindow(spec: WindowSpec): void {
  const positive = (what: string, v: number): void => {
    if (!(v > 0) || !Number.isFinite(v)) throw WeirError.plan(`${spec.kind} window ${what} must be a positive interval, got ${v} ms`)
  }
  switch (spec.kind) {
    case 'TUMBLE':
      positive('size', spec.size)
      break
    case 'HOP':
      positive('slide', spec.slide)
      positive('size', spec.size)
      break
    case 'CUMULATE':
      positive('step', spec.step)
      positive('max size', spec.maxSize)
      if (spec.maxSize % spec.step !== 0) {
        throw WeirError.plan(`CUMULATE window max size (${spec.maxSize} ms) must be an integral multiple of its step (${spec.step} ms)`, {
          help: 'choose a step that divides the max size',
        })
      }
      break
    case 'SESSION':
      positive('gap', spec.gap)
      break
  }
}

/** The most windows one timestamp can fall into. */
export function maxWindowsPerRow(spec: AlignedWindowSpec): number {
  switch (spec.kind) {
    case 'TUMBLE':
      return 1
    case 'HOP':
      return Math.ceil(spec.size / spec.slide)
    case 'CUMULATE':
      return spec.maxSize / spec.step
  }
}

/**
 * Writes the ends of every window holding `ts` into `ends` (ascending by start, then end) and
 * returns how many; `ends` must have room for maxWindowsPerRow(spec).
 */
export function assignWindowEnds(spec: AlignedWindowSpec, ts: number, ends: Float64Array): number {
  switch (spec.kind) {
    case 'TUMBLE':
      ends[0] = tumbleStart(ts, spec.size, spec.offset) + spec.size
      return 1
    case 'HOP': {
      // Starts are lastStart - j·slide for every j with start > ts - size.
      const lastStart = ts - floorMod(ts - spec.offset, spec.slide)
      const count = Math.ceil((lastStart - ts + spec.size) / spec.slide)
      for (let j = count - 1, w = 0; j >= 0; j--, w++) ends[w] = lastStart - j * spec.slide + spec.size
      return count
    }
    case 'CUMULATE': {
      const start = ts - floorMod(ts - spec.offset, spec.maxSize)
      const steps = spec.maxSize / spec.step
      let w = 0
      for (let k = Math.floor((ts - start) / spec.step) + 1; k <= steps; k++) ends[w++] = start + k * spec.step
      return w
    }
  }
}

/** The start of the window ending at `end`. */
export function windowStartOf(spec: AlignedWindowSpec, end: number): number {
  switch (spec.kind) {
    case 'TUMBLE':
      return end - spec.size
    case 'HOP':
      return end - spec.size
    case 'CUMULATE':
      return end - 1 - floorMod(end - 1 - spec.offset, spec.maxSize)
  }
}
