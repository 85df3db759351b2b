import type { LatLng } from "./segmentLine.ts"

/**
 * The line of a new segment from what the athlete sent: points, a GPX file's text (its track
 * or route) or a GeoJSON line; each a BadInput naming the field where it cannot be a line.
 */

export class BadInput {
  constructor(readonly message: string) {}
}

export interface SourceLine {
  readonly points: ReadonlyArray<LatLng>
  readonly altitudes: ReadonlyArray<number> | null
}

const checkPoint = (field: string, value: unknown, order: "latlon" | "lonlat"): LatLng => {
  const shape = order === "latlon" ? "[latitude, longitude]" : "[longitude, latitude]"
  if (!Array.isArray(value) || value.length < 2 || typeof value[0] !== "number" || typeof value[1] !== "number") {
    throw new BadInput(`"${field}" must be ${shape} in degrees.`)
  }
  const [lat, lon] = order === "latlon" ? [value[0], value[1]] : [value[1], value[0]]
  if (!Number.isFinite(lat) || lat < -90 || lat > 90 || !Number.isFinite(lon) || lon < -180 || lon > 180) {
    throw new BadInput(`"${field}" is out of range: latitude from -90 to 90, longitude from -180 to 180.`)
  }
  return [lat, lon]
}

export const fromPoints = (points: ReadonlyArray<ReadonlyArray<number>>): SourceLine => {
  if (points.length < 2) throw new BadInput(`"points" must have at least two points.`)
  return { points: points.map((p, i) => checkPoint(`points[${i}]`, p, "latlon")), altitudes: null }
}

export const fromGeoJson = (value: unknown): SourceLine => {
  const geometry = (value as { type?: unknown; geometry?: unknown } | null)?.type === "Feature" ? (value as { geometry: unknown }).geometry : value
  const g = geometry as { type?: unknown; coordinates?: unknown } | null
  if (g?.type !== "LineString" || !Array.isArray(g.coordinates)) throw new BadInput(`"geojson" must be a LineString, or a Feature of one.`)
  if (g.coordinates.length < 2) throw new BadInput(`"geojson" must have at least two points.`)
  const points = g.coordinates.map((c, i) => checkPoint(`geojson.coordinates[${i}]`, c, "lonlat"))
  const altitudes = g.coordinates.every((c) => Array.isArray(c) && typeof c[2] === "number") ? g.coordinates.map((c) => c[2] as number) : null
  return { points, altitudes }
}

const asArray = <A>(v: A | Array<A> | undefined): Array<A> => (v === undefined ? [] : Array.isArray(v) ? v : [v])

/** The GPX file's track or route; the XML parser is loaded with the first GPX sent. */
export const fromGpx = async (text: string): Promise<SourceLine> => {
  const { XMLParser } = await import("fast-xml-parser")
  let doc: any
  try {
    doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", processEntities: false }).parse(text)
  } catch {
    throw new BadInput(`"gpx" is not a GPX file.`)
  }
  const gpx = doc?.gpx
  if (gpx === undefined) throw new BadInput(`"gpx" is not a GPX file.`)
  const trackPoints = asArray<any>(gpx.trk).flatMap((t) => asArray<any>(t?.trkseg).flatMap((s) => asArray<any>(s?.trkpt)))
  const raw = trackPoints.length > 0 ? trackPoints : asArray<any>(gpx.rte).flatMap((r) => asArray<any>(r?.rtept))
  if (raw.length < 2) throw new BadInput(`"gpx" must hold a track or a route of at least two points.`)
  const points = raw.map((p, i) => checkPoint(`gpx point ${i + 1}`, [Number(p?.lat), Number(p?.lon)], "latlon"))
  const elevations = raw.map((p) => Number(p?.ele))
  return { points, altitudes: elevations.every(Number.isFinite) ? elevations : null }
}
