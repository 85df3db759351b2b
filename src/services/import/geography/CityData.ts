import KDBush from "kdbush"
import * as fs from "node:fs"
import { createRequire } from "node:module"

/**
 * The nearest-city data set (`country-state-city`: ~148k cities, each with a country and a
 * state code, plus the state list) in a compact binary form: a KD-tree over Float32
 * coordinates, Uint16 country and state indexes, and the city names as one UTF-8 block with
 * offsets (a name is decoded only when it is the answer). Loading it costs ~10 MB per thread,
 * where parsing the 8 MB source JSON costs ~70 MB that V8 keeps.
 *
 * `npm run build` writes the file next to the compiled code (scripts/buildCityData.ts); where
 * it is absent (running from source, in tests) the same form is built from the JSON in memory.
 */
export interface CityData {
  readonly tree: KDBush
  readonly countries: ReadonlyArray<string>
  readonly countryOf: Uint16Array
  readonly stateNames: ReadonlyArray<string | null>
  readonly stateOf: Uint16Array
  readonly nameAt: (id: number) => string
}

type CityRow = readonly [name: string, countryCode: string, stateCode: string, lat: string, lng: string]
interface StateRow {
  readonly name: string
  readonly isoCode: string
  readonly countryCode: string
}
interface Header {
  readonly count: number
  readonly countries: ReadonlyArray<string>
  readonly stateNames: ReadonlyArray<string | null>
  readonly treeBytes: number
  readonly namesBytes: number
}

const MAGIC = "WMKCITY1"
const align4 = (n: number) => (n + 3) & ~3

const require = createRequire(import.meta.url)
const readJson = <A>(specifier: string): A => JSON.parse(fs.readFileSync(require.resolve(specifier), "utf8")) as A

/** The binary form, built from the `country-state-city` JSON. */
export const buildCityData = (): Uint8Array => {
  const stateNames: Array<string | null> = [null]
  const stateKey = new Map<string, number>()
  for (const s of readJson<ReadonlyArray<StateRow>>("country-state-city/lib/assets/state.json")) {
    stateKey.set(`${s.countryCode}-${s.isoCode}`, stateNames.length)
    stateNames.push(s.name)
  }
  const rows = readJson<ReadonlyArray<CityRow>>("country-state-city/lib/assets/city.json")
  const tree = new KDBush(rows.length, 64, Float32Array)
  const countryOf = new Uint16Array(rows.length)
  const stateOf = new Uint16Array(rows.length)
  const countries: Array<string> = []
  const countryKey = new Map<string, number>()
  const encoder = new TextEncoder()
  const encodedNames = rows.map((row) => encoder.encode(row[0]))
  const nameOffsets = new Uint32Array(rows.length + 1)
  for (let i = 0; i < rows.length; i++) {
    const [, cc, sc, lat, lng] = rows[i]!
    tree.add(Number(lng), Number(lat))
    let c = countryKey.get(cc)
    if (c === undefined) {
      c = countries.length
      countryKey.set(cc, c)
      countries.push(cc.toLowerCase())
    }
    countryOf[i] = c
    stateOf[i] = stateKey.get(`${cc}-${sc}`) ?? 0
    nameOffsets[i + 1] = nameOffsets[i]! + encodedNames[i]!.length
  }
  tree.finish()

  const header: Header = { count: rows.length, countries, stateNames, treeBytes: tree.data.byteLength, namesBytes: nameOffsets[rows.length]! }
  const headerBytes = encoder.encode(JSON.stringify(header))
  const sections: Array<Uint8Array> = [
    encoder.encode(MAGIC),
    new Uint8Array(new Uint32Array([headerBytes.length]).buffer),
    headerBytes,
    new Uint8Array(tree.data as ArrayBuffer),
    new Uint8Array(countryOf.buffer),
    new Uint8Array(stateOf.buffer),
    new Uint8Array(nameOffsets.buffer),
    ...encodedNames
  ]
  // every section but the names starts at a multiple of 4 bytes
  const padded = sections.map((s, i) => (i >= 2 && i <= 5 ? align4(s.length) : s.length))
  const out = new Uint8Array(padded.reduce((a, b) => a + b, 0))
  let at = 0
  sections.forEach((s, i) => {
    out.set(s, at)
    at += padded[i]!
  })
  return out
}

/** Reads the binary form (as written by buildCityData). */
export const readCityData = (bytes: Uint8Array): CityData => {
  const decoder = new TextDecoder()
  if (decoder.decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) throw new Error("not a city data file")
  // an ArrayBuffer of its own, so that the typed arrays below are aligned (a Buffer's slice() is a view)
  const buffer = new Uint8Array(bytes).buffer
  let at = MAGIC.length
  const headerLength = new DataView(buffer).getUint32(at, true)
  at += 4
  const header = JSON.parse(decoder.decode(new Uint8Array(buffer, at, headerLength))) as Header
  at += align4(headerLength)
  const tree = KDBush.from(buffer.slice(at, at + header.treeBytes))
  at += align4(header.treeBytes)
  const countryOf = new Uint16Array(buffer, at, header.count)
  at += align4(header.count * 2)
  const stateOf = new Uint16Array(buffer, at, header.count)
  at += align4(header.count * 2)
  const nameOffsets = new Uint32Array(buffer, at, header.count + 1)
  at += (header.count + 1) * 4
  const names = new Uint8Array(buffer, at, header.namesBytes)
  return {
    tree,
    countries: header.countries,
    countryOf,
    stateNames: header.stateNames,
    stateOf,
    nameAt: (id) => decoder.decode(names.subarray(nameOffsets[id]!, nameOffsets[id + 1]!))
  }
}

/** Where `npm run build` puts the binary form: dist/data/cities.bin. */
const CITY_DATA_URL = new URL("../../../data/cities.bin", import.meta.url)

/** The built file when present, else the same form built from the JSON now. */
export const loadCityData = (): CityData => {
  let bytes: Uint8Array
  try {
    bytes = fs.readFileSync(CITY_DATA_URL)
  } catch {
    bytes = buildCityData()
  }
  return readCityData(bytes)
}
