import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { startChildDaemon } from "../../../support/ChildDaemon.ts"
import { count, databaseFile, filesWithManyRows, killWhileImporting, storedProblems, until, waiting } from "../../../support/killNine.ts"
import { dayStart, fitActivity, gpxActivity, type Root, scopedRoot, tcxActivity } from "../../../support/ImportHarness.ts"
import { JPEG_HEAD } from "../../../support/TestDaemon.ts"
import { zipOf } from "../../../support/zipOf.ts"

/**
 * What a Strava bulk export says about its activities (name, description, gear, commute flag,
 * photos) survives a `kill -9` at any step of its import: the daemon runs as a child process
 * over the same folders, an export is dropped into its watch folder, and it is SIGKILLed first
 * as soon as the unpacking has kept what the export says, then right after the n-th activity
 * row appears (at once, or a few milliseconds later), several times; a last run drains the
 * folder. After every kill, read straight from SQLite, every activity already there carries
 * what the export says of it, and none is there twice; at the end every activity of the export
 * is there once, through the API, with its name, gear, commute flag and photos, and nothing
 * the export said is left waiting.
 */

const FILES = 14
const GEAR = ["Canyon Endurace", "Brooks Ghost 15", null] as const
const WITH_PHOTO = new Set([1, 5, 9])

interface Exported {
  readonly filename: string
  readonly start: number
  readonly name: string
  readonly description: string | null
  readonly gear: string | null
  readonly isCommute: boolean
  readonly photos: number
}

const exportOf = (): { readonly zip: Buffer; readonly activities: ReadonlyArray<Exported> } => {
  const entries: Array<{ name: string; data: Uint8Array | string }> = []
  const rows: Array<string> = []
  const activities: Array<Exported> = []
  for (let i = 0; i < FILES; i++) {
    const shape = { start: dayStart(20 + i), seconds: 1800, step: 2 }
    const [filename, data] = i % 3 === 0
      ? [`${1000 + i}.fit.gz`, zlib.gzipSync(fitActivity({ ...shape, sport: "cycling", speed: 8 }))]
      : i % 3 === 1
      ? [`${1000 + i}.gpx`, gpxActivity(shape)]
      : [`${1000 + i}.tcx.gz`, zlib.gzipSync(tcxActivity(shape))]
    entries.push({ name: `activities/${filename}`, data })
    const media = WITH_PHOTO.has(i) ? `media/photo-${i}.jpg` : ""
    if (media !== "") entries.push({ name: media, data: Buffer.concat([JPEG_HEAD, Buffer.from(`photo ${i}`)]) })
    const activity: Exported = {
      filename,
      start: shape.start.getTime(),
      name: `Sortie ${i}, "au col"`,
      description: i % 2 === 0 ? `Day ${i}` : null,
      gear: GEAR[i % GEAR.length]!,
      isCommute: i % 4 === 1,
      photos: media === "" ? 0 : 1
    }
    activities.push(activity)
    const quoted = (text: string) => `"${text.replaceAll("\"", "\"\"")}"`
    rows.push([1000 + i, quoted("Mar 10, 2024, 6:00:00 AM"), quoted(activity.name), "Ride", activity.description ?? "", activity.isCommute, activity.gear ?? "", `activities/${filename}`, media].join(","))
  }
  entries.push({
    name: "activities.csv",
    data: "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Commute,Activity Gear,Filename,Media\n" + rows.join("\n") + "\n"
  })
  return { zip: zipOf(entries), activities }
}

// ---------------------------------------------------------------------------------------
// What the storage holds, read straight from SQLite

interface StoredActivity {
  readonly filename: string
  readonly start_time: number
  readonly name: string
  readonly description: string | null
  readonly gear: string | null
  readonly is_commute: number
  readonly photos: number
}

const readStorage = (root: Root) => {
  const db = new Database(databaseFile(root), { readonly: true, fileMustExist: true })
  try {
    return {
      activities: db.prepare(`SELECT f.filename, a.start_time, a.name, a.description, g.name AS gear, a.is_commute,
          (SELECT COUNT(*) FROM activity_images i WHERE i.activity_id = a.id) AS photos
        FROM activities a LEFT JOIN file_imports f ON f.activity_id = a.id LEFT JOIN gear g ON g.id = a.gear_id
        ORDER BY a.start_time`).all() as Array<StoredActivity>,
      rows: db.prepare("SELECT filename, status FROM file_imports ORDER BY rowid").all() as Array<{ filename: string; status: string }>,
      kept: (db.prepare("SELECT COUNT(*) AS n FROM export_metadata").get() as { n: number }).n
    }
  } finally {
    db.close()
  }
}

/** Every activity stored carries what the export says of it, and none is there twice. */
const problemsOf = (state: ReturnType<typeof readStorage>, exported: ReadonlyArray<Exported>): Array<string> => {
  const problems = storedProblems(state.activities, new Map(exported.map((e) => [e.start, e])), (e) => e.filename, (activity, expected) => [
    { name: activity.name, description: activity.description, gear: activity.gear, isCommute: activity.is_commute === 1, photos: activity.photos },
    { name: expected.name, description: expected.description, gear: expected.gear, isCommute: expected.isCommute, photos: expected.photos }
  ])
  return [...problems, ...filesWithManyRows(state.rows.filter((row) => row.status !== "skipped"))]
}

describe("kill -9 during a Strava export's import", () => {
  it.scopedLive(
    "a daemon SIGKILLed while an export is unpacked and between its activities' commits keeps every activity's name, gear, commute flag and photos, none twice",
    () =>
      Effect.gen(function*() {
        const { activities: exported, zip } = exportOf()
        const root = yield* scopedRoot({ LOG_LEVEL: "warning" })
        const start = () => startChildDaemon({ env: root.env, apiKey: root.apiKey })
        const activitiesNow = () => count(root, "SELECT COUNT(*) AS n FROM activities")
        const journal: Array<string> = []
        const check = (moment: string) => {
          const state = readStorage(root)
          journal.push(`killed ${moment}: ${state.activities.length} activities, ${state.kept} files' metadata kept, ${waiting(root).length} files waiting`)
          expect(problemsOf(state, exported), journal.join("\n")).toEqual([])
          return state
        }

        // 1. while the export is unpacked; 2. right after the n-th new activity row
        const killedBetween = yield* killWhileImporting({
          root, start, zip, name: "export_2024.zip", total: FILES,
          kept: () => count(root, "SELECT COUNT(*) AS n FROM export_metadata") > 0,
          check: (moment) => check(moment).activities.length
        })
        // the test is not vacuous: kills landed in the middle of the export's import
        expect(killedBetween, journal.join("\n")).toBeGreaterThanOrEqual(3)

        // 3. a last run drains the folder
        const daemon = yield* start()
        yield* until("the export imported", daemon, () => activitiesNow() >= FILES && waiting(root).length === 0, 300_000)
        const listed = yield* daemon.get(`/api/v1/activities?pagination[size]=100`)
        expect(listed.status).toBe(200)
        const gear = (yield* daemon.get("/api/v1/gear")).json.gear as Array<{ id: string; name: string }>
        // by name: each activity of the export has its own
        const answered = new Map<string, { name: string; description: string | null; gear: string | null; isCommute: boolean; photos: number }>()
        for (const summary of listed.json.activities as Array<{ id: string }>) {
          const activity = (yield* daemon.get(`/api/v1/activities/${summary.id}`)).json
          answered.set(activity.name, {
            name: activity.name,
            description: activity.description || null,
            gear: gear.find((g) => g.id === activity.gearId)?.name ?? null,
            isCommute: activity.isCommute,
            photos: activity.images.length
          })
          // the photo is served
          for (const image of activity.images as Array<{ url: string }>) {
            const served = yield* Effect.promise(() => fetch(image.url.replace(/^https?:\/\/[^/]+/, daemon.baseUrl), { headers: { authorization: `Bearer ${root.apiKey}` } }))
            expect(served.status, image.url).toBe(200)
          }
        }
        expect(answered.size, journal.join("\n")).toBe(FILES)
        for (const e of exported) {
          expect(answered.get(e.name), `${e.filename}\n${journal.join("\n")}`).toEqual({
            name: e.name,
            description: e.description,
            gear: e.gear,
            isCommute: e.isCommute,
            photos: e.photos
          })
        }
        yield* daemon.kill("SIGKILL")
        const state = check("after the drain")
        expect(state.activities.map((a) => a.filename).sort()).toEqual(exported.map((e) => e.filename).sort())
        expect(state.kept).toBe(0)
        expect(fs.existsSync(path.join(root.watchDir, "export_2024.zip"))).toBe(false)
        console.log(`ExportKillNine\n${journal.join("\n")}`)
      }),
    { timeout: 600_000 }
  )
})
