import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../../../support/corpus.ts"
import {
  asZip, corpusSources, endurainExport, fitTrackeeSample, garminExport, garminSample, stravaExport, writeFolder
} from "../../../support/exportArchives.ts"
import { daemonLayer, importRows, type Root, scopedRoot, waitFor } from "../../../support/ImportHarness.ts"
import { readChannel, send } from "../../../support/TestDaemon.ts"
import { summariesOfTexts } from "../../../support/metadataTexts.ts"
import type { ZipEntry } from "../../../support/zipWriter.ts"

/**
 * Each peer's export, built in its real layout from the corpus, dropped into the watch folder of
 * a daemon as a person would: every activity file gets its own row saying which export it came
 * from, and its activities what the export says of them.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)


/** Moves the export into the watch folder at once (written beside it first, as a finished download). */
const drop = (root: Root, name: string, entries: Iterable<ZipEntry>) => {
  const staged = path.join(root.root, name)
  fs.writeFileSync(staged, asZip(entries))
  fs.renameSync(staged, path.join(root.watchDir, name))
}

/** Waits for `count` rows that are not queued; answers every row with its activities as the API shows them. */
const importedRows = (count: number) =>
  Effect.gen(function*() {
    const rows = yield* waitFor(`${count} import rows`, Effect.map(importRows(), (rows) => (rows.length >= count ? rows : undefined)), { timeout: "90 seconds" })
    const sql = yield* SqlClient.SqlClient
    const answer: Array<{ filename: string; status: string; source: string; error: string | null; activities: Array<any> }> = []
    for (const row of rows) {
      const [stored] = yield* sql<{ source: string; activity_ids: string | null }>`SELECT source, activity_ids FROM file_imports WHERE id = ${row.id}`
      const ids: Array<string> = stored?.activity_ids ? JSON.parse(stored.activity_ids) : row.activity_id ? [row.activity_id] : []
      const activities: Array<any> = []
      for (const id of ids) activities.push((yield* send("GET", `/api/v1/activities/${id}`)).json)
      answer.push({ filename: row.filename, status: row.status, source: stored!.source, error: row.error_message, activities })
    }
    return answer
  })

/** What is kept until each file of an export is imported: nothing once all are. */
const nothingKept = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* waitFor("what the export said, all taken", Effect.gen(function*() {
    const [m] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM export_metadata`
    const [s] = yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM export_summaries`
    return m!.n + s!.n === 0 ? true : undefined
  }))
})

const daemonMessages = Effect.map(readChannel("daemon"), (lines) => lines.map((l) => l.message))

const gearRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ name: string; brand: string | null; model: string | null; kind: string | null }>`SELECT name, brand, model, kind FROM gear ORDER BY name`)

describe.skipIf(!CORPUS_DIR)("exports dropped into the watch folder", () => {
  it.scopedLive("Garmin Connect: every file of its UploadedFiles parts imported, named, typed and described by its summaries (a triathlon's legs each by its own); wellness and settings skipped without a row, named in the log", () =>
    Effect.gen(function*() {
      const { triathlon, entries } = yield* Effect.promise(garminSample)
      const root = yield* scopedRoot()
      drop(root, "garmin-export.zip", entries())
      yield* Effect.gen(function*() {
        const rows = yield* importedRows(4)
        expect(rows.map((r) => [r.status, r.source, r.error])).toEqual(rows.map(() => ["success", "garminExport", null]))
        const named = rows.flatMap((r) => r.activities.map((a) => [a.name, a.sportType, a.description]))
        expect(named).toEqual(expect.arrayContaining([
          ["Lisbon Running", "Run", "tempo"],
          ["Commute", "Ride", ""],
          ["Treadmill", "VirtualRun", ""],
          ...triathlon.starts.map((_, leg) => [`Sprint tri ${leg + 1}`, expect.any(String), ""])
        ]))
        expect(named).toHaveLength(3 + triathlon.starts.length)
        yield* nothingKept
        const log = yield* daemonMessages
        const unpacked = log.find((m) => m.startsWith(`unpacked "garmin-export.zip"`))
        expect(unpacked).toMatch(/^unpacked "garmin-export\.zip", a Garmin Connect export: 4 activity files; left out, as they hold no activity: DI_CONNECT\/DI-Connect-Fitness \(\d+ files?\), DI_CONNECT\/DI-Connect-Wellness/)
        // no row for what holds no activity; the export left the folder, and storage once its last file was imported
        expect(rows).toHaveLength(4)
        expect(fs.readdirSync(root.watchDir).filter((f) => !f.startsWith("."))).toEqual([])
        expect(fs.readdirSync(path.join(root.storageDir, "files", "archives"))).toEqual([])
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)

  it.scopedLive("Garmin Connect with its gear file: its bikes and shoes become gear with their make, model and kind, each activity gets the gear the file links to it; GET /api/v1/gear/{id} lists its use", () =>
    Effect.gen(function*() {
      const [run, ride, tcx] = yield* Effect.promise(() => corpusSources("fit/garmin-fenix5-run.fit", "fit/garmin-edge820-commute-ride.fit", "tcx/garmin-fenix6-run.tcx"))
      const root = yield* scopedRoot()
      drop(root, "garmin-export.zip", garminExport({
        activities: [
          { file: ride!, name: "Commute", sport: "road_biking", gear: "Domane" },
          // shoes without a name of their own: Connect names them by make and model
          { file: run!, name: "Lisbon Running", sport: "running", gear: "Nike Pegasus 40" },
          { file: tcx!, name: "Treadmill", sport: "treadmill_running" }
        ],
        gear: [
          { name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" },
          { name: "", brand: "Nike", model: "Pegasus 40", kind: "shoes" },
          // a make Connect does not list, and gear no activity uses
          { name: "Helmet", kind: "other" }
        ]
      }, { partSize: 2 }))
      yield* Effect.gen(function*() {
        const rows = yield* importedRows(3)
        expect(rows.map((r) => [r.status, r.source])).toEqual(rows.map(() => ["success", "garminExport"]))
        const byName = new Map(rows.map((r) => [r.activities[0].name, r.activities[0]]))
        const gear = (yield* send("GET", "/api/v1/gear")).json.gear as Array<any>
        expect(gear.map((g) => [g.name, g.brand, g.model, g.kind, g.type, g.numberOfActivities])).toEqual([
          ["Domane", "Trek", "Domane SL6", "bike", "imported", 1],
          ["Nike Pegasus 40", "Nike", "Pegasus 40", "shoes", "imported", 1],
          ["Helmet", null, null, "other", "imported", 0]
        ])
        const [domane, shoes] = gear
        expect(byName.get("Commute").gearId).toBe(domane.id)
        expect(byName.get("Lisbon Running").gearId).toBe(shoes.id)
        expect(byName.get("Treadmill").gearId ?? null).toBeNull()
        const one = (yield* send("GET", `/api/v1/gear/${domane.id}`)).json
        expect(one).toMatchObject({ name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike", numberOfActivities: 1, distanceInMeter: byName.get("Commute").distanceInMeter })
        expect(one.months).toHaveLength(1)
        const used = (yield* send("GET", `/api/v1/activities?filters[gearId]=${shoes.id}`)).json.activities
        expect(used.map((a: any) => a.name)).toEqual(["Lisbon Running"])
        yield* nothingKept
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)

  it.scopedLive("Garmin Connect unpacked into a subfolder of the watch folder: its parts imported with its summaries and gear, the rest named once in the log and left in place", () =>
    Effect.gen(function*() {
      const [run, ride] = yield* Effect.promise(() => corpusSources("fit/garmin-fenix5-run.fit", "fit/garmin-edge820-commute-ride.fit"))
      const root = yield* scopedRoot()
      const staged = path.join(root.root, "garmin")
      writeFolder(staged, garminExport({
        activities: [{ file: run!, name: "Run by the river", sport: "trail_running" }, { file: ride!, name: "Ride home", gear: "Domane" }],
        gear: [{ name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" }]
      }))
      fs.renameSync(staged, path.join(root.watchDir, "garmin"))
      yield* Effect.gen(function*() {
        const rows = yield* importedRows(2)
        expect(rows.map((r) => [r.status, r.source])).toEqual([["success", "garminExport"], ["success", "garminExport"]])
        expect(rows.map((r) => r.activities[0].name).sort()).toEqual(["Ride home", "Run by the river"])
        expect(rows.find((r) => r.activities[0].name === "Run by the river")!.activities[0].sportType).toBe("TrailRun")
        expect(yield* gearRows).toEqual([{ name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" }])
        const gear = (yield* send("GET", "/api/v1/gear")).json.gear
        expect(rows.find((r) => r.activities[0].name === "Ride home")!.activities[0].gearId).toBe(gear[0].id)
        yield* nothingKept
        const log = yield* daemonMessages
        expect(log.filter((m) => m.includes("is a Garmin Connect export"))).toEqual([
          `"garmin" in the watch folder is a Garmin Connect export: the activity files of its DI_CONNECT/DI-Connect-Uploaded-Files parts are imported, named by its summaries; the rest of it (wellness, sleep, settings, the summaries themselves) is not imported and is left where it is.`
        ])
        expect(log.filter((m) => m.includes("is not imported: only"))).toEqual([])
        // the summaries are still there for the person; the part is gone, its files imported
        const summaries = path.join(root.watchDir, "garmin", "DI_CONNECT", "DI-Connect-Fitness", "athlete@example.org_0_summarizedActivities.json")
        expect(yield* Effect.promise(() => summariesOfTexts([fs.readFileSync(summaries, "utf8")]))).toHaveLength(2)
        expect(fs.existsSync(path.join(root.watchDir, "garmin", "DI_CONNECT", "DI-Connect-Uploaded-Files", "UploadedFiles_0-_Part1.zip"))).toBe(false)
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)

  it.scopedLive("Strava, complete: bikes.csv and shoes.csv become gear (brand, model, kind), the activities that name it get it, media/ photos become their images; the same ride exported by Garmin before is skipped naming it", () =>
    Effect.gen(function*() {
      const [run, ride, gpx] = yield* Effect.promise(() => corpusSources("fit/garmin-fenix5-run.fit", "fit/garmin-edge820-commute-ride.fit", "gpx/strava-run-gpxtpx-hr.gpx"))
      const root = yield* scopedRoot()
      yield* Effect.gen(function*() {
        drop(root, "garmin.zip", garminExport({ activities: [{ file: ride!, name: "Ride to work" }] }))
        const [first] = yield* importedRows(1)
        drop(root, "export_12345.zip", stravaExport({
          activities: [
            { file: run!, name: "Morning run", sport: "Run", description: "easy", privateNote: "knee ok", gear: "Pegasus 40", photos: 2 },
            { file: ride!, name: "To work", sport: "Ride", commute: true, gear: "Domane" },
            { file: gpx!, name: "Snow", sport: "Nordic Ski" }
          ],
          gear: [
            { name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" },
            { name: "Pegasus 40", brand: "Nike", model: "Pegasus", kind: "shoes" },
            { name: "Old hack", brand: "Peugeot", model: "PX10", kind: "bike" }
          ]
        }))
        const rows = (yield* importedRows(4)).slice(1)
        expect(rows.map((r) => r.source)).toEqual(["stravaExport", "stravaExport", "stravaExport"])
        const byStatus = (status: string) => rows.filter((r) => r.status === status)
        expect(byStatus("skipped")).toHaveLength(1)
        expect(byStatus("skipped")[0]!.error).toContain(first!.activities[0].id)
        const runRow = rows.find((r) => r.activities[0]?.name === "Morning run")!
        const morning = runRow.activities[0]
        expect(morning).toMatchObject({ description: "easy\n\nknee ok", sportType: "Run" })
        expect(morning.images).toHaveLength(2)
        const gear = (yield* send("GET", "/api/v1/gear")).json.gear as Array<{ id: string; name: string }>
        expect(gear.find((g) => g.id === morning.gearId)?.name).toBe("Pegasus 40")
        expect(rows.find((r) => r.activities[0]?.name === "Snow")!.activities[0].sportType).toBe("NordicSki")
        // every gear listed, used or not
        expect(yield* gearRows).toEqual([
          { name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" },
          { name: "Old hack", brand: "Peugeot", model: "PX10", kind: "bike" },
          { name: "Pegasus 40", brand: "Nike", model: "Pegasus", kind: "shoes" }
        ])
        yield* nothingKept
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)

  it.scopedLive("FitTrackee: titles, sports, descriptions and notes, equipment kept; its KML workout imported as an activity", () =>
    Effect.gen(function*() {
      const entries = yield* Effect.promise(() => fitTrackeeSample("Evening walk"))
      const root = yield* scopedRoot()
      drop(root, "fittrackee.zip", entries())
      yield* Effect.gen(function*() {
        const rows = yield* importedRows(3)
        expect(rows.map((r) => [r.status, r.source])).toEqual(rows.map(() => ["success", "fitTrackeeExport"]))
        const byName = new Map(rows.map((r) => [r.activities[0].name, r.activities[0]]))
        expect(byName.get("Ride to work")).toMatchObject({ description: "rain\n\nflat tyre", sportType: "Ride", isCommute: true })
        expect(byName.get("Trail")).toMatchObject({ sportType: "TrailRun" })
        expect(byName.get("Evening walk")).toMatchObject({ sportType: "Walk", importSource: "kmlFile" })
        expect(yield* gearRows).toEqual([
          { name: "Gravel bike", brand: null, model: null, kind: "bike" },
          { name: "Helmet", brand: null, model: null, kind: "other" },
          { name: "Speedgoat", brand: null, model: null, kind: "shoes" }
        ])
        yield* nothingKept
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)

  it.scopedLive("Endurain: activity names, sport types, descriptions, gear and photos kept", () =>
    Effect.gen(function*() {
      const [ride, run] = yield* Effect.promise(() => corpusSources("fit/garmin-edge820-commute-ride.fit", "fit/garmin-fenix5-run.fit"))
      const root = yield* scopedRoot()
      drop(root, "endurain.zip", endurainExport({
        activities: [
          { file: ride!, name: "To the office", sport: "27", gear: "Brompton", photos: 1, description: "windy", privateNote: "late" },
          { file: run!, name: "Track session", sport: "34", gear: "Spikes" }
        ],
        gear: [{ name: "Brompton", brand: "Brompton", model: "C Line", kind: "bike" }, { name: "Spikes", brand: "Nike", model: "Zoom", kind: "shoes" }]
      }))
      yield* Effect.gen(function*() {
        const rows = yield* importedRows(2)
        expect(rows.map((r) => [r.status, r.source])).toEqual([["success", "endurainExport"], ["success", "endurainExport"]])
        const byName = new Map(rows.map((r) => [r.activities[0].name, r.activities[0]]))
        expect(byName.get("To the office")).toMatchObject({ description: "windy\n\nlate", sportType: "Ride", isCommute: true })
        expect(byName.get("To the office").images).toHaveLength(1)
        expect(byName.get("Track session")).toMatchObject({ sportType: "Run", isCommute: false })
        expect((yield* gearRows).map((g) => [g.name, g.kind])).toEqual([["Brompton", "bike"], ["Spikes", "shoes"]])
        yield* nothingKept
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)
})
