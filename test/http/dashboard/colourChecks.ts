import { expect } from "@effect/vitest"
import type { Page } from "playwright-core"

/**
 * Whether the dashboard's fixed colours read: each on the panel's background (3:1, as WCAG asks
 * of graphics) and apart from the others of its group in CIE L*a*b*, for normal sight and after
 * Machado et al.'s simulation of deuteranopia, protanopia and tritanopia.
 */

type Rgb = readonly [number, number, number]

const linear = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4)

const rgbOf = (css: string): Rgb => {
  const hex = /^#([0-9a-f]{6})$/i.exec(css.trim())
  if (hex !== null) return [0, 2, 4].map((i) => parseInt(hex[1]!.slice(i, i + 2), 16)) as unknown as Rgb
  return css.match(/\d+/g)!.slice(0, 3).map(Number) as unknown as Rgb
}

const SIGHT = {
  normal: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
  protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  tritanopia: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]]
} as const
type Sight = keyof typeof SIGHT

const labOf = (rgb: Rgb, sight: Sight) => {
  const l = rgb.map(linear)
  const [r, g, b] = SIGHT[sight].map((row) => Math.min(1, Math.max(0, row[0]! * l[0]! + row[1]! * l[1]! + row[2]! * l[2]!)))
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116)
  const x = f((0.4124 * r! + 0.3576 * g! + 0.1805 * b!) / 0.95047)
  const y = f(0.2126 * r! + 0.7152 * g! + 0.0722 * b!)
  const z = f((0.0193 * r! + 0.1192 * g! + 0.9505 * b!) / 1.08883)
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)]
}

const luminance = (rgb: Rgb) => {
  const [r, g, b] = rgb.map(linear)
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

const contrast = (a: Rgb, b: Rgb) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi! + 0.05) / (lo! + 0.05)
}

/** The two colours of `colors` closest to each other for `sight`, and how far apart. */
const closest = (colors: Record<string, string>, sight: Sight) => {
  let best = { distance: Infinity, pair: "" }
  const names = Object.keys(colors)
  for (const [i, a] of names.entries()) {
    for (const b of names.slice(i + 1)) {
      const [p, q] = [labOf(rgbOf(colors[a]!), sight), labOf(rgbOf(colors[b]!), sight)]
      const distance = Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!, p[2]! - q[2]!)
      if (distance < best.distance) best = { distance, pair: `${a}/${b}` }
    }
  }
  return best
}

export interface Palette {
  /** per prefix, the custom properties `--<prefix>-…` the style sheets declare, with their values in the scheme shown */
  readonly groups: Record<string, Record<string, string>>
  readonly panel: string
}

/** The colours of the page as it is shown, by the prefixes of their custom properties ("metric": --metric-power…). */
export const readPalette = (page: Page, prefixes: ReadonlyArray<string>): Promise<Palette> =>
  page.evaluate((prefixes) => {
    const w = globalThis as any
    const style = w.getComputedStyle(w.document.body)
    const rules = [...w.document.styleSheets].flatMap((sheet: any) => [...sheet.cssRules]).map((rule: any) => rule.cssText as string)
    const vars = (prefix: string): Record<string, string> => Object.fromEntries(
      rules.flatMap((text) => text.match(new RegExp(`--${prefix}-[a-z0-9]+`, "g")) ?? []).map((name) => [name, style.getPropertyValue(name).trim()])
    )
    return { groups: Object.fromEntries(prefixes.map((p) => [p, vars(p)])), panel: style.getPropertyValue("--panel").trim() }
  }, prefixes)

/**
 * Every colour of `groups` reads on `panel`, and within each group no two are nearer than
 * `least` for any sight (a group: the colours a chart or a table shows together).
 */
export const expectReadable = (
  scheme: string,
  panel: string,
  groups: ReadonlyArray<readonly [name: string, colors: Record<string, string>, least: number]>
) => {
  for (const [, colors] of groups) {
    for (const [name, color] of Object.entries(colors)) {
      expect(contrast(rgbOf(color), rgbOf(panel)), `${name} on the ${scheme} background`).toBeGreaterThanOrEqual(3)
    }
  }
  for (const sight of Object.keys(SIGHT) as Array<Sight>) {
    for (const [group, colors, least] of groups) {
      const near = closest(colors, sight)
      expect(near.distance, `${group} in ${scheme} for ${sight}: ${near.pair}`).toBeGreaterThanOrEqual(least)
    }
  }
}

/** The colour of the marker of `series` in the uPlot legend under `legend` (a selector), or null. */
export const markerColor = (page: Page, legend: string, series: string) =>
  page.evaluate(({ legend, series }) => {
    const w = globalThis as any
    const row = [...w.document.querySelectorAll(`${legend} .u-series`)].find((r: any) => r.querySelector(".u-label")?.textContent === series)
    return row === undefined ? null : w.getComputedStyle(row.querySelector(".u-marker")).borderTopColor as string
  }, { legend, series })

/** The colour a CSS colour value computes to on the page (`var(--zone-1)`: the custom property's, in the scheme shown). */
export const cssColor = (page: Page, value: string) =>
  page.evaluate((value) => {
    const w = globalThis as any
    const probe = w.document.createElement("span")
    probe.style.color = value
    w.document.body.append(probe)
    const color = w.getComputedStyle(probe).color as string
    probe.remove()
    return color
  }, value)
