import { familyOf } from "./sports.ts"

/**
 * Fixed colours: one per metric (heart rate is the same red on every chart), one per sport
 * (a hue per family of sports, a shade per sport in it), one per series of the training chart
 * and one per zone. The hues are Okabe and Ito's colour-blind-safe set, each tuned in
 * styles.css for light and for dark backgrounds, read from the page's CSS custom properties so
 * that they follow the colour scheme.
 */

export const css = (name: string) => getComputedStyle(document.body).getPropertyValue(name).trim() || "#888888"

export type Metric = "altitude" | "speed" | "heartrate" | "power" | "cadence"

export const metricColor = (metric: Metric) => css(`--metric-${metric}`)

/** The training chart's series: load, fitness, fatigue and form, and the whole history's power curve. */
export type TrainingSeries = "load" | "fitness" | "fatigue" | "form" | "history"

export const trainingColor = (series: TrainingSeries) => css(`--training-${series}`)

/**
 * Time in zones from easy to hard, on one ramp of seven colours: Coggan's seven power zones take
 * them all; the five heart-rate zones its grey, blue, green, orange and red, as watches show them.
 * A reference to the custom property, so that a bar follows a change of colour scheme by itself.
 */
const HEART_RATE_RAMP = [1, 2, 3, 5, 6]
export const zoneFill = (kind: "power" | "heartRate", zone: number) =>
  `var(--zone-${kind === "power" ? zone : HEART_RATE_RAMP[zone - 1] ?? zone})`

type Rgb = readonly [number, number, number]

const rgbOf = (hex: string): Rgb => {
  const h = hex.replace("#", "")
  const full = h.length === 3 ? [...h].map((c) => c + c).join("") : h.padEnd(6, "0")
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) || 0) as unknown as Rgb
}

const hexOf = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`

/** `color` moved `share` of the way to `toward`. */
export const mix = (color: string, toward: string, share: number) => {
  const a = rgbOf(color)
  const b = rgbOf(toward)
  return hexOf([0, 1, 2].map((i) => a[i]! + (b[i]! - a[i]!) * share) as unknown as Rgb)
}

/**
 * Shades of a family's hue by rank: the hue itself, then alternately lighter and darker, further
 * each time (the same shade of a sport in both schemes; the hues themselves are tuned per scheme).
 */
const SHADES: ReadonlyArray<readonly [string, number]> = [["#ffffff", 0], ["#ffffff", 0.35], ["#000000", 0.3], ["#ffffff", 0.6], ["#000000", 0.5]]

const shadeOf = (sportType: string) => {
  const { family, rank } = familyOf(sportType)
  const [toward, share] = SHADES[rank % SHADES.length]!
  return { variable: `--sport-${family}`, toward, share }
}

/** A sport's colour as it is now, for a canvas. */
export const sportColor = (sportType: string) => {
  const { variable, toward, share } = shadeOf(sportType)
  const base = css(variable)
  return share === 0 ? base : mix(base, toward, share)
}

/**
 * The same colour for an element of the page, as `--sport` on it (styles read it): a CSS value
 * of the family's custom property, so that it follows the colour scheme when it changes.
 */
export const paintSport = <E extends HTMLElement>(element: E, sportType: string): E => {
  const { variable, toward, share } = shadeOf(sportType)
  // through the CSSOM: the page's policy refuses style attributes
  element.style.setProperty("--sport", share === 0 ? `var(${variable})` : `color-mix(in srgb, var(${variable}), ${toward} ${share * 100}%)`)
  return element
}
