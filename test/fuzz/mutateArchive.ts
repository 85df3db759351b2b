import { zipBuffer } from "../support/zipWriter.ts"
import type { ZipEntry } from "../support/zipWriter.ts"
import { seededRandom, type SourceFile } from "./mutateActivityFile.ts"

/**
 * Seeded archives for `npm run fuzz`: exports in each peer's layout (Strava, Garmin Connect,
 * FitTrackee, Endurain) and plain zips, built from corpus files, whose metadata or whose zip is
 * mangled: CSVs with huge or unclosed quoted fields, stray quotes, mixed line breaks, a BOM,
 * repeated columns, very many rows, random bytes; summaries and JSON padded with blanks,
 * nested deep, with huge strings and numbers, cut short, not lists, with very many tiny
 * records; zips with entries of random or hostile names (`..`, absolute, backslashes), the same
 * name twice, flipped or cut bytes. The same seed gives the same archives. The sizes are meant
 * for a daemon whose metadata limits are lowered (METADATA_LIMITS_ENV), so that each attack is
 * small to make and still crosses them.
 */

/** The metadata limits the fuzzed daemon runs with. */
export const METADATA_LIMITS_ENV = {
  EXPORT_METADATA_MAX_FILESIZE: "1M",
  EXPORT_METADATA_MAX_SIZE: "4M",
  EXPORT_METADATA_MAX_RECORD_SIZE: "16K",
  EXPORT_METADATA_MAX_RECORDS: "20000"
} as const

export interface MutatedArchive {
  /** unique, `.zip` */
  readonly name: string
  readonly layout: string
  readonly mutations: ReadonlyArray<string>
  readonly bytes: Uint8Array
}

type Random = ReturnType<typeof seededRandom>

const csvCell = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text)

// ---------------------------------------------------------------------------------------
// metadata texts, mangled

const CSV_MUTATIONS = ["huge-field", "unclosed-quote", "stray-quotes", "mixed-breaks", "bom", "repeated-columns", "many-rows", "random-bytes", "no-header"] as const
const JSON_MUTATIONS = ["blanks", "deep", "huge-string", "huge-number", "cut-short", "not-a-list", "many-records", "random-bytes", "wrong-types"] as const

const randomText = (random: Random, length: number) => Buffer.from(Array.from({ length }, () => random.int(256))).toString("latin1")

const mangleCsv = (header: Array<string>, rows: Array<Array<string>>, random: Random, kind: (typeof CSV_MUTATIONS)[number]): string => {
  const write = (h: Array<string>, r: Array<Array<string>>, br = "\n") => [h, ...r].map((row) => row.map(csvCell).join(",")).join(br) + br
  switch (kind) {
    case "huge-field":
      rows[0]![1] = "x".repeat(random.pick([20_000, 200_000, 2_000_000]))
      return write(header, rows)
    case "unclosed-quote":
      return `${write(header, rows)}"${"y".repeat(random.pick([100, 50_000]))}`
    case "stray-quotes":
      return write(header, rows).replaceAll(",", () => (random.next() < 0.2 ? ",\"a\"b\"" : ","))
    case "mixed-breaks":
      return [header, ...rows].map((row) => row.map(csvCell).join(",") + random.pick(["\n", "\r\n", "\r", "\n\n"])).join("")
    case "bom":
      return `\uFEFF${write(header, rows, "\r\n")}`
    case "repeated-columns":
      return write([...header, ...header], rows.map((r) => [...r, ...r.map(() => randomText(random, 5))]))
    case "many-rows": {
      const more = Array.from({ length: random.pick([5_000, 25_000, 60_000]) }, (_, i) => header.map((_, k) => (k === 0 ? String(i) : "")))
      return write(header, [...rows, ...more])
    }
    case "random-bytes":
      return randomText(random, random.pick([10, 1000, 100_000]))
    case "no-header":
      return write(rows[0]!, rows.slice(1))
  }
}

const mangleJson = (value: unknown, random: Random, kind: (typeof JSON_MUTATIONS)[number]): string => {
  const text = JSON.stringify(value)
  switch (kind) {
    case "blanks":
      return `${text.slice(0, 1)}${" ".repeat(random.pick([100_000, 900_000, 1_100_000]))}${text.slice(1)}`
    case "deep":
      return `[${"[".repeat(random.pick([1_000, 100_000]))}${"]".repeat(random.pick([0, 1_000]))}]`
    case "huge-string":
      return text.replace(/"name":"/, `"name":"${"z".repeat(random.pick([10_000, 100_000, 1_000_000]))}`)
    case "huge-number":
      return text.replace(/:(\d+)/, `:${"9".repeat(random.pick([400, 20_000, 300_000]))}`)
    case "cut-short":
      return text.slice(0, random.int(text.length))
    case "not-a-list":
      return random.pick(["{\"a\":1}", "\"text\"", "42", "null", ""])
    case "many-records":
      return `[${Array.from({ length: random.pick([5_000, 30_000]) }, (_, i) => `{"activityId":${i},"startTimeGmt":${i}}`).join(",")}]`
    case "random-bytes":
      return randomText(random, random.pick([10, 1000, 100_000]))
    case "wrong-types":
      return text.replaceAll(/"(name|activityType|startTimeGmt|title|original_file|Filename)":("[^"]*"|\d+)/g, () => `"$1":${random.pick(["null", "[]", "{}", "true", "-1e999"])}`)
  }
}

// ---------------------------------------------------------------------------------------
// exports

/** Names unique to each archive: a file of one archive never meets another's name and bytes in the folder. */
let archiveTag = ""
let archiveIndex = 0
const fileName = (source: SourceFile, id: number) => `${archiveTag}${id}.${source.format}`

const strava = (files: ReadonlyArray<SourceFile>, random: Random, mutations: Array<string>): Array<ZipEntry> => {
  const header = ["Activity ID", "Activity Name", "Activity Type", "Activity Description", "Commute", "Activity Gear", "Filename", "Media"]
  const rows = files.map((f, i) => [String(i), `Ride ${i}`, random.pick(["Ride", "Run", "Nordic Ski", "Weird"]), "desc", "false", "Bike", `activities/${fileName(f, i)}`, ""])
  const kind = random.pick(CSV_MUTATIONS)
  mutations.push(`csv:${kind}`)
  return [
    { name: "activities.csv", data: mangleCsv(header, rows, random, kind) },
    ...files.map((f, i): ZipEntry => ({ name: `activities/${fileName(f, i)}`, data: f.bytes })),
    { name: "bikes.csv", data: "Bike Name,Bike Brand,Bike Model\nBike,Trek,Domane\n" }
  ]
}

const garmin = (files: ReadonlyArray<SourceFile>, random: Random, mutations: Array<string>): Array<ZipEntry> => {
  const summaries = files.map((_, i) => ({ activityId: i, name: `Run ${i}`, activityType: "running", startTimeGmt: 1_500_000_000_000 + i * 86_400_000 }))
  const count = 1 + random.int(3)
  const entries: Array<ZipEntry> = []
  for (let k = 0; k < count; k++) {
    const kind = random.pick(JSON_MUTATIONS)
    mutations.push(`summaries:${kind}`)
    entries.push({ name: `DI_CONNECT/DI-Connect-Fitness/a@b.c_${k}_summarizedActivities.json`, data: mangleJson([{ summarizedActivitiesExport: summaries }], random, kind) })
  }
  const part = zipBuffer(files.map((f, i) => ({ name: `a@b.c_${fileName(f, i)}`, data: f.bytes })))
  return [...entries, { name: "DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip", data: part, deflate: false }, { name: "DI_CONNECT/DI-Connect-Wellness/sleep.json", data: "[]" }]
}

const fitTrackee = (files: ReadonlyArray<SourceFile>, random: Random, mutations: Array<string>): Array<ZipEntry> => {
  const kind = random.pick(JSON_MUTATIONS)
  mutations.push(`workouts:${kind}`)
  const workouts = files.map((f, i) => ({ id: i, title: `Workout ${i}`, name: "x", sport_label: "Running", original_file: fileName(f, i), equipments: [] }))
  return [{ name: "user_workouts_data.json", data: mangleJson(workouts, random, kind) }, ...files.map((f, i): ZipEntry => ({ name: `workout_files/${fileName(f, i)}`, data: f.bytes }))]
}

const endurain = (files: ReadonlyArray<SourceFile>, random: Random, mutations: Array<string>): Array<ZipEntry> => {
  const kind = random.pick(JSON_MUTATIONS)
  mutations.push(`activities:${kind}`)
  const id = (i: number) => archiveIndex * 100 + i
  const activities = files.map((_, i) => ({ id: id(i), name: `Activity ${i}`, activity_type: 1 + random.int(50) }))
  return [
    { name: "data/activities.json", data: mangleJson(activities, random, kind) },
    { name: "counts.json", data: "{}" },
    ...files.map((f, i): ZipEntry => ({ name: `activity_files/${id(i)}.${f.format}`, data: f.bytes }))
  ]
}

const HOSTILE_NAMES = ["../escape.gpx", "/abs/olute.fit", "a\\..\\..\\b.tcx", "dir/", "", "ä/ö/ü.gpx", "x".repeat(300) + ".fit", "CON.gpx", ".hidden.fit", "__MACOSX/._a.fit", "nested.zip"]

const plain = (files: ReadonlyArray<SourceFile>, random: Random, mutations: Array<string>): Array<ZipEntry> => {
  const entries: Array<ZipEntry> = files.map((f, i) => ({ name: fileName(f, i), data: f.bytes }))
  const n = 1 + random.int(4)
  for (let k = 0; k < n; k++) {
    const kind = random.pick(["hostile-name", "same-name", "random-entry"])
    mutations.push(`zip:${kind}`)
    if (kind === "hostile-name") entries.push({ name: random.pick(HOSTILE_NAMES), data: random.pick(files).bytes })
    else if (kind === "same-name") entries.push({ name: entries[0]?.name ?? "same.gpx", data: random.pick(files).bytes })
    else entries.push({ name: `r${k}.${random.pick(["fit", "gpx", "tcx", "bin", "csv", "json"])}`, data: Buffer.from(randomText(random, random.int(5000)), "latin1") })
  }
  return entries
}

const LAYOUTS = { strava, garmin, fitTrackee, endurain, plain } as const

/** Mangles the zip's own bytes (after it was written), now and then. */
const mangleZip = (bytes: Uint8Array, random: Random, mutations: Array<string>): Uint8Array => {
  const roll = random.next()
  if (roll < 0.08) {
    mutations.push("zip:flip")
    const out = bytes.slice()
    for (let i = 0; i < 1 + random.int(8); i++) out[random.int(out.length)]! ^= 1 << random.int(8)
    return out
  }
  if (roll < 0.12) {
    mutations.push("zip:cut")
    return bytes.subarray(0, random.int(bytes.length))
  }
  return bytes
}

/** `count` archives from `sources` (small activity files), one at a time. */
export function* mutatedArchives(sources: ReadonlyArray<SourceFile>, count: number, seed: number): Generator<MutatedArchive> {
  const random = seededRandom(seed)
  const layouts = Object.keys(LAYOUTS) as Array<keyof typeof LAYOUTS>
  for (let i = 0; i < count; i++) {
    const layout = random.pick(layouts)
    archiveTag = `a${i}-`
    archiveIndex = i
    const files = Array.from({ length: 1 + random.int(4) }, () => random.pick(sources))
    const mutations: Array<string> = []
    const bytes = mangleZip(zipBuffer(LAYOUTS[layout](files, random, mutations)), random, mutations)
    yield { name: `fuzz-archive-${String(i).padStart(4, "0")}-${layout}.zip`, layout, mutations, bytes }
  }
}
