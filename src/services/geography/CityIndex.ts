import KDBush from "kdbush"
import { around } from "geokdbush"
import * as fs from "node:fs"
import { createRequire } from "node:module"

/**
 * Offline nearest-city index over the `country-state-city` data set (~148k cities, each with
 * a country and a state code; the state names come from its state list). The JSON is read
 * once per thread, on first use, and compacted: coordinates into a Float32 KD-tree, state
 * names interned behind a Uint16 index, and the city names kept in one array.
 */
export interface CityHit {
  readonly name: string
  /** lowercased ISO 3166-1 alpha-2 */
  readonly countryCode: string
  readonly state: string | null
  readonly distanceKm: number
}

interface Index {
  readonly tree: KDBush
  readonly names: ReadonlyArray<string>
  readonly countries: ReadonlyArray<string>
  readonly countryOf: Uint16Array
  readonly stateNames: ReadonlyArray<string | null>
  readonly stateOf: Uint16Array
}

type CityRow = readonly [name: string, countryCode: string, stateCode: string, lat: string, lng: string]
interface StateRow {
  readonly name: string
  readonly isoCode: string
  readonly countryCode: string
}

const require = createRequire(import.meta.url)
const readJson = <A>(specifier: string): A => JSON.parse(fs.readFileSync(require.resolve(specifier), "utf8")) as A

const build = (): Index => {
  const stateRows = readJson<ReadonlyArray<StateRow>>("country-state-city/lib/assets/state.json")
  const stateNames: Array<string | null> = [null]
  const stateKey = new Map<string, number>()
  for (const s of stateRows) {
    stateKey.set(`${s.countryCode}-${s.isoCode}`, stateNames.length)
    stateNames.push(s.name)
  }
  const rows = readJson<ReadonlyArray<CityRow>>("country-state-city/lib/assets/city.json")
  const tree = new KDBush(rows.length, 64, Float32Array)
  const names = new Array<string>(rows.length)
  const countryOf = new Uint16Array(rows.length)
  const stateOf = new Uint16Array(rows.length)
  const countries: Array<string> = []
  const countryKey = new Map<string, number>()
  for (let i = 0; i < rows.length; i++) {
    const [name, cc, sc, lat, lng] = rows[i]!
    tree.add(Number(lng), Number(lat))
    // copy, so that no sliced string pins the parsed JSON text
    names[i] = (" " + name).slice(1)
    let c = countryKey.get(cc)
    if (c === undefined) {
      c = countries.length
      countryKey.set(cc, c)
      countries.push(cc.toLowerCase())
    }
    countryOf[i] = c
    stateOf[i] = stateKey.get(`${cc}-${sc}`) ?? 0
  }
  tree.finish()
  return { tree, names, countries, countryOf, stateNames, stateOf }
}

let cached: Index | undefined

/** The per-thread index, built on the first call. */
const index = (): Index => (cached ??= build())

/** Loads the index now (e.g. at worker start), so that the first import does not pay for it. */
export const loadCityIndex = (): void => {
  index()
}

export const isCityIndexLoaded = (): boolean => cached !== undefined

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
    name: idx.names[id]!,
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
