// Rows per second in and out of a running SELECT's job, from samples of its counters taken by the
// live view's timer (at most one computation a second, so the figures do not flicker).
import type { JobSample } from '../../index.js'

export interface JobRates {
  readonly inPerSecond: number
  readonly outPerSecond: number
  readonly watermark: number | undefined
}

export class RateMeter {
  private at: number
  private rowsIn = 0
  private rowsOut = 0
  private rates: JobRates = { inPerSecond: 0, outPerSecond: 0, watermark: undefined }

  constructor(now: number) {
    this.at = now
  }

  /** Takes a sample at `now`; the rates over the last second or more. */
  update(sample: JobSample | undefined, now: number): JobRates {
    if (sample === undefined) return this.rates
    const dt = now - this.at
    if (dt >= 1000) {
      this.rates = {
        inPerSecond: ((sample.rowsIn - this.rowsIn) * 1000) / dt,
        outPerSecond: ((sample.rowsOut - this.rowsOut) * 1000) / dt,
        watermark: sample.watermark,
      }
      this.at = now
      this.rowsIn = sample.rowsIn
      this.rowsOut = sample.rowsOut
    } else {
      this.rates = { ...this.rates, watermark: sample.watermark }
    }
    return this.rates
  }
}
