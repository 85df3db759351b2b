import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ExportMetadata } from "../../../../src/services/import/archives/ExportMetadata.ts"
import { send } from "../../../support/TestDaemon.ts"
import { daemonLayer, dayStart, gpxActivity, scopedRoot, servicesLayer, waitFor, waitForRow } from "../../../support/ImportHarness.ts"

/**
 * What a Strava export's activities.csv says about its files outlives the process: a daemon
 * stopped after unpacking a large export and before importing all of it gives the files left
 * their names, descriptions, commute flags and gear when it starts again.
 */
describe("export metadata", () => {
  it.scopedLive("files unpacked before a restart are imported with what activities.csv said; what no file is left for is forgotten", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      // the state a daemon stopped between the unpacking and the import leaves behind
      yield* Effect.gen(function*() {
        const metadata = yield* ExportMetadata
        yield* metadata.keep(new Map([
          ["777.gpx", { name: "Tour des Flandres", description: "Cobbles", isCommute: true, gear: "Old steel" }],
          ["gone.gpx", { name: "Imported elsewhere", description: null, isCommute: false, gear: null }]
        ]))
      }).pipe(Effect.provide(servicesLayer(root)))
      fs.writeFileSync(path.join(root.watchDir, "777.gpx"), gpxActivity({ start: dayStart(3), seconds: 900 }))

      yield* Effect.gen(function*() {
        const row = yield* waitForRow("777.gpx", "20 seconds")
        expect(row.status).toBe("success")
        const activity = yield* waitFor("the export's name", Effect.map(send("GET", `/api/v1/activities/${row.activity_id}`), (a) =>
          a.json?.name === "Tour des Flandres" ? a.json : undefined))
        expect(activity).toMatchObject({ description: "Cobbles", isCommute: true })
        const gear = (yield* send("GET", "/api/v1/gear")).json.gear as Array<{ id: string; name: string }>
        expect(gear.find((g) => g.id === activity.gearId)?.name).toBe("Old steel")
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT filename FROM export_metadata`).toEqual([])
      }).pipe(Effect.provide(daemonLayer(root)))
    }))
})
