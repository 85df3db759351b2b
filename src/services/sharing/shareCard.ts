import { escapeHtml } from "../platform/escapeHtml.ts"
import type { UnitSystem } from "../platform/AppConfig.ts"
import { routePath } from "./routePath.ts"
import type { SharedView } from "./SharedActivity.ts"
import { dateText, figureTexts, sportText } from "./sharedText.ts"

/**
 * The 1200×630 picture of a shared activity as SVG (the size link previews use): the visible
 * route on the map's colour at the right, the name, date, sport and figures at the left, in the
 * dashboard's light colours (styles.css: --bg, --panel, --text, --muted, --accent, --map-bg).
 */

export const CARD_WIDTH = 1200
export const CARD_HEIGHT = 630

export const CARD_COLORS = {
  bg: "#f6f7f9",
  panel: "#ffffff",
  text: "#1c1f24",
  muted: "#5b6470",
  line: "#dde1e6",
  accent: "#c2410c",
  mapBg: "#e8ecef"
} as const

/** The route's box on the card. */
export const CARD_ROUTE_BOX = { x: 700, y: 60, width: 440, height: 510 } as const

/** A name longer than this is cut with an ellipsis: the card has room for two lines of it. */
const NAME_LINE = 21

const nameLines = (name: string): Array<string> => {
  const words = name.trim().split(/\s+/)
  const lines: Array<string> = [""]
  for (const word of words) {
    const current = lines[lines.length - 1]!
    if (current === "" || current.length + 1 + word.length <= NAME_LINE) lines[lines.length - 1] = current === "" ? word : `${current} ${word}`
    else lines.push(word)
  }
  const cut = lines.slice(0, 2).map((l) => (l.length > NAME_LINE ? `${l.slice(0, NAME_LINE - 1)}…` : l))
  if (lines.length > 2) cut[1] = `${cut[1]!.slice(0, NAME_LINE - 1)}…`
  return cut
}

export const shareCardSvg = (view: SharedView, units: UnitSystem): string => {
  const c = CARD_COLORS
  const box = CARD_ROUTE_BOX
  const path = view.shows.map ? routePath(view.track, { x: box.x + 30, y: box.y + 30, width: box.width - 60, height: box.height - 60 }) : ""
  const figures = figureTexts(view.figures, units).slice(0, 4)
  const lines = nameLines(view.name === "" ? "Activity" : view.name)
  const nameY = 150
  const title = lines.map((line, i) => `<text x="60" y="${nameY + i * 56}" font-size="46" font-weight="bold" fill="${c.text}">${escapeHtml(line)}</text>`).join("")
  const subtitleY = nameY + (lines.length - 1) * 56 + 50
  const figureCells = figures.map((f, i) => {
    const x = 60 + (i % 2) * 300
    const y = 390 + Math.floor(i / 2) * 110
    return `<text x="${x}" y="${y}" font-size="24" fill="${c.muted}">${escapeHtml(f.label)}</text>` +
      `<text x="${x}" y="${y + 48}" font-size="42" font-weight="bold" fill="${c.text}">${escapeHtml(f.value)}</text>`
  }).join("")
  const route = path === ""
    ? `<text x="${box.x + box.width / 2}" y="${box.y + box.height / 2}" font-size="26" fill="${c.muted}" text-anchor="middle">No map shared</text>`
    : `<path d="${path}" fill="none" stroke="${c.accent}" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/>`
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}" font-family="DejaVu Sans, Liberation Sans, sans-serif">` +
    `<rect width="${CARD_WIDTH}" height="${CARD_HEIGHT}" fill="${c.bg}"/>` +
    `<rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" rx="10" fill="${c.mapBg}"/>` +
    route +
    `<rect x="60" y="60" width="80" height="8" rx="4" fill="${c.accent}"/>` +
    title +
    `<text x="60" y="${subtitleY}" font-size="28" fill="${c.muted}">${escapeHtml(`${dateText(view.date)} · ${sportText(view.sportType)}`)}</text>` +
    `<line x1="60" y1="330" x2="640" y2="330" stroke="${c.line}" stroke-width="2"/>` +
    figureCells +
    `<text x="60" y="600" font-size="22" fill="${c.muted}">Waymark</text>` +
    `</svg>`
}
