import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ExportPlan } from "../../../../src/services/import/exports/ExportPlan.ts"
import { planExport, recogniseExport } from "../../../../src/services/import/exports/ExportLayout.ts"
import { stravaMetadataFormat } from "../../../../src/services/import/exports/StravaExport.ts"
import { garminMetadataOf, matchSummary, planPart } from "../../../../src/services/import/exports/GarminExport.ts"
import { MetadataBudget } from "../../../../src/services/import/exports/MetadataRecords.ts"
import { DEFAULT_EXPORT_METADATA_LIMITS } from "../../../../src/services/platform/AppConfig.ts"
import { folderMetadata, garminExportFolder, garminFolderSkipped, isFolderGarminPart } from "../../../../src/services/import/exports/GarminFolder.ts"
import { parseActivityFile } from "../../../../src/services/import/parsers/parseActivityFile.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../../../support/corpus.ts"
import {
  asZip,
  corpusSources,
  endurainExport,
  fitTrackeeSample,
  garminExport,
  garminSample,
  stravaExport,
  TINY_JPEG,
  writeFolder
} from "../../../support/exportArchives.ts"
import { recordsOfTexts } from "../../../support/metadataTexts.ts"
import { tempDirs } from "../../../support/tempDirs.ts"
import { zipContents } from "../../../support/zipContents.ts"
import type { ZipEntry } from "../../../support/zipWriter.ts"

/**
 * Each peer's export, built in its real layout from the corpus and zipped, read as the import
 * will read it: the zip's entry list, then the records of the metadata entries the layout names,
 * then the plan.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)
const tempDir = tempDirs("waymark-exports-")

/** The plan of a zip as the archive module will make it: list, read the metadata entries, plan. */
const planOfZip = async (entries: Iterable<ZipEntry>) => {
  const contents = await zipContents(asZip(entries))
  const names = [...contents.keys()]
  const layout = recogniseExport(names)
  const records = await recordsOfTexts(layout.metadataEntries.map((e) => [e, contents.get(e)!.toString("utf8")]), layout.metadataFormat)
  return { layout, plan: planExport(layout, names, records), contents }
}

const metadataOf = (plan: ExportPlan, suffix: string) => plan.activities.find((a) => a.entry.endsWith(suffix))?.metadata

describe.skipIf(!CORPUS_DIR)("export layouts built from the corpus", () => {

  it("Strava: every file of activities/ with its row's name, sport, description and note, commute, gear of bikes.csv and shoes.csv, and its photos", async () => {
    const [run, ride, gpx, tcx] = await corpusSources("fit/garmin-fenix5-run.fit", "fit/garmin-edge820-commute-ride.fit", "gpx/strava-run-gpxtpx-hr.gpx", "tcx/garmin-fr410-run-3-laps.tcx")
    const { layout, plan } = await planOfZip(stravaExport({
      activities: [
        { file: run!, name: "Morning run, easy", sport: "Run", description: "felt \"good\"", privateNote: "knee ok", gear: "Pegasus 40" },
        { file: ride!, name: "To work", sport: "Ride", commute: true, gear: "domane ", photos: 2 },
        { file: gpx!, name: "Snow", sport: "Nordic Ski" },
        // an unnamed shoe: the activity names it by brand and model
        { file: tcx!, sport: "Run", gear: "Hoka Clifton" }
      ],
      gear: [
        { name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" },
        { name: "Pegasus 40", brand: "Nike", model: "Pegasus", kind: "shoes" },
        { name: "", brand: "Hoka", model: "Clifton", kind: "shoes" }
      ]
    }))
    expect({ ...layout, metadataFormat: undefined }).toEqual({ kind: "strava", root: "", metadataEntries: ["activities.csv", "bikes.csv", "shoes.csv"] })
    expect(layout.metadataFormat(layout.metadataEntries[0]!)).toEqual(stravaMetadataFormat)
    expect(plan.activities.map((a) => [a.entry, a.format])).toEqual([
      ["activities/10000000000.fit.gz", "fit"], ["activities/10000000001.fit.gz", "fit"], ["activities/10000000002.gpx", "gpx"], ["activities/10000000003.tcx.gz", "tcx"]
    ])
    expect(metadataOf(plan, "00.fit.gz")).toEqual({
      name: "Morning run, easy", description: "felt \"good\"\n\nknee ok", sportType: "Run", isCommute: false,
      gear: { name: "Pegasus 40", brand: "Nike", model: "Pegasus", kind: "shoes" }, images: []
    })
    const toWork = metadataOf(plan, "01.fit.gz")!
    expect(toWork.isCommute).toBe(true)
    expect(toWork.gear).toEqual({ name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" })
    expect(toWork.images).toHaveLength(2)
    expect(toWork.images.every((m) => m.startsWith("media/") && m.endsWith(".jpg"))).toBe(true)
    expect(metadataOf(plan, "02.gpx")).toMatchObject({ name: "Snow", sportType: "NordicSki", gear: null, description: null })
    expect(metadataOf(plan, "03.tcx.gz")!.gear).toEqual({ name: "Hoka Clifton", brand: "Hoka", model: "Clifton", kind: "shoes" })
    expect(plan.gear.map((g) => g.name)).toEqual(["Domane", "Pegasus 40", "Hoka Clifton"])
    // the planned routes of routes/ and the other files are no activities
    expect(plan.skipped).toEqual([{ area: ".", entries: 2 }, { area: "routes", entries: 1 }, { area: "clubs", entries: 1 }])
    expect(plan.parts).toEqual([])
  })

  it("Strava zipped again from its folder: the folder holding activities.csv is the export", async () => {
    const [run] = await corpusSources("fit/garmin-fenix5-run.fit")
    const entries = [...stravaExport({ activities: [{ file: run!, name: "Run", photos: 1 }] })].map((e) => ({ ...e, name: `export_1234/${e.name}` }))
    const { layout, plan } = await planOfZip(entries)
    expect(layout.root).toBe("export_1234/")
    expect(plan.activities).toHaveLength(1)
    expect(plan.activities[0]!.metadata).toMatchObject({ name: "Run", images: [expect.stringMatching(/^export_1234\/media\/.*\.jpg$/)] })
  })

  it("Garmin: the parts are opened, their files matched to their summaries by start time (a triathlon's legs each to its own), wellness and settings skipped", async () => {
    const { triathlon, entries } = await garminSample()
    expect(triathlon.starts.length).toBeGreaterThan(1)
    const { contents, layout, plan } = await planOfZip(entries())
    expect(layout.kind).toBe("garmin")
    expect(layout.metadataEntries).toEqual(["DI_CONNECT/DI-Connect-Fitness/athlete@example.org_0_summarizedActivities.json", "DI_CONNECT/DI-Connect-Fitness/athlete@example.org_gear.json"])
    expect(plan.activities).toEqual([])
    expect(plan.parts).toEqual([1, 2].map((n) => `DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part${n}.zip`))
    expect(plan.skipped.map((s) => s.area)).toEqual([
      "DI_CONNECT/DI-Connect-Fitness", "DI_CONNECT/DI-Connect-Wellness", "DI_CONNECT/DI-Connect-Aggregator", "DI_CONNECT/DI-Connect-User",
      "DI_CONNECT/DI-Connect-Metrics", "DI_CONNECT/DI-Connect-Device"
    ])
    const named: Array<[string, string | null, string | null]> = []
    for (const part of plan.parts) {
      const files = await zipContents(contents.get(part)!)
      const { activities, skipped } = planPart([...files.keys()])
      expect(skipped).toEqual([])
      for (const file of activities) {
        for (const activity of await parseActivityFile(new Uint8Array(files.get(file.entry)!), file.format as "fit", file.entry)) {
          const about = matchSummary(plan.summaries, activity.startTime)
          named.push([file.format, about?.name ?? null, about?.sportType ?? null])
        }
      }
    }
    expect(named).toEqual([
      ["fit", "Lisbon Running", "Run"],
      ["fit", "Commute", "Ride"],
      ...triathlon.starts.map((_, leg): [string, string, string | null] => ["fit", `Sprint tri ${leg + 1}`, null]),
      ["tcx", "Treadmill", "VirtualRun"]
    ])
  })

  it("Garmin as its unpacked folder: the same plan from the folder's file paths", async () => {
    const [run] = await corpusSources("fit/garmin-fenix5-run.fit")
    const dir = tempDir()
    const entries = garminExport({ activities: [{ file: run!, name: "Run" }] })
    writeFolder(dir, entries)
    const files = (fs.readdirSync(dir, { recursive: true }) as Array<string>).filter((f) => fs.statSync(path.join(dir, f)).isFile())
    const layout = recogniseExport(files)
    const plan = planExport(layout, files, await recordsOfTexts(layout.metadataEntries.map((e) => [e, fs.readFileSync(path.join(dir, e), "utf8")]), layout.metadataFormat))
    expect(plan.parts).toEqual(["DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip"])
    expect(matchSummary(plan.summaries, run!.starts[0]! + 4_000)?.name).toBe("Run")
  })

  it("Garmin unpacked in a subfolder of the watch folder: its parts known by their path, its summaries read from its folder, one id for all its parts", async () => {
    const [run] = await corpusSources("fit/garmin-fenix5-run.fit")
    const watch = tempDir()
    writeFolder(path.join(watch, "my garmin"), garminExport({ activities: [{ file: run!, name: "Run" }] }))
    const part = "my garmin/DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip"
    expect([garminExportFolder(part), isFolderGarminPart(part)]).toEqual(["my garmin/", true])
    expect(garminExportFolder("DI_CONNECT/DI-Connect-Wellness/sleep.json")).toBe("")
    expect([garminExportFolder("rides/a.fit"), isFolderGarminPart("rides/UploadedFiles_0-_Part1.zip"), garminExportFolder("DI_CONNECT")]).toEqual([null, false, null])
    const folderOf = (folder: string) => folderMetadata(watch, folder, new MetadataBudget(DEFAULT_EXPORT_METADATA_LIMITS))
    const { archive, records } = await folderOf("my garmin/")
    expect([...records.keys()]).toEqual(["DI_CONNECT/DI-Connect-Fitness/athlete@example.org_0_summarizedActivities.json", "DI_CONNECT/DI-Connect-Fitness/athlete@example.org_gear.json"])
    expect(matchSummary(garminMetadataOf(records).summaries, run!.starts[0]!)?.name).toBe("Run")
    expect((await folderOf("my garmin/")).archive).toBe(archive)
    expect(await folderOf("gone/")).toEqual({ archive: expect.stringMatching(/^garmin-folder-/), records: new Map() })
    expect(garminFolderSkipped("my garmin/")).toMatch(/^"my garmin" in the watch folder is a Garmin Connect export: /)
  })

  it("FitTrackee: workout_files/ with their workout's title, sport, description and notes, equipment; a KML workout; the GPX twins of old versions skipped", async () => {
    const { layout, plan } = await planOfZip((await fitTrackeeSample("Walk"))())
    expect({ ...layout, metadataFormat: undefined }).toEqual({ kind: "fittrackee", root: "", metadataEntries: ["user_workouts_data.json", "user_equipments_data.json"] })
    expect(layout.metadataFormat(layout.metadataEntries[0]!)).toEqual({ kind: "json" })
    expect(plan.activities.map((a) => a.format)).toEqual(["fit", "gpx", "kml"])
    expect(plan.activities[0]!.metadata).toEqual({
      name: "Ride to work", description: "rain\n\nflat tyre", sportType: "Ride", isCommute: true,
      gear: { name: "Gravel bike", brand: null, model: null, kind: "bike" }, images: []
    })
    expect(plan.activities[1]!.metadata).toMatchObject({ name: "Trail", sportType: "TrailRun", isCommute: false, gear: { name: "Speedgoat", kind: "shoes" } })
    expect(plan.activities[2]!.metadata).toMatchObject({ name: "Walk", sportType: "Walk", gear: null })
    expect(plan.gear.map((g) => [g.name, g.kind])).toEqual([["Gravel bike", "bike"], ["Speedgoat", "shoes"], ["Helmet", "other"]])
    // the two GPX twins of the FIT and KML, the user's data and picture
    expect(plan.skipped).toEqual([{ area: "workout_files", entries: 2 }, { area: ".", entries: 3 }])
  })

  it("Endurain: activity_files/<id> with its activity's name, sport code, description, gear and photos; a commuting ride is a commute", async () => {
    const [ride, run, gpx] = await corpusSources("fit/garmin-edge820-commute-ride.fit", "fit/garmin-fenix5-run.fit", "gpx/strava-run-gpxtpx-hr.gpx")
    const { layout, plan } = await planOfZip(endurainExport({
      activities: [
        { file: ride!, name: "To the office", sport: "27", gear: "Brompton", photos: 2, description: "windy", privateNote: "late" },
        { file: run!, name: "Track session", sport: "34", gear: "Spikes" },
        { file: gpx!, name: "Treadmill", sport: "40" }
      ],
      gear: [{ name: "Brompton", brand: "Brompton", model: "C Line", kind: "bike" }, { name: "Spikes", brand: "Nike", model: "Zoom", kind: "shoes" }]
    }))
    expect({ ...layout, metadataFormat: undefined }).toEqual({ kind: "endurain", root: "", metadataEntries: ["data/activities.json", "data/gears.json"] })
    expect(layout.metadataFormat(layout.metadataEntries[0]!)).toEqual({ kind: "json" })
    expect(plan.activities.map((a) => a.entry)).toEqual(["activity_files/100.fit", "activity_files/101.fit", "activity_files/102.gpx"])
    expect(plan.activities[0]!.metadata).toEqual({
      name: "To the office", description: "windy\n\nlate", sportType: "Ride", isCommute: true,
      gear: { name: "Brompton", brand: "Brompton", model: "C Line", kind: "bike" },
      images: ["activity_media/100_photo0.jpg", "activity_media/100_photo1.jpg"]
    })
    expect(plan.activities[1]!.metadata).toMatchObject({ sportType: "Run", isCommute: false, gear: { name: "Spikes", kind: "shoes" } })
    expect(plan.activities[2]!.metadata).toMatchObject({ sportType: "VirtualRun", gear: null, images: [] })
    expect(plan.skipped.map((s) => s.area)).toEqual(["data", "user_images", "."])
  })

  it("an archive of no known layout: its activity files, without metadata; an archive inside is named nested", async () => {
    const [run] = await corpusSources("fit/garmin-fenix5-run.fit")
    const { layout, plan } = await planOfZip([
      { name: "rides/a.fit", data: run!.bytes }, { name: "b.gpx.gz", data: "x" }, { name: "notes.txt", data: "x" }, { name: "old/more.zip", data: "x" },
      { name: "__MACOSX/rides/._a.fit", data: "x" }, { name: ".DS_Store", data: "x" }, { name: "photo.jpg", data: TINY_JPEG }
    ])
    expect(layout.kind).toBe("unknown")
    expect(plan.activities.map((a) => [a.entry, a.format, a.metadata])).toEqual([["rides/a.fit", "fit", null], ["b.gpx.gz", "gpx", null]])
    expect(plan.nested).toEqual(["old/more.zip"])
    expect(plan.skipped).toEqual([{ area: ".", entries: 2 }])
  })
})
