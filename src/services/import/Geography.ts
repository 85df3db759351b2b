import tzlookup from "@photostructure/tz-lookup"
import { createRequire } from "node:module"
import type { Location } from "../../schema/ActivityDraft.ts"
import { nearestCity } from "./geography/CityIndex.ts"

/**
 * Offline geography: time zone, country, nearest city + state and the countries a route passes.
 * Pure functions, used inside the parse worker thread and by the Strava mapping.
 * Nothing here calls the network.
 */

/** Radius within which the nearest city names the location. */
export const CITY_RADIUS_KM = 30
/** Wider radius used only to name the state when no city lies within CITY_RADIUS_KM. */
export const STATE_RADIUS_KM = 100
/** Spacing (metres along the route) of the points tested by passedThroughCountries. */
export const ROUTE_SAMPLE_METERS = 500

/**
 * The country borders, loaded on first use: building them costs ~20 MB of heap, which the
 * daemon's main thread (where only a Strava import asks for a country) should not hold from
 * its start.
 */
let countryCoder: typeof import("@rapideditor/country-coder") | undefined
const borders = () => (countryCoder ??= createRequire(import.meta.url)("@rapideditor/country-coder") as typeof import("@rapideditor/country-coder"))

const validPoint = (lat: number, lng: number): boolean =>
  Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180

/** IANA time zone at a point (tz-lookup; ocean points get an `Etc/GMT±N` zone). */
export const timeZoneAt = (lat: number, lng: number): string | null => {
  if (!validPoint(lat, lng)) return null
  try {
    return tzlookup(lat, lng)
  } catch {
    return null
  }
}

/**
 * Lowercased ISO 3166-1 alpha-2 code at a point, at territory level (Greenland is `gl`,
 * Puerto Rico `pr`); null at sea.
 */
export const countryAt = (lat: number, lng: number): string | null => {
  if (!validPoint(lat, lng)) return null
  const code = borders().iso1A2Code([lng, lat], { level: "territory" })
  return code ? code.toLowerCase() : null
}

/** Country, state name and nearest city (within CITY_RADIUS_KM) of a point; unknown parts are null. */
export const locate = (lat: number, lng: number): Location => {
  const countryCode = countryAt(lat, lng)
  if (!validPoint(lat, lng)) return { countryCode: null, state: null, city: null }
  const city = nearestCity(lat, lng, CITY_RADIUS_KM, countryCode)
  if (city) return { countryCode: countryCode ?? city.countryCode, state: city.state, city: city.name }
  const wider = countryCode ? nearestCity(lat, lng, STATE_RADIUS_KM, countryCode) : null
  return { countryCode, state: wider?.state ?? null, city: null }
}

const EARTH_RADIUS_M = 6_371_000
const distanceM = (lat1: number, lng1: number, lat2: number, lng2: number): number => {
  const rad = Math.PI / 180
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)))
}

/**
 * The countries a route passes: the start country first, then every other country in route
 * order, lowercased and unique. The route is sampled every ROUTE_SAMPLE_METERS (plus its last
 * point), so a 30,000-point track costs a few hundred point-in-polygon tests.
 */
export const passedThroughCountries = (
  latlngs: ReadonlyArray<readonly [number, number] | null>
): Array<string> => {
  const seen = new Set<string>()
  const visit = (lat: number, lng: number) => {
    const c = countryAt(lat, lng)
    if (c) seen.add(c)
  }
  let last: readonly [number, number] | null = null
  let sampled: readonly [number, number] | null = null
  let sinceSample = 0
  for (const p of latlngs) {
    if (!p || !validPoint(p[0], p[1])) continue
    if (last === null) {
      visit(p[0], p[1])
      sampled = p
    } else {
      sinceSample += distanceM(last[0], last[1], p[0], p[1])
      if (sinceSample >= ROUTE_SAMPLE_METERS) {
        visit(p[0], p[1])
        sampled = p
        sinceSample = 0
      }
    }
    last = p
  }
  if (last !== null && last !== sampled) visit(last[0], last[1])
  return [...seen]
}
