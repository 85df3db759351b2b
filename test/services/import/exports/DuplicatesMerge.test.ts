import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../../../support/corpus.ts"
import { asZip, corpusSource, garminExport, type SourceFile, stravaExport } from "../../../support/exportArchives.ts"
import { daemonLayer, importRows, type Root, scopedRoot, waitFor } from "../../../support/ImportHarness.ts"
import { send } from "../../../support/TestDaemon.ts"
import type { ZipEntry } from "../../../support/zipWriter.ts"
import { isAutomaticName, joinedChanges, joinedSentence } from "../../../../src/services/import/DuplicateJoin.ts"

/**
 * The same ride exported by Garmin Connect and by Strava, dropped one after the other in either
 * order: the second copy is skipped, and what it knows that the first does not joins the kept
 * activity (Strava's name, gear, commute flag and photos; Garmin's description), said in the
 * skipped row's message; what the athlete set by hand stays.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const drop = (root: Root, name: string, entries: Iterable<ZipEntry>) => {
  const staged = path.join(root.root, name)
  fs.writeFileSync(staged, asZip(entries))
  fs.renameSync(staged, path.join(root.watchDir, name))
}

const garmin = (ride: SourceFile) => garminExport({ activities: [{ file: ride, name: "Porto Road Cycling", sport: "road_biking", description: "legs heavy" }] })
const strava = (ride: SourceFile) =>
  stravaExport({
    activities: [{ file: ride, name: "Sunday loop with Ana", sport: "Ride", commute: true, gear: "Domane", photos: 2 }],
    gear: [{ name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" }]
  })

/** Waits for `count` rows that are not queued. */
const rowsDone = (count: number) =>
  waitFor(`${count} import rows`, Effect.map(importRows(), (rows) => (rows.length >= count && rows.every((r) => r.status !== "queued") ? rows : undefined)))

const activity = (id: string) => Effect.map(send("GET", `/api/v1/activities/${id}`), (r) => r.json)

const merged = { name: "Sunday loop with Ana", description: "legs heavy", isCommute: true }

describe.skipIf(!CORPUS_DIR)("the same ride from a Garmin and a Strava export", () => {
  for (const order of [["garmin", "strava"], ["strava", "garmin"]] as const) {
    it.scopedLive(`${order.join(" then ")}: one activity with the name, description, gear, commute flag and photos of both; the skipped row says what joined`, () =>
      Effect.gen(function*() {
        const ride = yield* Effect.promise(() => corpusSource("fit/garmin-edge1000-ride.fit"))
        const root = yield* scopedRoot()
        yield* Effect.gen(function*() {
          const exports = { garmin: () => garmin(ride), strava: () => strava(ride) }
          drop(root, `${order[0]}.zip`, exports[order[0]]())
          const [first] = yield* rowsDone(1)
          expect(first!.status).toBe("success")
          drop(root, `${order[1]}.zip`, exports[order[1]]())
          const [, second] = yield* rowsDone(2)
          expect(second!.status).toBe("skipped")
          const kept = yield* activity(first!.activity_id!)
          expect(kept).toMatchObject(merged)
          expect(kept.images).toHaveLength(2)
          const gear = (yield* send("GET", "/api/v1/gear")).json.gear
          expect(gear).toEqual([expect.objectContaining({ id: kept.gearId, name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike", numberOfActivities: 1 })])
          const joined = order[0] === "garmin"
            ? "Its name, gear, commute flag and 2 photos joined that activity."
            : "Its description joined that activity."
          expect(second!.error_message).toContain(kept.id)
          expect(second!.error_message!.endsWith(`. ${joined}`), second!.error_message!).toBe(true)
          expect((yield* send("GET", "/api/v1/activities")).json.pagination.total).toBe(1)
        }).pipe(Effect.provide(daemonLayer(root)))
      }), 120_000)
  }

  it.scopedLive("a bike only Garmin's gear file names joins the ride Strava's export brought first, with its make, model and kind", () =>
    Effect.gen(function*() {
      const ride = yield* Effect.promise(() => corpusSource("fit/garmin-edge1000-ride.fit"))
      const root = yield* scopedRoot()
      yield* Effect.gen(function*() {
        drop(root, "strava.zip", stravaExport({ activities: [{ file: ride, name: "Sunday loop with Ana", sport: "Ride" }] }))
        const [first] = yield* rowsDone(1)
        expect((yield* activity(first!.activity_id!)).gearId ?? null).toBeNull()
        drop(root, "garmin.zip", garminExport({
          activities: [{ file: ride, name: "Porto Road Cycling", sport: "road_biking", description: "legs heavy", gear: "Domane" }],
          gear: [{ name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike" }]
        }))
        const [, second] = yield* rowsDone(2)
        expect(second!.status).toBe("skipped")
        expect(second!.error_message!.endsWith(". Its description and gear joined that activity."), second!.error_message!).toBe(true)
        const kept = yield* activity(first!.activity_id!)
        expect(kept).toMatchObject({ name: "Sunday loop with Ana", description: "legs heavy" })
        const gear = (yield* send("GET", `/api/v1/gear/${kept.gearId}`)).json
        expect(gear).toMatchObject({ name: "Domane", brand: "Trek", model: "Domane SL6", kind: "bike", type: "imported", numberOfActivities: 1 })
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)

  it.scopedLive("what the athlete set by hand stays: a name written as \"Morning Ride\" is not replaced, the gear removed by hand does not come back; photos join once", () =>
    Effect.gen(function*() {
      const ride = yield* Effect.promise(() => corpusSource("fit/garmin-edge1000-ride.fit"))
      const root = yield* scopedRoot()
      yield* Effect.gen(function*() {
        drop(root, "garmin.zip", garmin(ride))
        const [first] = yield* rowsDone(1)
        const id = first!.activity_id!
        const patched = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { name: "Morning Ride", gearId: null } })
        expect(patched.status).toBe(200)
        drop(root, "strava.zip", strava(ride))
        const [, second] = yield* rowsDone(2)
        const kept = yield* activity(id)
        expect(kept).toMatchObject({ name: "Morning Ride", description: "legs heavy", isCommute: true })
        expect(kept.gearId ?? null).toBeNull()
        expect(kept.images).toHaveLength(2)
        expect(second!.error_message).toContain(id)
        expect(second!.error_message).toContain("Its commute flag and 2 photos joined that activity.")
        // the same export dropped again brings nothing new: no photo twice
        drop(root, "strava-again.zip", strava(ride))
        const [, , third] = yield* rowsDone(3)
        expect(third!.status).toBe("skipped")
        expect(third!.error_message).not.toContain("joined")
        expect((yield* activity(id)).images).toHaveLength(2)
      }).pipe(Effect.provide(daemonLayer(root)))
    }), 120_000)
})

describe("what a duplicate brings", () => {
  it("names nobody wrote: a time of day and a sport, Garmin's place and type", () => {
    expect(["Morning Ride", "lunch run", "Night Open Water Swim", "Porto Road Cycling", "Lisbon Running", "Indoor Cycling", "Evening Weight Training"].filter(isAutomaticName))
      .toHaveLength(7)
    expect(["Sunday loop with Ana", "Col du Galibier", "Morning ride to the lake", "Evening Run with the club"].filter(isAutomaticName)).toEqual([])
  })

  it("fills only what the kept activity has none of, never a field set by hand", () => {
    const copy = { name: "Galibier", description: "windy", gearId: "gear-b", isCommute: true, photos: 1 }
    expect(joinedChanges({ name: "Afternoon Ride", description: null, gearId: null, isCommute: false, photos: 0, edited: [] }, copy))
      .toEqual({ changes: { name: "Galibier", description: "windy", gearId: "gear-b", isCommute: true }, photos: true, words: ["its name", "its description", "its gear", "its commute flag", "1 photo"] })
    expect(joinedChanges({ name: "Col", description: "calm", gearId: "gear-a", isCommute: true, photos: 0, edited: [] }, copy))
      .toEqual({ changes: {}, photos: true, words: ["1 photo"] })
    // photos join an activity that has none: the same export dropped twice does not double them
    expect(joinedChanges({ name: "Col", description: "calm", gearId: "gear-a", isCommute: true, photos: 2, edited: [] }, copy))
      .toEqual({ changes: {}, photos: false, words: [] })
    expect(joinedChanges({ name: "Afternoon Ride", description: null, gearId: null, isCommute: false, photos: 0, edited: ["name", "gearId", "description"] }, copy).changes)
      .toEqual({ isCommute: true })
    expect(joinedSentence(["its name", "its gear", "2 photos"])).toBe("Its name, gear and 2 photos joined that activity.")
    expect(joinedSentence(["2 photos"])).toBe("2 photos joined that activity.")
    expect(joinedSentence([])).toBeNull()
  })
})
