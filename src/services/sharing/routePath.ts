import type { Bounds, VisibleTrack } from "./visibleTrack.ts"

/**
 * The visible track as SVG path data inside a box (Web Mercator, fitted and centred with its
 * proportions kept): one sub-path per run, so that no line joins across a hidden part. Only the
 * visible samples are projected; the box's edges are the visible track's own bounds.
 */

export interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

const mercatorY = (latitude: number) => {
  const s = Math.sin((Math.max(-85, Math.min(85, latitude)) * Math.PI) / 180)
  return Math.log((1 + s) / (1 - s)) / 2
}

const round = (n: number) => Math.round(n * 10) / 10

export const routePath = (track: VisibleTrack, box: Box): string => {
  const bounds: Bounds | null = track.bounds
  if (bounds === null) return ""
  const x0 = (bounds.west * Math.PI) / 180
  const x1 = (bounds.east * Math.PI) / 180
  const y0 = mercatorY(bounds.south)
  const y1 = mercatorY(bounds.north)
  const spanX = Math.max(x1 - x0, 1e-9)
  const spanY = Math.max(y1 - y0, 1e-9)
  const scale = Math.min(box.width / spanX, box.height / spanY)
  const offsetX = box.x + (box.width - spanX * scale) / 2
  const offsetY = box.y + (box.height - spanY * scale) / 2
  const parts: Array<string> = []
  for (const segment of track.segments) {
    if (segment.length < 2) continue
    let d = ""
    let last = ""
    for (const [i, sample] of segment.entries()) {
      const px = round(offsetX + ((sample.latlng[1] * Math.PI) / 180 - x0) * scale)
      const py = round(offsetY + (y1 - mercatorY(sample.latlng[0])) * scale)
      const point = `${px} ${py}`
      if (point === last) continue
      d += `${i === 0 ? "M" : "L"}${point}`
      last = point
    }
    parts.push(d)
  }
  return parts.join("")
}
