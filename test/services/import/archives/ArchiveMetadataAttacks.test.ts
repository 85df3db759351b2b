import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { asZip, writeFolder } from "../../../support/exportArchives.ts"
import { daemonLayer, dayStart, gpxActivity, importRows, type Root, scopedRoot, waitFor } from "../../../support/ImportHarness.ts"
import { send } from "../../../support/TestDaemon.ts"
import type { ZipEntry } from "../../../support/zipWriter.ts"

/**
 * The attacks on an export's metadata, each on a daemon whose metadata limits are lowered so
 * that its payload, made here, stays small: ninety Garmin summaries of blanks, sparse summaries
 * of a Garmin export unpacked in the folder, a Garmin gear file of too many links, a Strava CSV
 * field larger than a record, more rows than an archive may hold. Each archive gets one `failed` row naming the metadata file, the
 * daemon keeps answering, and an export within the limits dropped after them is imported whole
 * with what it says.
 */

const LIMITS = {
  EXPORT_METADATA_MAX_FILESIZE: "64K",
  EXPORT_METADATA_MAX_SIZE: "256K",
  EXPORT_METADATA_MAX_RECORD_SIZE: "4K",
  EXPORT_METADATA_MAX_RECORDS: "2000"
}

const SUMMARIES = "DI_CONNECT/DI-Connect-Fitness"
const PART = "DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip"
const gpx = (day: number) => gpxActivity({ start: dayStart(day), seconds: 600 })

/** Moves the zip into the watch folder at once (written beside it first, as a finished download). */
const drop = (root: Root, name: string, entries: Iterable<ZipEntry>) => {
  const staged = path.join(root.root, name)
  fs.writeFileSync(staged, asZip(entries))
  fs.renameSync(staged, path.join(root.watchDir, name))
}

/** The rows of `filename`, once there is one that is not queued. */
const finalRows = (filename: string) =>
  waitFor(`the row of ${filename}`, Effect.map(importRows(filename), (rows) => (rows.some((r) => r.status !== "queued") ? rows : undefined)), {
    timeout: "90 seconds"
  })

describe("attacks on an export's metadata", () => {
  it.scopedLive("each archive past a metadata limit fails once, naming the file; the daemon answers throughout; an export within the limits is imported after them", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot(LIMITS)
      yield* Effect.gen(function*() {
        // ninety summaries of blanks (63 MB each, 5.8 MB zipped, scaled down): each within a file's bound, together past the archive's
        drop(root, "garmin-blanks.zip", [
          ...Array.from({ length: 90 }, (_, i): ZipEntry => ({ name: `${SUMMARIES}/a_${i}_summarizedActivities.json`, data: `[${" ".repeat(60 * 1024)}]` })),
          { name: PART, data: asZip([{ name: "a_1.gpx", data: gpx(1) }]), deflate: false }
        ])
        // one summary larger than a file may be, its header truthful
        drop(root, "garmin-big.zip", [
          { name: `${SUMMARIES}/a_0_summarizedActivities.json`, data: `[{"summarizedActivitiesExport":[${" ".repeat(70 * 1024)}]}]` },
          { name: PART, data: asZip([{ name: "a_2.gpx", data: gpx(2) }]), deflate: false }
        ])
        // a gear file linking more activities than an archive's metadata may hold: each link is a record
        drop(root, "garmin-gear.zip", [
          { name: `${SUMMARIES}/a_gear.json`, data: JSON.stringify([{ gearDTOS: [{ gearPk: 1, displayName: "Bike" }], gearActivityDTOs: { 1: Array.from({ length: 2001 }, (_, i) => ({ gearPk: 1, activityId: i })) } }]) },
          { name: PART, data: asZip([{ name: "a_7.gpx", data: gpx(7) }]), deflate: false }
        ])
        // Strava: one quoted field larger than a record (the 50 MB field, scaled down)
        drop(root, "strava-field.zip", [
          { name: "activities.csv", data: `Activity ID,Activity Name,Filename\n1,"${"x".repeat(20 * 1024)}",activities/1.gpx\n` },
          { name: "activities/1.gpx", data: gpx(3) }
        ])
        // Strava: more rows than an archive's metadata may hold (the million rows, scaled down)
        drop(root, "strava-rows.zip", [
          { name: "activities.csv", data: `Activity ID,Filename\n${Array.from({ length: 2001 }, (_, i) => `${i},activities/${i}.gpx`).join("\n")}\n` },
          { name: "activities/1.gpx", data: gpx(4) }
        ])
        // a Garmin export unpacked in the folder with sparse summaries (300 MB each, 72 KB on disk, scaled down)
        const staged = path.join(root.root, "garmin-folder")
        writeFolder(staged, [{ name: PART, data: asZip([{ name: "a_5.gpx", data: gpx(5) }]), deflate: false }])
        for (let i = 0; i < 16; i++) {
          const summary = path.join(staged, SUMMARIES, `a_${i}_summarizedActivities.json`)
          fs.mkdirSync(path.dirname(summary), { recursive: true })
          fs.writeFileSync(summary, "[")
          fs.truncateSync(summary, 1024 * 1024)
        }
        fs.renameSync(staged, path.join(root.watchDir, "garmin-folder"))

        const failures = {
          "garmin-blanks.zip": /^"garmin-blanks\.zip" was not unpacked: its metadata files are larger than 256 KB together \(EXPORT_METADATA_MAX_SIZE\), past it at "DI_CONNECT\/DI-Connect-Fitness\/a_\d+_summarizedActivities\.json"\.$/,
          "garmin-big.zip": /^"garmin-big\.zip" was not unpacked: its metadata file "DI_CONNECT\/DI-Connect-Fitness\/a_0_summarizedActivities\.json" is larger than 64 KB \(EXPORT_METADATA_MAX_FILESIZE\)\.$/,
          "garmin-gear.zip": /^"garmin-gear\.zip" was not unpacked: its metadata files hold more than 2000 records \(EXPORT_METADATA_MAX_RECORDS\), past it at "DI_CONNECT\/DI-Connect-Fitness\/a_gear\.json"\.$/,
          "strava-field.zip": /^"strava-field\.zip" was not unpacked: its metadata file "activities\.csv" has a record larger than 4 KB \(EXPORT_METADATA_MAX_RECORD_SIZE\)\.$/,
          "strava-rows.zip": /^"strava-rows\.zip" was not unpacked: its metadata files hold more than 2000 records \(EXPORT_METADATA_MAX_RECORDS\), past it at "activities\.csv"\.$/,
          [`garmin-folder/${PART}`]: /was not unpacked: its metadata file "DI_CONNECT\/DI-Connect-Fitness\/a_0_summarizedActivities\.json" is larger than 64 KB \(EXPORT_METADATA_MAX_FILESIZE\)\.$/
        }
        for (const [filename, message] of Object.entries(failures)) {
          const rows = yield* finalRows(filename)
          expect(rows.map((r) => r.status)).toEqual(["failed"])
          expect(rows[0]!.error_message, rows[0]!.error_message ?? "").toMatch(message)
          expect((yield* send("GET", "/api/v1/status")).status).toBe(200)
        }

        // within the limits: imported with what it says, after all of them
        drop(root, "strava-fine.zip", [
          { name: "activities.csv", data: `Activity ID,Activity Name,Activity Type,Filename\n6,"Evening, easy",Run,activities/6.gpx\n` },
          { name: "activities/6.gpx", data: gpx(6) }
        ])
        const [fine] = yield* finalRows("6.gpx")
        expect(fine!.status).toBe("success")
        expect((yield* send("GET", `/api/v1/activities/${fine!.activity_id}`)).json).toMatchObject({ name: "Evening, easy", sportType: "Run" })

        // nothing imported from the archives refused, nothing twice: one row each, no activity but the last
        const rows = yield* importRows()
        expect(rows.map((r) => r.filename).sort()).toEqual([...Object.keys(failures), "6.gpx"].sort())
        expect((yield* send("GET", "/api/v1/activities")).json.pagination.total).toBe(1)
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 240_000)
})
