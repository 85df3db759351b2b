import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Fiber } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { compressedByImport } from "../../../src/services/import/KeptOriginals.ts"
import { isCandidateName } from "../../../src/services/import/WatchDirectory.ts"
import { CORPUS_DIR, CORPUS_MISSING_MESSAGE, readCorpusFile } from "../../support/corpus.ts"
import { type ChildDaemon, startChildDaemon } from "../../support/ChildDaemon.ts"
import { dayStart, fitActivity, gpxActivity, listFiles, type Root, scopedRoot, tcxActivity } from "../../support/ImportHarness.ts"

/**
 * Crash safety of the import pipeline against a real `kill -9`: the daemon
 * runs as a child process (`node dist/main.js`). Four times over the same
 * STORAGE_DIR and WATCH_DIR, it is started, a batch of activity files lands in its watch
 * folder, and it is SIGKILLed: in two rounds 0-800 ms after the landing (before the first
 * commit, on this machine), in the two others right after, or 0-60 ms after, the n-th original
 * written in that run (in the middle of the imports). Two rounds of each kind: a kill's moment
 * is drawn afresh in each, and a fifth round only drew another moment of a kind already taken
 * for a daemon's start more. A last run then drains the folder.
 * After every kill and at the end, the database (read directly), the originals folder and
 * the watch folder must show no lost file, no half-written activity and no duplicate; the
 * end result must also match, through the API, the one a clean import of the same files
 * gives (a second child nobody kills, run meanwhile over fresh folders).
 *
 * The kill moments and batches come from a seeded generator: the seed is printed, and
 * `KILL_NINE_SEED=<seed>` replays them (the moments are relative to the daemon's progress,
 * so a replay hits nearly, not exactly, the same instants).
 */

if (!CORPUS_DIR) console.log(`KillNine: ${CORPUS_MISSING_MESSAGE}; code fixtures only`)

const ROUNDS = 4
/** rounds whose kill comes 0-800 ms after the batch lands (the second while the last round's files may still import); the others kill during the import itself */
const LANDING_ROUNDS = new Set([1, 3])
const MAX_KILL_DELAY_MS = 800
const MAX_PROGRESS_DELAY_MS = 60
const SEED = Number(process.env["KILL_NINE_SEED"] ?? Math.floor(Math.random() * 2 ** 31))

/** mulberry32: small, seeded, good enough for delays and shuffles. */
const seeded = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

// ---------------------------------------------------------------------------------------
// The files

interface Drop {
  readonly name: string
  readonly bytes: Buffer
  /** files of one group are the same activity: exactly one of them may become an activity */
  readonly group: string
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** Real corpus files: two cross-format pairs, single recordings of each format, one truncated FIT. */
const CORPUS_FILES: ReadonlyArray<readonly [file: string, group?: string]> = [
  ["fit/garmin-fr15-10k-run.fit", "corpus fr15 10k"],
  ["tcx/garmin-fr15-10k-run.tcx", "corpus fr15 10k"],
  ["fit/garmin-fr935-pool-swim-50m.fit", "corpus fr935 pool swim"],
  ["tcx/garmin-fr935-pool-swim-50m.tcx", "corpus fr935 pool swim"],
  ["fit/garmin-fenix5-run.fit"],
  ["fit/strava-apple-watch-ride.fit"],
  ["fit/garmin-edge820-commute-ride.fit"],
  ["fit/zwift-virtual-ride.fit"],
  ["fit/wahoo-elemnt-bolt-ride-short.fit"],
  ["gpx/strava-run-gpxtpx-hr.gpx"],
  ["gpx/garmin-connect-ride-2023.gpx"],
  ["tcx/garmin-fr305-run-sample.tcx"],
  ["bad/truncated-coros-pace2-run.fit"]
]

const buildDrops = (): Array<Drop> => {
  const hour = (n: number) => ({ start: dayStart(n), seconds: 3600, step: 2 })
  const same = fitActivity(hour(1))
  const drops: Array<Drop> = [
    // the same bytes under two names
    { name: "fx-01-run.fit", bytes: Buffer.from(same), group: "fx-01" },
    { name: "fx-01-run-copy.fit", bytes: Buffer.from(same), group: "fx-01" },
    // the same activity in two formats
    { name: "fx-02-ride.fit", bytes: Buffer.from(fitActivity({ ...hour(2), sport: "cycling", speed: 8 })), group: "fx-02" },
    { name: "fx-02-ride.gpx", bytes: Buffer.from(gpxActivity({ ...hour(2), type: "cycling", speed: 8 })), group: "fx-02" },
    // a file that is no activity at all
    { name: "fx-broken.fit", bytes: Buffer.from("this is not a FIT file\n".repeat(40)), group: "fx-broken" }
  ]
  for (let n = 3; n <= 10; n++) {
    const name = `fx-${String(n).padStart(2, "0")}.${["fit", "gpx", "tcx"][n % 3]}`
    const bytes = n % 3 === 0 ? fitActivity(hour(n)) : n % 3 === 1 ? gpxActivity(hour(n)) : tcxActivity(hour(n))
    drops.push({ name, bytes: Buffer.from(bytes), group: name })
  }
  if (CORPUS_DIR) {
    for (const [file, group] of CORPUS_FILES) {
      const name = path.basename(file)
      drops.push({ name, bytes: readCorpusFile(file), group: group ?? name })
    }
  }
  return drops
}

/** As a connector delivers: written under a dot-file name, then renamed into place. */
const land = (watchDir: string, drops: ReadonlyArray<Drop>) => {
  for (const drop of drops) {
    const staging = path.join(watchDir, `.${drop.name}`)
    fs.writeFileSync(staging, drop.bytes)
    fs.renameSync(staging, path.join(watchDir, drop.name))
  }
}

const candidates = (watchDir: string) => listFiles(watchDir).filter(isCandidateName)

// ---------------------------------------------------------------------------------------
// What the storage holds (read straight from SQLite and the folders)

/** StoragePaths: `<STORAGE_DIR>/database/waymark.sqlite`. */
const databaseFile = (root: Root) => path.join(root.storageDir, "database", "waymark.sqlite")

interface ImportRowState {
  readonly filename: string
  readonly status: string
  readonly error_message: string | null
  readonly activity_id: string | null
  readonly content_hash: string
  readonly original_file: string | null
}

interface ActivityState {
  readonly id: string
  readonly start_time: number
  readonly has_streams: number
}

interface StorageState {
  readonly rows: ReadonlyArray<ImportRowState>
  readonly activities: ReadonlyArray<ActivityState>
  readonly watch: ReadonlyArray<string>
  readonly originals: ReadonlyArray<string>
}

const readStorage = (root: Root): StorageState => {
  const db = new Database(databaseFile(root), { readonly: true, fileMustExist: true })
  try {
    return {
      rows: db.prepare("SELECT filename, status, error_message, activity_id, content_hash, original_file FROM file_imports ORDER BY rowid").all() as Array<ImportRowState>,
      activities: db.prepare(`SELECT a.id, a.start_time, EXISTS (SELECT 1 FROM activity_streams s WHERE s.activity_id = a.id) AS has_streams
        FROM activities a ORDER BY a.start_time`).all() as Array<ActivityState>,
      // after the database: a file listed here and missing there was removed before its row
      watch: candidates(root.watchDir),
      originals: listFiles(root.originalsDir)
    }
  } finally {
    db.close()
  }
}

/**
 * What must hold at any moment, a kill -9 included: each landed file is still in the watch
 * folder or has its one row (nothing lost, nothing imported twice); rows carry the bytes that
 * landed under their name; every activity is complete (streams) and owned by a success row;
 * no two activities are the same (start within 60 s); every original a row names is there,
 * with the same bytes. With `settled`, the end state: every file has its row, the watch
 * folder is empty and the originals folder holds exactly the referenced files.
 */
const problemsOf = (state: StorageState, landed: ReadonlyArray<Drop>, root: Root, settled: boolean): Array<string> => {
  const problems: Array<string> = []
  const byName = new Map(landed.map((d) => [d.name, d]))
  const rowsByName = new Map<string, Array<ImportRowState>>()
  for (const row of state.rows) rowsByName.set(row.filename, [...(rowsByName.get(row.filename) ?? []), row])
  const activityIds = new Set(state.activities.map((a) => a.id))
  const waiting = new Set(state.watch)

  for (const [name, rows] of rowsByName) {
    if (!byName.has(name)) problems.push(`a row for "${name}", which never landed`)
    if (rows.length > 1) problems.push(`"${name}" has ${rows.length} import rows: ${rows.map((r) => r.status).join(", ")}`)
  }
  for (const drop of landed) {
    const rows = rowsByName.get(drop.name) ?? []
    if (rows.length === 0 && !waiting.has(drop.name)) problems.push(`"${drop.name}" is lost: not in the watch folder and no import row`)
    if (settled && rows.length === 0 && waiting.has(drop.name)) problems.push(`"${drop.name}" is still queued`)
    if (settled && waiting.has(drop.name)) problems.push(`"${drop.name}" is still in the watch folder`)
    for (const row of rows) {
      if (row.content_hash !== sha256(drop.bytes)) problems.push(`the row of "${drop.name}" has another content hash than the bytes that landed`)
      if (!["success", "skipped", "failed"].includes(row.status)) problems.push(`"${drop.name}" has status ${row.status}`)
      if (row.status === "success" && (row.activity_id === null || !activityIds.has(row.activity_id))) {
        problems.push(`"${drop.name}" is success but its activity ${row.activity_id} does not exist`)
      }
      if (row.status !== "success" && row.activity_id !== null) problems.push(`"${drop.name}" is ${row.status} with an activity`)
      // a skipped copy of the same bytes as an activity keeps none (that activity's is its copy); another recording of it keeps its own
      const sameBytesKept = state.rows.some((r) => r.status === "success" && r.content_hash === row.content_hash)
      if (row.status === "skipped" && row.original_file === null && !sameBytesKept) problems.push(`"${drop.name}" is skipped and no original of its bytes is kept`)
      if (row.status === "skipped" && row.original_file !== null && sameBytesKept) problems.push(`"${drop.name}" is skipped as the same bytes but keeps a second original`)
      if (row.status !== "skipped" || row.original_file !== null) {
        const original = row.original_file === null ? null : path.join(root.originalsDir, row.original_file)
        if (original === null || !fs.existsSync(original)) problems.push(`"${drop.name}" (${row.status}): its original ${row.original_file} is missing`)
        // a failure's original is kept compressed
        else if (sha256(compressedByImport(row.original_file!, drop.name) ? zlib.gunzipSync(fs.readFileSync(original)) : fs.readFileSync(original)) !== row.content_hash) {
          problems.push(`"${drop.name}": its original ${row.original_file} has other bytes`)
        }
      }
    }
  }
  const owned = new Set(state.rows.filter((r) => r.status === "success").map((r) => r.activity_id))
  for (const activity of state.activities) {
    if (activity.has_streams !== 1) problems.push(`activity ${activity.id} has no streams row (half-written)`)
    if (!owned.has(activity.id)) problems.push(`activity ${activity.id} belongs to no success row`)
  }
  for (let i = 1; i < state.activities.length; i++) {
    const [a, b] = [state.activities[i - 1]!, state.activities[i]!]
    if (b.start_time - a.start_time <= 60_000) problems.push(`duplicate activities ${a.id} and ${b.id} (starts ${a.start_time} and ${b.start_time})`)
  }
  if (settled) {
    const referenced = new Set(state.rows.flatMap((r) => (r.original_file === null ? [] : [r.original_file])))
    for (const file of state.originals) if (!referenced.has(file)) problems.push(`orphan original ${file}`)
  }
  return problems
}

/** Originals written so far: the worker copies a file's original just before committing its row. */
const originalsOf = (root: Root) => listFiles(root.originalsDir).length

/**
 * Waits (polling every 2 ms) until `count` more originals exist than `from` (as long as a loaded machine takes); false after
 * `timeoutMs` (the kill then comes anyway). Imports commit one at a time, so the n-th new
 * original means the n-1 files before it are committed and the n-th is about to be.
 */
const originalsGrew = (root: Root, from: number, count: number, timeoutMs = 120_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (originalsOf(root) - from < count) {
      if (Date.now() > deadline) return false
      yield* Effect.sleep("2 millis")
    }
    return true
  })

// ---------------------------------------------------------------------------------------
// Daemons

const daemonEnv = (root: Root) => ({ ...root.env, LOG_LEVEL: "warning" })

const start = (root: Root) => startChildDaemon({ env: daemonEnv(root), apiKey: root.apiKey })

/** Every row of GET /api/v1/file-imports, page after page. */
const fileImportsOf = (daemon: ChildDaemon) =>
  Effect.gen(function*() {
    const all: Array<{ filename: string; status: string; activityId: string | null }> = []
    for (let page = 1; ; page++) {
      const answer = yield* daemon.get(`/api/v1/file-imports?pagination[size]=100&pagination[page]=${page}`)
      expect(answer.status).toBe(200)
      all.push(...answer.json.fileImports)
      if (page >= answer.json.pagination.totalPages) return all
    }
  })

const activitiesOf = (daemon: ChildDaemon) =>
  Effect.gen(function*() {
    const ids: Array<string> = []
    for (let page = 1; ; page++) {
      const answer = yield* daemon.get(`/api/v1/activities?pagination[size]=100&pagination[page]=${page}`)
      expect(answer.status).toBe(200)
      ids.push(...answer.json.activities.map((a: { id: string }) => a.id))
      if (page >= answer.json.pagination.totalPages) return ids
    }
  })

/** Waits until the watch folder holds no candidate file and the API lists none queued. */
const drain = (daemon: ChildDaemon, root: Root, timeoutMs = 600_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      if (candidates(root.watchDir).length === 0) {
        const queued = yield* daemon.get("/api/v1/file-imports?filters[status]=queued&pagination[size]=100")
        if (queued.status === 200 && queued.json.pagination.total === 0) return
      }
      if (daemon.hasExited()) return yield* Effect.dieMessage(`the daemon exited while draining the watch folder:\n${daemon.output()}`)
      if (Date.now() > deadline) {
        return yield* Effect.dieMessage(`still in the watch folder after ${timeoutMs} ms: ${candidates(root.watchDir).join(", ")}\n${daemon.output()}`)
      }
      yield* Effect.sleep("100 millis")
    }
  })

/** The settled state, through the API and straight from the storage; the daemon is stopped before the database is read. */
const settle = (daemon: ChildDaemon, root: Root, drops: ReadonlyArray<Drop>, context: () => string) =>
  Effect.gen(function*() {
    yield* drain(daemon, root).pipe(Effect.catchAllDefect((defect) => Effect.dieMessage(`${context()}\n${defect instanceof Error ? defect.message : String(defect)}`)))
    const listed = yield* fileImportsOf(daemon)
    const listedActivities = yield* activitiesOf(daemon)
    yield* daemon.kill()
    const state = readStorage(root)
    expect(problemsOf(state, drops, root, true), context()).toEqual([])
    // the API tells the same story as the database
    expect(listed.filter((f) => f.status === "queued"), context()).toEqual([])
    expect(listed.map((f) => `${f.filename} ${f.status}`).sort(), context()).toEqual(state.rows.map((r) => `${r.filename} ${r.status}`).sort())
    expect(listed.map((f) => f.filename).sort(), context()).toEqual(drops.map((d) => d.name).sort())
    expect(listedActivities.sort(), context()).toEqual(state.activities.map((a) => a.id).sort())
    return state
  })

/** The same files imported in one go by a daemon nobody kills, over fresh folders. */
const cleanImport = (drops: ReadonlyArray<Drop>) =>
  Effect.gen(function*() {
    const root = yield* scopedRoot()
    const daemon = yield* start(root)
    land(root.watchDir, drops)
    return yield* settle(daemon, root, drops, () => "the clean import")
  }).pipe(Effect.scoped)

/** Per group of same-activity files, the sorted statuses: the same whichever file of a group came first. */
const outcomeByGroup = (state: StorageState, drops: ReadonlyArray<Drop>) => {
  const status = new Map(state.rows.map((r) => [r.filename, r.status]))
  const groups: Record<string, Array<string>> = {}
  for (const drop of drops) (groups[drop.group] ??= []).push(status.get(drop.name) ?? "none")
  const sorted: Record<string, Array<string>> = {}
  for (const group of Object.keys(groups).sort()) sorted[group] = groups[group]!.sort()
  return sorted
}

// ---------------------------------------------------------------------------------------

describe("kill -9 during imports", () => {
  it.scopedLive(
    "a daemon SIGKILLed at random moments of a bulk import loses no file, leaves no half-written activity or duplicate, and resumes to the clean import's result",
    () =>
      Effect.gen(function*() {
        const began = Date.now()
        console.log(`KillNine seed ${SEED} (replay with KILL_NINE_SEED=${SEED})`)
        const random = seeded(SEED)
        const drops = buildDrops()
        expect(new Set(drops.map((d) => d.name)).size).toBe(drops.length)

        // the reference result, computed meanwhile by a daemon nobody kills
        const baselineFiber = yield* Effect.fork(cleanImport(drops))

        // the batches land in a shuffled order, one batch per round
        const shuffled = drops.map((d) => [random(), d] as const).sort(([a], [b]) => a - b).map(([, d]) => d)
        const batches = Array.from({ length: ROUNDS }, (_, r) => shuffled.filter((_, i) => i % ROUNDS === r))

        const root = yield* scopedRoot()
        const landed: Array<Drop> = []
        const journal: Array<string> = []
        let rowsBefore = 0
        let killsMidImport = 0
        let killsBetweenCommitAndRemoval = 0
        let killsBetweenCopyAndCommit = 0
        for (const [index, batch] of batches.entries()) {
          const round = index + 1
          const spawnedAt = Date.now()
          const daemon = yield* start(root)
          const readyAfter = Date.now() - spawnedAt
          land(root.watchDir, batch)
          landed.push(...batch)
          const from = originalsOf(root)
          let moment: string
          if (LANDING_ROUNDS.has(round)) {
            // on this machine a landed file's commit comes ~0.8 s after the landing at the
            // earliest (the watcher's write-finish wait, then the parse worker's start): these
            // kills hit that window, and any import still running from the previous rounds
            const delay = Math.floor(random() * (MAX_KILL_DELAY_MS + 1))
            yield* Effect.sleep(delay)
            moment = `${delay} ms after landing`
          } else {
            // the others hit the import itself, right after the n-th new original (2 <= n <= 4):
            // at once (half of the time: mostly between the copy and the commit) or 0-60 ms later
            const waiting = candidates(root.watchDir).length
            const count = 2 + Math.floor(random() * Math.max(1, Math.min(3, waiting - 3)))
            const delay = random() < 0.5 ? 0 : Math.floor(random() * (MAX_PROGRESS_DELAY_MS + 1))
            const reached = yield* originalsGrew(root, from, count)
            if (delay > 0) yield* Effect.sleep(delay)
            moment = reached ? `${delay} ms after ${count} new originals` : `after waiting in vain for ${count} new originals`
          }
          const exit = yield* daemon.kill("SIGKILL")
          expect(exit, `round ${round}: the daemon stopped by itself before the kill\n${daemon.output()}`).toEqual({ code: null, signal: "SIGKILL" })

          const state = readStorage(root)
          const committedInWatch = state.rows.filter((r) => state.watch.includes(r.filename)).length
          const referenced = new Set(state.rows.map((r) => r.original_file))
          const orphans = state.originals.filter((o) => !referenced.has(o)).length
          const committedThisRun = state.rows.length - rowsBefore
          rowsBefore = state.rows.length
          if (state.watch.length > 0 && committedThisRun > 0) killsMidImport++
          if (committedInWatch > 0) killsBetweenCommitAndRemoval++
          if (orphans > 0) killsBetweenCopyAndCommit++
          journal.push(
            `round ${round}: ready after ${readyAfter} ms, ${batch.length} landed, killed ${moment} (${Date.now() - spawnedAt} ms after spawn); ${committedThisRun} rows this run, ${state.rows.length}/${landed.length} in all, ` +
              `${state.watch.length} waiting (${committedInWatch} of them committed), ${state.activities.length} activities, ${state.originals.length} originals (${orphans} not committed)`
          )
          expect(problemsOf(state, landed, root, false), `seed ${SEED}\n${journal.join("\n")}`).toEqual([])
        }

        const finalSpawn = Date.now()
        const final = yield* start(root)
        const state = yield* settle(final, root, drops, () => `seed ${SEED}\n${journal.join("\n")}\nfinal run`)
        const finalMs = Date.now() - finalSpawn
        const baseline = yield* Fiber.join(baselineFiber)
        journal.push(`final run: drained in ${finalMs} ms from spawn; ${state.rows.length} rows, ${state.activities.length} activities; clean import: ${baseline.activities.length} activities`)
        const context = `seed ${SEED}\n${journal.join("\n")}`

        // the same end result as the clean import: per group of same-activity files the
        // same statuses (one success each), the same number of activities at the same times
        expect(outcomeByGroup(state, drops), context).toEqual(outcomeByGroup(baseline, drops))
        for (const group of Object.values(outcomeByGroup(baseline, drops))) expect(group.filter((s) => s === "success").length).toBeLessThanOrEqual(1)
        expect(state.activities.length, context).toBe(baseline.activities.length)
        expect(state.rows.filter((r) => r.status === "success").length, context).toBe(baseline.rows.filter((r) => r.status === "success").length)
        state.activities.forEach((a, i) => expect(Math.abs(a.start_time - baseline.activities[i]!.start_time), context).toBeLessThanOrEqual(60_000))
        // the design holds: duplicates skipped, broken files failed
        expect(baseline.rows.filter((r) => r.status === "skipped").length).toBeGreaterThanOrEqual(2)
        expect(baseline.rows.filter((r) => r.status === "failed").length).toBeGreaterThanOrEqual(1)
        // the test is not vacuous: kills landed in the middle of imports
        expect(killsMidImport, context).toBeGreaterThanOrEqual(1)

        console.log(
          `KillNine ${context}\n${killsMidImport}/${ROUNDS} kills in the middle of an import run, ${killsBetweenCopyAndCommit} between ` +
            `an original's copy and its commit, ${killsBetweenCommitAndRemoval} between a commit and the removal; ${Date.now() - began} ms`
        )
      }),
    // the outcome does not depend on the machine's load (the parse budget is processor time);
    // the clock it takes does: a shared 2-core machine at load 15 takes minutes
    { timeout: 1_200_000 }
  )
})
