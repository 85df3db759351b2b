import { afterAll, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, loadManifest, readCorpusFile } from "../support/corpus.ts"
import { daemonLayer, dropFile, importRows, makeRoot, waitFor } from "../support/ImportHarness.ts"
import { send } from "../support/TestDaemon.ts"
import { dayOf, expectCalendar, expectMilestones, expectStreaks, expectYearInReview, getJson, listedActivities } from "../support/yearReference.ts"

/**
 * The athlete's year over the shared corpus: every activity file imported into a daemon (real
 * recordings from 2008 to 2024, rides, runs, swims, hikes, a triathlon, in many countries and
 * time zones, one a commute), then every month's calendar, every year's review, the streaks and
 * the milestones compared with the same figures computed from the activity list.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const files = loadManifest().map((e) => e.file).filter((f) => !f.startsWith("bad/"))
// two parse threads, as on a 2-core machine: one thread at its low priority took more than 400 s
// over the corpus on a machine at load 45
const root = makeRoot({ IMPORT_PARSE_WORKERS: "2" })
afterAll(() => fs.rmSync(root.root, { recursive: true, force: true }))

describe.skipIf(!CORPUS_DIR)("the athlete's year over the corpus", () => {
  layer(daemonLayer(root), { excludeTestServices: true, timeout: 180_000 })("every activity file imported", (it) => {
    it.effect("imports the corpus", () =>
      Effect.gen(function*() {
        for (const file of files) dropFile(root.watchDir, path.basename(file), readCorpusFile(file))
        // a limit, not a timing: the parse threads, at a lower priority than everything else,
        // take about 25 s of processor time over the corpus, and minutes by the clock on a
        // loaded machine
        const rows = yield* waitFor("every file's import row", Effect.map(importRows(), (rows) => (rows.length >= files.length ? rows : undefined)), { timeout: "400 seconds" })
        expect(rows.filter((r) => r.status === "success").length).toBeGreaterThan(60)
      }), 480_000)

    it.effect("the calendar of every month with activities, of all sports and of rides", () =>
      Effect.gen(function*() {
        const all = yield* listedActivities
        const months = [...new Set(all.map((a) => dayOf(a).slice(0, 7)))]
        expect(months.length).toBeGreaterThan(20)
        for (const month of months) yield* expectCalendar(all, month)
        for (const month of months.slice(0, 10)) yield* expectCalendar(all, month, ["Ride", "VirtualRide"])
      }), 60_000)

    it.effect("the year in review of every year with activities and of the year after the last", () =>
      Effect.gen(function*() {
        const all = yield* listedActivities
        const years = [...new Set(all.map((a) => Number(dayOf(a).slice(0, 4))))].sort()
        expect(years.length).toBeGreaterThan(8)
        for (const year of [...years, years.at(-1)! + 1]) yield* expectYearInReview(all, year)
        // the corpus holds a commute ride: its distance counts, with the CO₂ a car would have emitted
        const commutes = all.filter((a) => a.isCommute)
        if (commutes.length > 0) {
          const year = Number(dayOf(commutes[0]!).slice(0, 4))
          expect((yield* getJson(`/stats/year-in-review?filters[year]=${year}`)).commutes.co2SavedInKg).toBeGreaterThan(0)
        }
      }), 60_000)

    it.effect("the streaks and the milestones of the whole history", () =>
      Effect.gen(function*() {
        const all = yield* listedActivities
        yield* expectStreaks(all)
        const milestones = yield* expectMilestones(all)
        expect(milestones.filter((m: any) => m.kind === "firstInCountry").length).toBeGreaterThan(3)
        expect(milestones.filter((m: any) => m.kind === "record").length).toBeGreaterThan(5)
        // an activity's sport changed: what it made moves with it
        const ride = all.find((a) => a.sportType === "Ride")!
        expect((yield* send("PATCH", `/api/v1/activities/${ride.id}`, { json: { sportType: "GravelRide" } })).status).toBe(200)
        yield* expectMilestones(yield* listedActivities)
      }), 60_000)
  })
})
