import { around } from "geokdbush"
import { type CityData, loadCityData } from "./CityData.ts"

/**
 * Offline nearest city (with its country and state) over the compact `country-state-city`
 * data set of CityData, loaded once per thread on first use.
 */
export interface CityHit {
  readonly name: string
  /** lowercased ISO 3166-1 alpha-2 */
  readonly countryCode: string
  readonly state: string | null
  readonly distanceKm: number
}

let cached: CityData | undefined

const index = (): CityData => (cached ??= loadCityData())

/**
 * The nearest city within `maxKm`, optionally restricted to one country (lowercase alpha-2),
 * so that a point near a border does not pick the town across it.
 */
export const nearestCity = (lat: number, lng: number, maxKm: number, countryCode?: string | null): CityHit | null => {
  const idx = index()
  const wanted = countryCode ? idx.countries.indexOf(countryCode.toLowerCase()) : -1
  if (countryCode && wanted < 0) return null
  const ids = around(idx.tree, lng, lat, 1, maxKm, wanted < 0 ? undefined : (id: number) => idx.countryOf[id] === wanted)
  const id = ids[0]
  if (id === undefined) return null
  const x = idx.tree.coords[2 * id]!
  const y = idx.tree.coords[2 * id + 1]!
  return {
    name: idx.nameAt(id),
    countryCode: idx.countries[idx.countryOf[id]!]!,
    state: idx.stateNames[idx.stateOf[id]!] ?? null,
    distanceKm: haversineKm(lat, lng, y, x)
  }
}

const haversineKm = (lat1: number, lng1: number, lat2: number, lng2: number): number => {
  const rad = Math.PI / 180
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)))
}
