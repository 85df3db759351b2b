/**
 * An FTP estimated from a power curve. First the two-parameter critical-power model (Monod &
 * Scherrer; GoldenCheetah's PDModel.cpp fits it by the same linear regression): the work of
 * each best effort from 3 to 20 minutes, W = CP·t + W′, is fitted by least squares, and the
 * slope CP is the power that can be held for long, taken as the FTP. It needs bests at three of
 * those durations and a fit that makes sense (CP and W′ positive, CP below the best 3 minutes);
 * else 95 % of the best 20 minutes (Allen & Coggan's field test); else none.
 */

export type EstimatedFtpMethod = "criticalPower" | "twentyMinutes"

export interface EstimatedFtp {
  readonly watts: number
  readonly method: EstimatedFtpMethod
}

const FIT_FROM_S = 180
const FIT_TO_S = 1200

/** The least-squares line of work over time through the bests from 3 to 20 minutes: CP (W) and W′ (J), or null. */
export const criticalPowerFit = (curve: ReadonlyArray<readonly [number, number]>): { readonly cp: number; readonly wPrime: number } | null => {
  const points = curve.filter(([t]) => t >= FIT_FROM_S && t <= FIT_TO_S)
  if (points.length < 3) return null
  const n = points.length
  const meanT = points.reduce((s, [t]) => s + t, 0) / n
  const meanW = points.reduce((s, [t, p]) => s + t * p, 0) / n
  let num = 0
  let den = 0
  for (const [t, p] of points) {
    num += (t - meanT) * (t * p - meanW)
    den += (t - meanT) ** 2
  }
  const cp = num / den
  return { cp, wPrime: meanW - cp * meanT }
}

export const estimatedFtp = (curve: ReadonlyArray<readonly [number, number]>): EstimatedFtp | null => {
  const fit = criticalPowerFit(curve)
  const best = (t: number) => curve.find(([d]) => d === t)?.[1]
  const three = best(FIT_FROM_S)
  if (fit !== null && fit.cp > 0 && fit.wPrime > 0 && three !== undefined && fit.cp < three) {
    return { watts: Math.round(fit.cp), method: "criticalPower" }
  }
  const twenty = best(FIT_TO_S)
  return twenty === undefined ? null : { watts: Math.round(0.95 * twenty), method: "twentyMinutes" }
}
