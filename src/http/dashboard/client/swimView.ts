import { api } from "./api.ts"
import { table } from "./activityDetail.ts"
import { imperial } from "./config.ts"
import { h } from "./dom.ts"
import * as format from "./format.ts"
import type { Activity, Lap, Length } from "./types.ts"

/**
 * What a swimmer reads: the pool, the lengths, the strokes and the SWOLF (a length's seconds plus
 * its strokes: lower is better), laps in metres (yards) with their pace per 100, and each length.
 */

const YARD = 0.9144

const STROKES: Readonly<Record<string, string>> = {
  freestyle: "Freestyle", backstroke: "Backstroke", breaststroke: "Breaststroke", butterfly: "Butterfly",
  drill: "Drill", mixed: "Mixed", im: "Medley"
}
const strokeName = (stroke: string | null) => (stroke === null ? "–" : STROKES[stroke] ?? stroke)
const orDash = (n: number | null) => (n === null ? "–" : format.count(n))

/** A swim's distance as swimmers count it: metres, or yards in imperial units. */
export const swum = (meters: number) => (imperial ? `${format.count(Math.round(meters / YARD))} yd` : `${format.count(Math.round(meters))} m`)

/** A pool by the unit it was built in: 25 yd (22.86 m) is a yard pool. */
const pool = (meters: number) => {
  const yards = meters / YARD
  const inYards = Math.abs(yards - Math.round(yards)) < 0.02 && Math.abs(meters - Math.round(meters)) > 0.02
  return inYards ? `${Math.round(yards)} yd` : `${Math.round(meters * 10) / 10} m`
}

/** The swim's own figures, as [label, value] (null where not recorded); none for another sport. */
export const swimFigures = (a: Activity): ReadonlyArray<readonly [string, string | null]> =>
  format.isSwim(a.sportType)
    ? [
      ["Pool", a.poolLengthInMeter === null || a.poolLengthInMeter === undefined ? null : pool(a.poolLengthInMeter)],
      ["Lengths", a.numberOfLengths === null || a.numberOfLengths === undefined ? null : format.count(a.numberOfLengths)],
      ["Strokes", a.strokes === null || a.strokes === undefined ? null : format.count(a.strokes)],
      ["SWOLF", a.swolf === null || a.swolf === undefined ? null : String(a.swolf)]
    ]
    : []

/** A swim's laps: a rest (no distance) says so; lengths, strokes, SWOLF and stroke where recorded. */
export const swimLapsTable = (laps: ReadonlyArray<Lap>, sport: string): HTMLElement => {
  const pooled = laps.some((l) => l.numberOfLengths !== null)
  return table("laps", "Laps",
    ["#", "Distance", "Time", "Pace", ...(pooled ? ["Lengths", "SWOLF"] : []), "Strokes", "Stroke", "HR"],
    laps.map((l) => {
      const rest = l.distanceInMeter === 0
      return [
        String(l.lapIndex),
        rest ? "Rest" : swum(l.distanceInMeter),
        format.duration(rest ? l.elapsedTimeInSeconds : l.movingTimeInSeconds),
        rest ? "–" : format.speedOrPace(l.averageSpeedInKmPerHour, sport),
        ...(pooled ? [orDash(l.numberOfLengths === 0 ? null : l.numberOfLengths), orDash(l.swolf)] : []),
        orDash(l.strokes),
        strokeName(l.strokeType),
        l.averageHeartRate === null ? "–" : String(l.averageHeartRate)
      ]
    }),
    [false, true, true, true, ...(pooled ? [true, true] : []), true, false, true])
}

/** A pool swim's lengths, one row each; null when it has none. */
export const lengthsSection = async (a: Activity): Promise<HTMLElement | null> => {
  if (!format.isSwim(a.sportType) || (a.numberOfLengths ?? 0) === 0) return null
  const { lengths } = await api<{ lengths: ReadonlyArray<Length> }>(`activities/${encodeURIComponent(a.id)}/lengths`)
  if (lengths.length === 0) return null
  return h("section", { class: "tables" }, h("h2", null, "Lengths"), table("lengths", "Lengths", ["#", "Lap", "Time", "Pace", "Strokes", "SWOLF", "Stroke"],
    lengths.map((l) => [String(l.lengthIndex), String(l.lapIndex), format.duration(l.elapsedTimeInSeconds),
      format.speedOrPace(l.averageSpeedInKmPerHour, a.sportType), orDash(l.strokes), orDash(l.swolf), strokeName(l.strokeType)]),
    [false, true, true, true, true, true, false]))
}
