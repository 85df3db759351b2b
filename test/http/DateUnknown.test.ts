import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../support/corpus.ts"
import { dropFile, waitForRow } from "../support/ImportHarness.ts"
import { send, TestDaemon } from "../support/TestDaemon.ts"
import { blocksFit } from "../support/trainingFits.ts"

/**
 * A route without any time nor a date of the file's own (the corpus's MapMyFitness route, 9,722
 * points over more than 10 km) is imported as an activity whose date is unknown: listed, its
 * route and distance kept, and counted by nothing that counts by date. Its stand-in start is the
 * time of its import, today: counted, it would change this year's totals, the calendar and the
 * year the pages open on, today's streak, the Eddington number (a fourth day of more than 4 km)
 * and the milestones.
 */

if (!CORPUS_DIR) console.log(CORPUS_MISSING_MESSAGE)

const ROUTE = "gpx/mapmyfitness-route-no-time-no-ele.gpx"

const importFile = (name: string, bytes: Uint8Array) =>
  Effect.gen(function*() {
    const daemon = yield* TestDaemon
    dropFile(daemon.watchDir, name, bytes)
    const row = yield* waitForRow(name)
    expect(row.status, row.error_message ?? "").toBe("success")
    return row.activity_id!
  })

/** Every answer counted by date, as the API gives it. */
const countedByDate = Effect.gen(function*() {
  const answers: Record<string, unknown> = {}
  for (
    const path of [
      "/api/v1/stats/totals?filters[period]=year",
      "/api/v1/stats/totals?filters[period]=month",
      "/api/v1/stats/eddington",
      "/api/v1/stats/records",
      "/api/v1/stats/calendar",
      "/api/v1/stats/streaks",
      "/api/v1/stats/year-in-review",
      "/api/v1/stats/training-load",
      "/api/v1/stats/power-curve",
      "/api/v1/milestones",
      "/api/v1/stats/heatmap?filters[from]=2000-01-01"
    ]
  ) {
    const answer = yield* send("GET", path)
    expect(answer.status, `${path}: ${answer.text}`).toBe(200)
    answers[path] = answer.json
  }
  return answers
})

describe.skipIf(!CORPUS_DIR)("an activity whose date is unknown", () => {
  layer(TestDaemon.layer(), { excludeTestServices: true })("over a daemon with dated rides", (it) => {
    it.effect("a GPX without any time is listed, shows 'date unknown', and changes none of the totals, calendar, year, streaks, Eddington, training load", () =>
      Effect.gen(function*() {
        // a power threshold: the rides have a training load
        expect((yield* send("POST", "/api/v1/athlete/thresholds", { json: { on: "2024-01-01", cyclingFtp: 250 } })).status).toBe(200)
        const rides = []
        for (const [i, day] of ["2024-05-04", "2024-05-11", "2024-05-18"].entries()) {
          // half an hour at 8 m/s (14.4 km) and 200 W
          rides.push(yield* importFile(`ride-${i}.fit`, blocksFit({ start: new Date(`${day}T08:00:00Z`), speed: 8, power: [[1800, 200]] })))
        }
        const before = yield* countedByDate
        // the rides count: three days of 14.4 km, a training load, the year 2024 opened on
        expect((before["/api/v1/stats/eddington"] as any).eddington.km).toBe(3)
        expect((before["/api/v1/stats/year-in-review"] as any).year).toBe(2024)
        expect((before["/api/v1/stats/training-load"] as any).days.some((d: any) => d.load > 0)).toBe(true)

        const id = yield* importFile("mapped-route.gpx", new Uint8Array(readCorpusFile(ROUTE)))
        const activity = (yield* send("GET", `/api/v1/activities/${id}`)).json
        expect(activity).toMatchObject({ id, dateUnknown: true, hasTimes: false, hasGpx: true, movingTimeInSeconds: 0 })
        expect(activity.distanceInMeter).toBeGreaterThan(10_000)
        // its stand-in: the day it was imported (today, whatever the zone)
        expect(Math.abs(Date.parse(`${activity.startDateLocal}Z`) - Date.now())).toBeLessThan(15 * 3600_000)
        const listed = (yield* send("GET", "/api/v1/activities")).json.activities.map((a: any) => [a.id, a.dateUnknown])
        expect(listed).toContainEqual([id, true])
        expect(listed.filter(([, unknown]: [string, boolean]) => !unknown)).toHaveLength(rides.length)
        // a period holds none whose date is unknown
        const thisYear = activity.startDateLocal.slice(0, 4)
        expect((yield* send("GET", `/api/v1/activities?filters[from]=${thisYear}-01-01`)).json.activities).toEqual([])
        // the import says so in its notes
        const imports = (yield* send("GET", "/api/v1/file-imports")).json.fileImports
        expect(imports.find((f: any) => f.filename === "mapped-route.gpx").notes).toMatch(/date unknown: nothing in the file tells when it was recorded/)

        expect(yield* countedByDate).toEqual(before)
        // the whole history's map draws its route
        expect((yield* send("GET", "/api/v1/stats/heatmap")).json.routes.map((r: any) => r.activityId)).toContain(id)

        // the same bytes again are a duplicate of it, by their bytes
        const daemon = yield* TestDaemon
        dropFile(daemon.watchDir, "mapped-route-again.gpx", new Uint8Array(readCorpusFile(ROUTE)))
        const again = yield* waitForRow("mapped-route-again.gpx")
        expect(again.status).toBe("skipped")
        expect(again.error_message).toMatch(/of unknown date/)
      }), { timeout: 120_000 })
  })
})
