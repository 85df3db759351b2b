import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE } from "../../../support/corpus.ts"
import { asZip, corpusSource, garminExport, type SourceFile, stravaExport } from "../../../support/exportArchives.ts"
import { freshDaemon, importRows, waitFor } from "../../../support/ImportHarness.ts"
import { shiftFitTimes } from "../../../support/shiftFitTimes.ts"
import { send, TestDaemon } from "../../../support/TestDaemon.ts"
import type { ZipEntry } from "../../../support/zipWriter.ts"
import { isAutomaticName, joinedChanges, joinedSentence } from "../../../../src/services/import/DuplicateJoin.ts"

/**
 * The same ride exported by Garmin Connect and by Strava, dropped one after the other in either
 * order: the second copy is skipped, and what it knows that the first does not joins the kept
 * activity (Strava's name, gear, commute flag and photos; Garmin's description), said in the
 * skipped row's message; what the athlete set by hand stays.
 *
 * The tests share one daemon: each takes the ride recorded on a day of its own (its FIT's times
 * moved by whole days, so that it is no test's duplicate but its own) and a bike of its own
 * name, and judges the rows and activities it added.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

/** Moves the export into the watch folder at once (written beside it first, as a finished download). */
const drop = (name: string, entries: Iterable<ZipEntry>) =>
  Effect.map(TestDaemon, (daemon) => {
    const staged = path.join(path.dirname(daemon.watchDir), name)
    fs.writeFileSync(staged, asZip(entries))
    fs.renameSync(staged, path.join(daemon.watchDir, name))
  })

/** The corpus ride, recorded `days` later: the same file as far as the import can tell, never a duplicate of another day's. */
const rideOn = (days: number) =>
  Effect.promise(async (): Promise<SourceFile> => {
    const ride = await corpusSource("fit/garmin-edge1000-ride.fit")
    const ms = days * 86_400_000
    return { ...ride, bytes: shiftFitTimes(ride.bytes, days * 86_400), starts: ride.starts.map((s) => s + ms), end: ride.end + ms }
  })

const garmin = (ride: SourceFile) => garminExport({ activities: [{ file: ride, name: "Porto Road Cycling", sport: "road_biking", description: "legs heavy" }] })
const strava = (ride: SourceFile, bike: string) =>
  stravaExport({
    activities: [{ file: ride, name: "Sunday loop with Ana", sport: "Ride", commute: true, gear: bike, photos: 2 }],
    gear: [{ name: bike, brand: "Trek", model: "Domane SL6", kind: "bike" }]
  })

/** The rows the daemon has written so far: a test judges those after them. */
const rowsSoFar = Effect.map(importRows(), (rows) => rows.length)

/** Waits for `count` rows after the first `before` that are not queued. */
const rowsDone = (before: number, count: number) =>
  waitFor(`${count} import rows`, Effect.map(importRows(), (all) => {
    const rows = all.slice(before)
    return rows.length >= count && rows.every((r) => r.status !== "queued") ? rows : undefined
  }))

const activity = (id: string) => Effect.map(send("GET", `/api/v1/activities/${id}`), (r) => r.json)
const activitiesTotal = Effect.map(send("GET", "/api/v1/activities"), (r) => r.json.pagination.total as number)

const allGear = Effect.map(send("GET", "/api/v1/gear"), (r) => r.json.gear as Array<{ name: string }>)

const merged = { name: "Sunday loop with Ana", description: "legs heavy", isCommute: true }

describe.skipIf(!CORPUS_DIR)("the same ride from a Garmin and a Strava export", () => {
  layer(freshDaemon(), { excludeTestServices: true, timeout: 120_000 })("one daemon, each test on a day of its own", (it) => {
    for (const [n, order] of [[1, ["garmin", "strava"]], [2, ["strava", "garmin"]]] as const) {
      it.effect(`${order.join(" then ")}: one activity with the name, description, gear, commute flag and photos of both; the skipped row says what joined`, () =>
        Effect.gen(function*() {
          const ride = yield* rideOn(n)
          const bike = `Domane ${n}`
          const before = yield* rowsSoFar
          const total = yield* activitiesTotal
          const gearBefore = (yield* allGear).length
          const exports = { garmin: () => garmin(ride), strava: () => strava(ride, bike) }
          yield* drop(`${order[0]}-${n}.zip`, exports[order[0]]())
          const [first] = yield* rowsDone(before, 1)
          expect(first!.status).toBe("success")
          yield* drop(`${order[1]}-${n}.zip`, exports[order[1]]())
          const [, second] = yield* rowsDone(before, 2)
          expect(second!.status).toBe("skipped")
          const kept = yield* activity(first!.activity_id!)
          expect(kept).toMatchObject(merged)
          expect(kept.images).toHaveLength(2)
          // the bike of the Strava export, once: the only gear the two copies brought
          const gear = yield* allGear
          expect(gear).toHaveLength(gearBefore + 1)
          expect(gear.filter((g) => g.name === bike)).toEqual([expect.objectContaining({ id: kept.gearId, name: bike, brand: "Trek", model: "Domane SL6", kind: "bike", numberOfActivities: 1 })])
          const joined = order[0] === "garmin"
            ? "Its name, gear, commute flag and 2 photos joined that activity."
            : "Its description joined that activity."
          expect(second!.error_message).toContain(kept.id)
          expect(second!.error_message!.endsWith(`. ${joined}`), second!.error_message!).toBe(true)
          // one activity of the two copies
          expect(yield* activitiesTotal).toBe(total + 1)
        }), 120_000)
    }

    it.effect("a bike only Garmin's gear file names joins the ride Strava's export brought first, with its make, model and kind", () =>
      Effect.gen(function*() {
        const ride = yield* rideOn(3)
        const before = yield* rowsSoFar
        yield* drop("strava-3.zip", stravaExport({ activities: [{ file: ride, name: "Sunday loop with Ana", sport: "Ride" }] }))
        const [first] = yield* rowsDone(before, 1)
        expect((yield* activity(first!.activity_id!)).gearId ?? null).toBeNull()
        yield* drop("garmin-3.zip", garminExport({
          activities: [{ file: ride, name: "Porto Road Cycling", sport: "road_biking", description: "legs heavy", gear: "Domane 3" }],
          gear: [{ name: "Domane 3", brand: "Trek", model: "Domane SL6", kind: "bike" }]
        }))
        const [, second] = yield* rowsDone(before, 2)
        expect(second!.status).toBe("skipped")
        expect(second!.error_message!.endsWith(". Its description and gear joined that activity."), second!.error_message!).toBe(true)
        const kept = yield* activity(first!.activity_id!)
        expect(kept).toMatchObject({ name: "Sunday loop with Ana", description: "legs heavy" })
        const gear = (yield* send("GET", `/api/v1/gear/${kept.gearId}`)).json
        expect(gear).toMatchObject({ name: "Domane 3", brand: "Trek", model: "Domane SL6", kind: "bike", type: "imported", numberOfActivities: 1 })
      }), 120_000)

    it.effect("what the athlete set by hand stays: a name written as \"Morning Ride\" is not replaced, the gear removed by hand does not come back; photos join once", () =>
      Effect.gen(function*() {
        const ride = yield* rideOn(4)
        const before = yield* rowsSoFar
        yield* drop("garmin-4.zip", garmin(ride))
        const [first] = yield* rowsDone(before, 1)
        const id = first!.activity_id!
        const patched = yield* send("PATCH", `/api/v1/activities/${id}`, { json: { name: "Morning Ride", gearId: null } })
        expect(patched.status).toBe(200)
        yield* drop("strava-4.zip", strava(ride, "Domane 4"))
        const [, second] = yield* rowsDone(before, 2)
        const kept = yield* activity(id)
        expect(kept).toMatchObject({ name: "Morning Ride", description: "legs heavy", isCommute: true })
        expect(kept.gearId ?? null).toBeNull()
        expect(kept.images).toHaveLength(2)
        expect(second!.error_message).toContain(id)
        expect(second!.error_message).toContain("Its commute flag and 2 photos joined that activity.")
        // the same export dropped again brings nothing new: no photo twice
        yield* drop("strava-4-again.zip", strava(ride, "Domane 4"))
        const [, , third] = yield* rowsDone(before, 3)
        expect(third!.status).toBe("skipped")
        expect(third!.error_message).not.toContain("joined")
        expect((yield* activity(id)).images).toHaveLength(2)
      }), 120_000)
  })
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
