import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { identityOf } from "../../../../src/services/import/files/FileOnDisk.ts"
import { UnpackedEntries, zipKey } from "../../../../src/services/import/archives/UnpackedEntries.ts"
import { ExportMetadata } from "../../../../src/services/import/archives/ExportMetadata.ts"
import { ImportService } from "../../../../src/services/import/ImportService.ts"
import { send } from "../../../support/TestDaemon.ts"
import { zipOf } from "../../../support/zipOf.ts"
import { daemonLayer, dayStart, gpxActivity, importRows, listFiles, scopedRoot, servicesLayer, waitFor, waitForRow } from "../../../support/ImportHarness.ts"

/**
 * What an export says about its files outlives the process: a daemon stopped after unpacking a
 * large export and before importing all of it gives the files left their names, descriptions,
 * commute flags and gear when it starts again, what an older version kept included. What was
 * kept for other bytes than the file's (a file that took the name) is not the file's.
 */
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

describe("export metadata", () => {
  it.scopedLive("files unpacked before a restart are imported with what the export said; what no file is left for is forgotten", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const kept = gpxActivity({ start: dayStart(3), seconds: 900 })
      const older = gpxActivity({ start: dayStart(4), seconds: 900 })
      const stranger = gpxActivity({ start: dayStart(5), seconds: 900 })
      // the state a daemon stopped between the unpacking and the import leaves behind
      yield* Effect.gen(function*() {
        const metadata = yield* ExportMetadata
        yield* metadata.keep([
          {
            filename: "777.gpx",
            contentHash: sha256(kept),
            source: "stravaExport",
            archive: null,
            metadata: {
              name: "Tour des Flandres",
              description: "Cobbles",
              sportType: null,
              isCommute: true,
              gear: { name: "Old steel", brand: "Colnago", model: "Master", kind: "bike" },
              images: []
            }
          },
          {
            filename: "gone.gpx",
            contentHash: sha256("gone"),
            source: "stravaExport",
            archive: null,
            metadata: { name: "Imported elsewhere", description: null, sportType: null, isCommute: false, gear: null, images: [] }
          },
          {
            filename: "taken.gpx",
            contentHash: sha256("the export's own file"),
            source: "stravaExport",
            archive: null,
            metadata: { name: "Not the stranger's", description: null, sportType: null, isCommute: true, gear: null, images: [] }
          }
        ])
        // what a version before the bytes and the gear's make were kept wrote
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO export_metadata (filename, metadata) VALUES ('older.gpx', ${
          JSON.stringify({ name: "Ronde van Vlaanderen", description: null, isCommute: false, gear: "Old steel" })
        })`
      }).pipe(Effect.provide(servicesLayer(root)))
      fs.writeFileSync(path.join(root.watchDir, "777.gpx"), kept)
      fs.writeFileSync(path.join(root.watchDir, "older.gpx"), older)
      fs.writeFileSync(path.join(root.watchDir, "taken.gpx"), stranger)

      yield* Effect.gen(function*() {
        const row = yield* waitForRow("777.gpx")
        expect(row.status).toBe("success")
        const activity = (yield* send("GET", `/api/v1/activities/${row.activity_id}`)).json
        expect(activity).toMatchObject({ name: "Tour des Flandres", description: "Cobbles", isCommute: true })
        const gear = (yield* send("GET", "/api/v1/gear")).json.gear as Array<{ id: string; name: string }>
        expect(gear.find((g) => g.id === activity.gearId)?.name).toBe("Old steel")
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT name, brand, model, kind FROM gear`).toEqual([{ name: "Old steel", brand: "Colnago", model: "Master", kind: "bike" }])
        const legacy = (yield* send("GET", `/api/v1/activities/${(yield* waitForRow("older.gpx")).activity_id}`)).json
        expect(legacy).toMatchObject({ name: "Ronde van Vlaanderen", gearId: activity.gearId })
        const strangers = (yield* send("GET", `/api/v1/activities/${(yield* waitForRow("taken.gpx")).activity_id}`)).json
        expect(strangers).toMatchObject({ name: "Test track", isCommute: false })
        yield* waitFor("every kept row taken or forgotten", Effect.map(sql`SELECT filename FROM export_metadata`, (rows) => (rows.length === 0 ? true : undefined)))
      }).pipe(Effect.provide(daemonLayer(root)))
    }))

  it.scopedLive("an export unpacked again after a stop that left some of its files in the folder lets none of them in twice", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const first = gpxActivity({ start: dayStart(6), seconds: 900 })
      const second = gpxActivity({ start: dayStart(7), seconds: 900 })
      const zip = zipOf([
        { name: "activities/111.gpx", data: first },
        { name: "activities/222.gpx", data: second },
        {
          name: "activities.csv",
          data: "Activity ID,Activity Name,Commute,Activity Gear,Filename\n111,Morning loop,true,Old steel,activities/111.gpx\n222,Evening loop,false,,activities/222.gpx\n"
        }
      ])
      // the state a stop after the first file entered the folder leaves: that file, what was kept for it, the journal of the unpacking, and the zip
      fs.writeFileSync(path.join(root.watchDir, "111.gpx"), first)
      fs.writeFileSync(path.join(root.watchDir, "export.zip"), zip)
      const zipIdentity = identityOf(fs.statSync(path.join(root.watchDir, "export.zip")))
      yield* Effect.gen(function*() {
        const metadata = yield* ExportMetadata
        yield* metadata.keep([{
          filename: "111.gpx",
          contentHash: sha256(first),
          source: "stravaExport",
          archive: "zip-before",
          metadata: { name: "Morning loop", description: null, sportType: null, isCommute: true, gear: null, images: [] }
        }])
        yield* (yield* UnpackedEntries).record(zipKey("export.zip", zipIdentity), [{ entry: "-:0", archive: "zip-before", filename: "111.gpx", contentHash: sha256(first) }])
        yield* (yield* ImportService).prepareEntry("export.zip")
        expect(listFiles(root.watchDir).filter((name) => !name.startsWith("."))).toEqual(["111.gpx", "222.gpx"])
        expect((yield* metadata.find("222.gpx", sha256(second)))?.metadata?.name).toBe("Evening loop")
      }).pipe(Effect.provide(servicesLayer(root)))

      yield* Effect.gen(function*() {
        for (const [name, title] of [["111.gpx", "Morning loop"], ["222.gpx", "Evening loop"]] as const) {
          const row = yield* waitForRow(name)
          expect(row.status, name).toBe("success")
          expect((yield* send("GET", `/api/v1/activities/${row.activity_id}`)).json.name).toBe(title)
        }
        expect((yield* importRows()).map((r) => r.filename).sort()).toEqual(["111.gpx", "222.gpx"])
      }).pipe(Effect.provide(daemonLayer(root)))
    }))
})
