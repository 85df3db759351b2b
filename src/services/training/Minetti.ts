/**
 * Grade-adjusted running: Minetti et al. (2002), "Energy cost of walking and running at extreme
 * uphill and downhill slopes", J Appl Physiol 93: the energy cost of running on a gradient i (a
 * fraction, rise over distance) in J/kg/m is
 *   C(i) = 155.4i⁵ − 30.4i⁴ − 43.3i³ + 46.3i² + 19.5i + 3.6,
 * measured from −0.45 to +0.45 (3.6 J/kg/m on the flat). A distance run on gradient i costs as
 * much as C(i) / C(0) times that distance on the flat; the grade-adjusted pace is the pace of
 * that flat distance over the same moving time (GoldenCheetah's GOVSS uses the same curve).
 */

/** Minetti's measured range of gradients: beyond it the polynomial is not a cost. */
const MAX_GRADE = 0.45

/** The length (m) over which a gradient is read: shorter, the altitude's own noise would read as slopes. */
export const GRADE_SEGMENT_M = 100

/** Minetti's cost of running on gradient `i` (J/kg/m). */
export const costOfRunning = (i: number): number => {
  const g = Math.max(-MAX_GRADE, Math.min(MAX_GRADE, i))
  return 155.4 * g ** 5 - 30.4 * g ** 4 - 43.3 * g ** 3 + 46.3 * g ** 2 + 19.5 * g + 3.6
}

const FLAT_COST = costOfRunning(0)

/**
 * The flat distance (m) that costs as much as running the `distance` stream (cumulative m) over
 * the `altitude` stream: the course cut into stretches of at least GRADE_SEGMENT_M, each counted
 * with the cost of its gradient; a last stretch too short to read a gradient counts as flat.
 */
export const gradeAdjustedDistance = (distance: ReadonlyArray<number>, altitude: ReadonlyArray<number>): number | null => {
  const n = Math.min(distance.length, altitude.length)
  if (n < 2 || !(distance[n - 1]! - distance[0]! > 0)) return null
  let adjusted = 0
  let from = 0
  for (let i = 1; i < n; i++) {
    const run = distance[i]! - distance[from]!
    if (run < GRADE_SEGMENT_M && i < n - 1) continue
    if (run > 0) {
      const grade = run >= GRADE_SEGMENT_M / 5 ? (altitude[i]! - altitude[from]!) / run : 0
      adjusted += run * costOfRunning(grade) / FLAT_COST
    }
    from = i
  }
  return adjusted
}
