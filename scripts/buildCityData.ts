/**
 * Writes the compact nearest-city data (src/services/import/geography/CityData.ts) next to the
 * compiled code, as dist/data/cities.bin; part of `npm run build`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { buildCityData } from "../src/services/import/geography/CityData.ts"

const target = path.join(import.meta.dirname, "..", "dist", "data", "cities.bin")
fs.mkdirSync(path.dirname(target), { recursive: true })
const temp = `${target}.tmp`
fs.writeFileSync(temp, buildCityData())
fs.renameSync(temp, target)
