import { createHash } from "node:crypto"
import type { UnitSystem } from "../platform/AppConfig.ts"
import { escapeHtml } from "../platform/escapeHtml.ts"
import { routePath } from "./routePath.ts"
import type { SharedView } from "./SharedActivity.ts"
import { dateText, figureTexts, sportText } from "./sharedText.ts"
import type { VisibleSample } from "./visibleTrack.ts"

/**
 * The page a share link opens, whole on the server: no script, no request to another host, one
 * style sheet inline (allowed by its hash in the Content-Security-Policy), the route and the
 * charts as inline SVG drawn from the visible track only. It follows the reader's colour scheme
 * with the dashboard's colours (styles.css), and fits a phone.
 */

const STYLE = `
:root{--bg:#f6f7f9;--panel:#fff;--text:#1c1f24;--muted:#5b6470;--line:#dde1e6;--accent:#c2410c;--map-bg:#e8ecef;
--metric-altitude:#008c66;--metric-heartrate:#d55e00;--metric-power:#a8457e;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--panel:#1a1f25;--text:#e8eaed;--muted:#a3acb8;--line:#2e353e;--accent:#f97316;
--map-bg:#22282f;--metric-altitude:#1fb889;--metric-heartrate:#f07b3f;--metric-power:#e08dc0}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:960px;margin:0 auto;padding:16px}
h1{font-size:1.6rem;line-height:1.2;margin:8px 0 4px;overflow-wrap:anywhere}
.sub{color:var(--muted);margin:0 0 16px}
.figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:8px;margin:0 0 16px;padding:0}
.figures div{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:10px 12px}
.figures dt{color:var(--muted);font-size:.85rem}
.figures dd{margin:0;font-size:1.3rem;font-weight:700}
section{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:12px;margin:0 0 16px}
h2{font-size:1rem;margin:0 0 8px}
svg{display:block;width:100%;height:auto}
.map{background:var(--map-bg);border-radius:8px}
.route{fill:none;stroke:var(--accent);stroke-width:4;stroke-linecap:round;stroke-linejoin:round}
.chart path{fill:none;stroke-width:2}
.chart .altitude{stroke:var(--metric-altitude)}.chart .heartrate{stroke:var(--metric-heartrate)}.chart .power{stroke:var(--metric-power)}
.chart text{fill:var(--muted);font-size:26px}
.chart line{stroke:var(--line)}
.note{color:var(--muted);font-size:.9rem}
.description{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.photos{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:8px}
.photos img{width:100%;height:auto;border-radius:8px}
footer{color:var(--muted);font-size:.85rem;text-align:center;padding:8px}
`

/** The Content-Security-Policy of the shared pages: nothing but this host's images and the page's own style. */
export const SHARED_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const MAP_WIDTH = 900
const MAP_HEIGHT = 560
const CHART_WIDTH = 900
const CHART_HEIGHT = 160

type Metric = "altitude" | "heartrate" | "watts"

/** One chart of a metric along the visible distance, a line per run of the visible track. */
const chart = (segments: ReadonlyArray<ReadonlyArray<VisibleSample>>, metric: Metric, title: string, unit: string, css: string): string => {
  const points = segments.flatMap((s) => s.filter((p) => p[metric] !== null))
  if (points.length < 2) return ""
  const values = points.map((p) => p[metric]!)
  const low = Math.min(...values)
  const high = Math.max(...values)
  const span = Math.max(high - low, 1)
  const length = Math.max(points[points.length - 1]!.distance, 1)
  const x = (d: number) => (70 + (d / length) * (CHART_WIDTH - 80)).toFixed(1)
  const y = (v: number) => (10 + (1 - (v - low) / span) * (CHART_HEIGHT - 30)).toFixed(1)
  const d = segments.map((segment) => {
    const shown = segment.filter((p) => p[metric] !== null)
    return shown.map((p, i) => `${i === 0 ? "M" : "L"}${x(p.distance)} ${y(p[metric]!)}`).join("")
  }).join("")
  return `<section><h2>${escapeHtml(title)}</h2><svg class="chart" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-label="${escapeHtml(`${title} from ${Math.round(low)} to ${Math.round(high)} ${unit}`)}">` +
    `<line x1="70" y1="${CHART_HEIGHT - 20}" x2="${CHART_WIDTH - 10}" y2="${CHART_HEIGHT - 20}"/>` +
    `<text x="0" y="30">${Math.round(high)}</text><text x="0" y="${CHART_HEIGHT - 20}">${Math.round(low)}</text>` +
    `<path class="${css}" d="${d}"/></svg></section>`
}

export interface SharedPageUrls {
  /** the link itself, absolute */
  readonly page: string
  /** its picture, absolute */
  readonly image: string
  /** each photo's path, on this host */
  readonly photo: (index: number) => string
}

export const sharedPageHtml = (view: SharedView, urls: SharedPageUrls, units: UnitSystem): string => {
  const name = view.name === "" ? "Activity" : view.name
  const subtitle = `${dateText(view.date)} · ${sportText(view.sportType)}`
  const figures = figureTexts(view.figures, units)
  const summary = `${subtitle} · ${figures.slice(0, 4).map((f) => f.value).join(" · ")}`
  const segments = view.track.segments
  const path = view.shows.map ? routePath(view.track, { x: 16, y: 16, width: MAP_WIDTH - 32, height: MAP_HEIGHT - 32 }) : ""
  const map = !view.shows.map
    ? ""
    : path === ""
    ? `<section><h2>Map</h2><p class="note">${view.track.hasPositions ? "The whole route lies in the parts the athlete keeps private." : "This activity has no route."}</p></section>`
    : `<section><h2>Map</h2><svg class="map" viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}" role="img" aria-label="The route, without its private parts"><path class="route" d="${path}"/></svg>` +
      `<p class="note">The start, the finish and the athlete's private places are not shown.</p></section>`
  const charts = !view.shows.charts
    ? ""
    : chart(segments, "altitude", "Elevation", "m", "altitude") +
      (view.shows.heartRate ? chart(segments, "heartrate", "Heart rate", "bpm", "heartrate") : "") +
      (view.shows.power ? chart(segments, "watts", "Power", "W", "power") : "")
  const description = view.description === null ? "" : `<section><h2>Description</h2><p class="description">${escapeHtml(view.description)}</p></section>`
  const photos = view.photos.length === 0
    ? ""
    : `<section><h2>Photos</h2><div class="photos">${view.photos.map((_, i) => `<img src="${escapeHtml(urls.photo(i + 1))}" alt="Photo ${i + 1} of ${escapeHtml(name)}" loading="lazy">`).join("")}</div></section>`
  const meta = (property: string, content: string) => `<meta property="${property}" content="${escapeHtml(content)}">`
  const named = (n: string, content: string) => `<meta name="${n}" content="${escapeHtml(content)}">`
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark">` +
    `<meta name="robots" content="noindex, nofollow">` +
    `<meta name="referrer" content="no-referrer">` +
    `<title>${escapeHtml(name)}</title>` +
    meta("og:type", "website") + meta("og:title", name) + meta("og:description", summary) + meta("og:url", urls.page) +
    meta("og:image", urls.image) + meta("og:image:type", "image/png") + meta("og:image:width", "1200") + meta("og:image:height", "630") +
    meta("og:image:alt", `${name}: the route and figures`) +
    named("twitter:card", "summary_large_image") + named("twitter:title", name) + named("twitter:description", summary) + named("twitter:image", urls.image) +
    `<style>${STYLE}</style></head><body><main>` +
    `<h1>${escapeHtml(name)}</h1><p class="sub">${escapeHtml(subtitle)}</p>` +
    `<dl class="figures">${figures.map((f) => `<div><dt>${escapeHtml(f.label)}</dt><dd>${escapeHtml(f.value)}</dd></div>`).join("")}</dl>` +
    map + charts + description + photos +
    `</main><footer>Shared from Waymark</footer></body></html>`
}

/** The answer to a link that opens nothing: the same for a token never made and one revoked. */
export const NOT_FOUND_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
  `<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex, nofollow"><title>Not found</title><style>${STYLE}</style></head>` +
  `<body><main><h1>Not found</h1><p class="sub">This link does not exist, or the athlete revoked it.</p></main></body></html>`
