import type { BestEffort } from "../../../schema/ActivityDraft.ts"

/**
 * Fastest time over each distance: a two-pointer window over the cumulative distance and time
 * streams, O(n) per distance. For each end sample j the start pointer is the last sample i with
 * d[j] − d[i] ≥ L; the exact start is interpolated between i and i+1 so that the window covers
 * exactly L metres. Distances longer than the activity are skipped.
 */
export const computeBestEfforts = (
  distances: ReadonlyArray<number>,
  distance: Float64Array,
  timeS: Float64Array
): Array<BestEffort> => {
  const n = distance.length
  if (n < 2) return []
  const total = distance[n - 1]! - distance[0]!
  const out: Array<BestEffort> = []
  for (const L of distances) {
    if (L > total) continue
    let best = Infinity
    let bestStart = 0
    let i = 0
    for (let j = 1; j < n; j++) {
      const dj = distance[j]!
      if (dj - distance[0]! < L) continue
      while (i + 1 < j && dj - distance[i + 1]! >= L) i++
      const startD = dj - L
      const d0 = distance[i]!
      const d1 = distance[i + 1]!
      const f = d1 > d0 ? Math.min(1, Math.max(0, (startD - d0) / (d1 - d0))) : 0
      const startT = timeS[i]! + (timeS[i + 1]! - timeS[i]!) * f
      const time = timeS[j]! - startT
      if (time < best) {
        best = time
        bestStart = startT
      }
    }
    if (Number.isFinite(best) && best > 0) {
      out.push({ distanceInMeter: L, elapsedTimeInSeconds: Math.round(best), startOffsetInSeconds: Math.round(bestStart) })
    }
  }
  return out
}
