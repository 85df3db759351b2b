import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { garminSummariesOf } from "../../../../src/services/import/exports/GarminExport.ts"
import * as fs from "node:fs"
import * as path from "node:path"
import { KeptArchives } from "../../../../src/services/import/archives/KeptArchives.ts"
import { GarminSummaries } from "../../../../src/services/import/exports/GarminSummaries.ts"
import { scopedRoot, servicesLayer } from "../../../support/ImportHarness.ts"

const at = (iso: string) => Date.parse(iso)

/** 2,500 days of runs, and a triathlon whose parent and first leg start together. */
const SUMMARIES = garminSummariesOf([[
  ...Array.from({ length: 2500 }, (_, i) => ({ activityId: 100 + i, name: `Run ${i}`, activityType: "running", beginTimestamp: at("2016-01-01T07:00:00Z") + i * 86_400_000 })),
    { activityId: 1, name: "Tri", activityType: "multi_sport", parent: true, startTimeGmt: at("2024-05-01T08:00:00Z") },
    { activityId: 2, name: "Swim leg", activityType: "open_water_swimming", parentId: 1, startTimeGmt: at("2024-05-01T08:00:00Z") },
    { activityId: 3, name: "Bike leg", activityType: "road_biking", parentId: 1, startTimeGmt: at("2024-05-01T08:40:00Z"), description: "windy" }
]])

describe("GarminSummaries and KeptArchives", () => {
  it.scopedLive("summaries kept by archive, matched by start time in the database as in memory; they and the archive's original forgotten once no file of the archive waits", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      yield* Effect.gen(function*() {
        const summaries = yield* GarminSummaries
        const sql = yield* SqlClient.SqlClient
        yield* summaries.keep("archive-a", SUMMARIES)
        yield* summaries.keep("archive-b", SUMMARIES.slice(0, 1))
        expect(yield* summaries.match("archive-a", at("2024-05-01T08:00:03Z"))).toMatchObject({ name: "Swim leg", sportType: "OpenWaterSwim" })
        expect(yield* summaries.match("archive-a", at("2024-05-01T08:41:00Z"))).toMatchObject({ name: "Bike leg", sportType: "Ride", description: "windy" })
        expect((yield* summaries.match("archive-a", at("2020-01-01T07:04:00Z")))?.name).toBe(`Run ${(at("2020-01-01T07:00:00Z") - at("2016-01-01T07:00:00Z")) / 86_400_000}`)
        expect(yield* summaries.match("archive-a", at("2024-05-01T08:20:00Z"))).toBeNull()
        // another archive's summaries are not this one's
        expect(yield* summaries.match("archive-b", at("2024-05-01T08:00:00Z"))).toBeNull()

        // the archives' originals, kept beside them
        const archives = yield* KeptArchives
        const zips = path.join(root.root, "zips")
        fs.mkdirSync(zips)
        for (const name of ["a.zip", "b.zip"]) fs.writeFileSync(path.join(zips, name), name)
        yield* archives.keep(path.join(zips, "a.zip"), "archive-a")
        yield* archives.keep(path.join(zips, "b.zip"), "archive-b")
        const kept = () => fs.readdirSync(path.join(root.storageDir, "files", "archives")).sort()
        expect(kept()).toEqual(["archive-a--a.zip", "archive-b--b.zip"])

        // a file of archive-a still waits: its summaries and original stay, archive-b's go
        yield* sql`INSERT INTO export_metadata (filename, metadata, archive, source) VALUES ('a.fit', '{}', 'archive-a', 'garminExport')`
        yield* archives.sweep()
        expect((yield* sql<{ archive: string; n: number }>`SELECT archive, COUNT(*) AS n FROM export_summaries GROUP BY archive`)).toEqual([{ archive: "archive-a", n: SUMMARIES.length }])
        expect(kept()).toEqual(["archive-a--a.zip"])
        expect(yield* archives.forgetIfDone("archive-a")).toBe(false)
        // its last file taken: done
        yield* sql`DELETE FROM export_metadata`
        expect(yield* archives.forgetIfDone("archive-a")).toBe(true)
        yield* archives.remove("archive-a")
        expect((yield* sql<{ n: number }>`SELECT COUNT(*) AS n FROM export_summaries`)[0]!.n).toBe(0)
        expect(kept()).toEqual([])
      }).pipe(Effect.provide(Layer.mergeAll(GarminSummaries.Default, KeptArchives.Default).pipe(Layer.provideMerge(servicesLayer(root)))))
    }))
})
