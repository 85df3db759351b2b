import type { UnitSystem } from "../platform/AppConfig.ts"
import { durationText } from "../year/durationText.ts"
import { sportTypeLabel } from "../year/sportTypeLabel.ts"
import type { SharedFigures } from "./SharedActivity.ts"

/** A shared activity's figures in words, one way for the page and the picture. */

const MILE = 1609.344
const FOOT = 0.3048

export interface FigureText {
  readonly label: string
  readonly value: string
}

const distanceText = (meters: number, units: UnitSystem) =>
  units === "imperial" ? `${(meters / MILE).toFixed(2)} mi` : `${(meters / 1000).toFixed(2)} km`

const paceText = (kmPerHour: number, units: UnitSystem) => {
  const perUnit = units === "imperial" ? MILE / 1000 : 1
  const seconds = (3600 / kmPerHour) * perUnit
  return `${durationText(seconds)} /${units === "imperial" ? "mi" : "km"}`
}

const speedText = (kmPerHour: number, units: UnitSystem) =>
  units === "imperial" ? `${(kmPerHour / (MILE / 1000)).toFixed(1)} mph` : `${kmPerHour.toFixed(1)} km/h`

/** Distance, time, elevation gain, pace or speed; then heart rate and power when shown. */
export const figureTexts = (figures: SharedFigures, units: UnitSystem): Array<FigureText> => {
  const texts: Array<FigureText> = [{ label: "Distance", value: distanceText(figures.distanceInMeter, units) }]
  if (figures.timeInSeconds !== null) texts.push({ label: "Time", value: durationText(figures.timeInSeconds) })
  if (figures.elevationGainInMeter !== null) {
    texts.push({
      label: "Elevation",
      value: units === "imperial" ? `${Math.round(figures.elevationGainInMeter / FOOT)} ft` : `${Math.round(figures.elevationGainInMeter)} m`
    })
  }
  if (figures.averageSpeedInKmPerHour !== null) {
    texts.push(
      figures.showsPace
        ? { label: "Pace", value: paceText(figures.averageSpeedInKmPerHour, units) }
        : { label: "Speed", value: speedText(figures.averageSpeedInKmPerHour, units) }
    )
  }
  if (figures.averageHeartRate !== null) texts.push({ label: "Heart rate", value: `${Math.round(figures.averageHeartRate)} bpm` })
  if (figures.averagePower !== null) texts.push({ label: "Power", value: `${Math.round(figures.averagePower)} W` })
  return texts
}

/** `2026-05-01` as "1 May 2026" (the date alone: the time of day is not shared). */
export const dateText = (date: string): string => {
  const [y, m, d] = date.split("-").map(Number)
  if (y === undefined || m === undefined || d === undefined || Number.isNaN(y + m + d)) return date
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })
}

/** "MountainBikeRide" as "Mountain bike ride". */
export const sportText = (sportType: string): string => {
  const words = sportTypeLabel(sportType)
  return words.charAt(0).toUpperCase() + words.slice(1)
}
