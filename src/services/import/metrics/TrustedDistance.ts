import { MAX_RECORDING_GAP_S } from "./Motion.ts"
import type { SportProfile } from "./SportProfile.ts"

/**
 * The cumulative distance with the GPS jumps bridged: an interval whose distance implies a speed
 * no athlete of the sport reaches (`profile.fastest`), or a gain of speed over the last
 * REFERENCE_S seconds no athlete makes (`profile.acceleration`, with room for a fix's error), is
 * a jump of the fix, not ground covered. It is bridged at the speed the athlete was going (the
 * trusted speed of the seconds before it), its excess not counted; a jump out and back is two
 * such intervals. The best efforts and a swim's best pace are read from this distance, so that
 * one bad fix on a mountain sets no 400 m record; the activity's own distance stays the
 * device's. Recording gaps (a pause, a new segment) are taken as they are: nothing tells the
 * speed across them.
 */

/** Seconds over which the speed the athlete was going is read. */
const REFERENCE_S = 10
/**
 * Metres a fix may be off: an interval may gain this much over the speed the athlete was going
 * for noise alone, at most a fifth of what the sport's fastest covers in it (a swimmer's watch,
 * whose track is smoothed, is held closer than a runner's).
 */
const FIX_ERROR_M = 5
const FIX_ERROR_SHARE = 0.2

/** The median of `speeds` (not empty). */
const median = (speeds: Array<number>): number => {
  speeds.sort((a, b) => a - b)
  const m = speeds.length >> 1
  return speeds.length % 2 === 1 ? speeds[m]! : (speeds[m - 1]! + speeds[m]!) / 2
}

export const trustedDistance = (
  distance: Float64Array,
  timeS: Float64Array,
  segmentStart: Uint8Array,
  profile: Pick<SportProfile, "fastest" | "acceleration">
): { readonly distance: Float64Array; readonly bridgedMeters: number } => {
  const n = distance.length
  const out = new Float64Array(n)
  if (n === 0) return { distance: out, bridgedMeters: 0 }
  out[0] = distance[0]!
  let bridged = 0
  // the speed the athlete was going: the median of the speeds an athlete reaches over the last
  // REFERENCE_S seconds (a jump out and back is too short to move it), else the last one known
  let going = 0
  let from = 1
  const recent: Array<number> = []
  for (let i = 1; i < n; i++) {
    const gained = distance[i]! - distance[i - 1]!
    const dt = timeS[i]! - timeS[i - 1]!
    if (segmentStart[i] === 1 || dt > MAX_RECORDING_GAP_S) {
      out[i] = out[i - 1]! + gained
      from = i + 1
      going = 0
      continue
    }
    while (from < i && timeS[i - 1]! - timeS[from - 1]! > REFERENCE_S) from++
    recent.length = 0
    for (let k = from; k < i; k++) {
      const span = timeS[k]! - timeS[k - 1]!
      const v = span > 0 ? (distance[k]! - distance[k - 1]!) / span : Infinity
      if (v <= profile.fastest) recent.push(v)
    }
    if (recent.length > 0) going = median(recent)
    const speed = dt > 0 ? gained / dt : gained > 0 ? Infinity : 0
    const allowance = Math.min(FIX_ERROR_M, profile.fastest * dt * FIX_ERROR_SHARE)
    const reachable = speed <= profile.fastest && gained <= (going + profile.acceleration * dt) * dt + allowance
    const counted = reachable ? gained : Math.min(gained, going * dt)
    bridged += gained - counted
    out[i] = out[i - 1]! + counted
  }
  return { distance: out, bridgedMeters: bridged }
}
