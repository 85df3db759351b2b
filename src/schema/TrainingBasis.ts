/**
 * What an activity's training analysis is derived from that does not depend on the athlete's
 * thresholds, computed once from every recorded sample (in the parse worker, before long
 * streams are thinned for storage) and stored: the figures that depend on an FTP or a heart
 * rate (intensity, training stress, zones) follow from it in microseconds, so that a change of
 * thresholds recomputes a whole history without reading a single stream. Plain data: it
 * crosses the worker-thread boundary.
 */
export interface PowerBasis {
  /** seconds of the power series (1 s grid over the recording, pauses of over a minute left out) */
  readonly seconds: number
  /** Coggan's normalized power, W; null under 30 s of power */
  readonly normalizedPower: number | null
  /** the work done, J: the sum of the series */
  readonly work: number
  /** the best mean power over each standard duration that fits, [seconds, W], shortest first */
  readonly curve: ReadonlyArray<readonly [number, number]>
  /** seconds spent at each whole watt, index = watts (0 to the highest) */
  readonly histogram: ReadonlyArray<number>
}

export interface HeartRateBasis {
  /** seconds of the heart-rate series */
  readonly seconds: number
  /** seconds spent at each beat per minute, index = bpm (0 to the highest) */
  readonly histogram: ReadonlyArray<number>
}

export interface TrainingBasis {
  /** the version of the computation that made it: an older one is computed again from the stored streams */
  readonly version: number
  readonly power: PowerBasis | null
  readonly heartRate: HeartRateBasis | null
  /** metres of flat running that cost as much energy as the distance covered (Minetti), null without distance and altitude */
  readonly gradeAdjustedDistance: number | null
}
