import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { startChildDaemon } from "../../../support/ChildDaemon.ts"
import { asZip, garminExport, type SourceActivity } from "../../../support/exportArchives.ts"
import { dayStart, fitActivity, type Root, scopedRoot } from "../../../support/ImportHarness.ts"
import { count, databaseFile, filesWithManyRows, killWhileImporting, storedProblems, until, waiting } from "../../../support/killNine.ts"

/**
 * A Garmin Connect export survives a `kill -9` at any step of its import: its parts unpacked,
 * its summaries kept until its last file is imported. The daemon runs as a child process over
 * the same folders; it is SIGKILLed as soon as the unpacking has kept its files, then right
 * after the n-th activity row appears, several times; a last run drains the folder. After every
 * kill, read straight from SQLite, every activity stored is named by its summary and none is
 * there twice, every file has at most one row; at the end every activity is there once, named,
 * typed and described, and nothing of the export is left kept.
 */

const FILES = 16
const SPORTS = [["running", "Run"], ["road_biking", "Ride"], ["trail_running", "TrailRun"], ["lap_swimming", "Swim"]] as const

const activities: ReadonlyArray<SourceActivity & { readonly sportType: string }> = Array.from({ length: FILES }, (_, i) => {
  const start = dayStart(40 + i)
  const [garmin, ours] = SPORTS[i % SPORTS.length]!
  return {
    file: { name: `a${i}.fit`, bytes: fitActivity({ start, seconds: 1800, step: 2 }), starts: [start.getTime()], end: start.getTime() + 1_800_000, sport: "Run" },
    name: `Garmin ${i}: "${garmin}"`,
    ...(i % 3 === 0 ? { description: `notes ${i}` } : {}),
    sport: garmin,
    sportType: ours
  }
})

const readStorage = (root: Root) => {
  const db = new Database(databaseFile(root), { readonly: true, fileMustExist: true })
  try {
    return {
      activities: db.prepare("SELECT start_time, name, description, sport_type FROM activities ORDER BY start_time").all() as Array<
        { start_time: number; name: string; description: string | null; sport_type: string }
      >,
      rows: db.prepare("SELECT filename, status, source FROM file_imports ORDER BY rowid").all() as Array<{ filename: string; status: string; source: string }>,
      kept: (db.prepare("SELECT (SELECT COUNT(*) FROM export_metadata) + (SELECT COUNT(*) FROM export_summaries) AS n").get() as { n: number }).n
    }
  } finally {
    db.close()
  }
}

/** Every activity stored is its summary's, once; every file has one row at most, of the Garmin export. */
const problemsOf = (state: ReturnType<typeof readStorage>): Array<string> => {
  const problems = storedProblems(state.activities, new Map(activities.map((a) => [a.file.starts[0]!, a])), (a) => a.name!, (stored, expected) => [
    [stored.name, stored.description ?? null, stored.sport_type],
    [expected.name, expected.description ?? null, expected.sportType]
  ])
  for (const row of state.rows) {
    if (row.source !== "garminExport" || row.status !== "success") problems.push(`"${row.filename}" has a ${row.status} row of ${row.source}`)
  }
  return [...problems, ...filesWithManyRows(state.rows)]
}

describe("kill -9 during a Garmin Connect export's import", () => {
  it.scopedLive("a daemon SIGKILLed while the export's parts are unpacked and between its activities' commits names every activity by its summary, none twice", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ LOG_LEVEL: "warning" })
      const start = () => startChildDaemon({ env: root.env, apiKey: root.apiKey })
      const activitiesNow = () => count(root, "SELECT COUNT(*) AS n FROM activities")
      const journal: Array<string> = []
      const check = (moment: string) => {
        const state = readStorage(root)
        const originals = fs.readdirSync(path.join(root.storageDir, "files", "archives"))
        journal.push(`killed ${moment}: ${state.activities.length} activities, ${state.kept} rows kept, ${waiting(root).length} files waiting, ${originals.length} archives kept`)
        const problems = problemsOf(state)
        // the problems themselves in the message: a long array is cut short in the diff
        expect(problems, [...journal, ...problems].join("\n")).toEqual([])
        // the export's original stays in storage from the moment it leaves the folder until its last file is imported
        if (!fs.existsSync(path.join(root.watchDir, "garmin-export.zip")) && state.activities.length < FILES) expect(originals, journal.join("\n")).toHaveLength(1)
        return state
      }

      // 1. while the export's parts are unpacked; 2. right after the n-th new activity row
      const killedBetween = yield* killWhileImporting({
        root, start, zip: asZip(garminExport({ activities }, { partSize: 6 })), name: "garmin-export.zip", total: FILES,
        kept: () => count(root, "SELECT COUNT(*) AS n FROM export_summaries") > 0,
        check: (moment) => check(moment).activities.length
      })
      expect(killedBetween, journal.join("\n")).toBeGreaterThanOrEqual(3)

      // 3. a last run drains the folder
      const daemon = yield* start()
      yield* until("the export imported", daemon, () => activitiesNow() >= FILES && waiting(root).length === 0 && readStorage(root).kept === 0, 300_000)
      yield* daemon.kill("SIGKILL")
      const state = check("after the drain")
      expect(state.activities).toHaveLength(FILES)
      expect(state.rows).toHaveLength(FILES)
      expect(state.kept).toBe(0)
      expect(fs.readdirSync(path.join(root.storageDir, "files", "archives"))).toEqual([])
      expect(fs.existsSync(path.join(root.watchDir, "garmin-export.zip"))).toBe(false)
      console.log(`GarminKillNine\n${journal.join("\n")}`)
    }), { timeout: 600_000 })
})
