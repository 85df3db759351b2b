import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberRef } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { send } from "../../support/TestDaemon.ts"
import { daemonLayer, dayStart, dropFile, gpxActivity, type Root, scopedRoot, waitFor } from "../../support/ImportHarness.ts"
import { zipOf } from "../../support/zipOf.ts"

/**
 * The originals are the source of truth, against the whole daemon over real folders, stopped
 * and started again over them: a database that is missing or empty beside kept originals is
 * said at start and rebuilt from them; a deleted activity does not come back; a zip of refused
 * entries keeps about what it weighed.
 */

/** How long the imports may take on a machine shared by many test runs. */
const PATIENCE = "180 seconds"

interface Row {
  readonly filename: string
  readonly status: string
  readonly errorMessage: string | null
}

const rowsOf = Effect.map(send("GET", "/api/v1/file-imports?pagination[size]=100"), (a) => (a.json?.fileImports ?? []) as Array<Row>)

/**
 * The files still waiting anywhere under the watch folder (a file's row is written before it
 * leaves); the daemon's own are dot-named. Typed by the listing, not by a stat after it: the
 * daemon removes files and folders while this looks, and a folder gone meanwhile holds none.
 */
const waitingFiles = (dir: string, under = ""): Array<string> => {
  let entries: Array<fs.Dirent>
  try {
    entries = fs.readdirSync(path.join(dir, under), { withFileTypes: true })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return []
    throw e
  }
  return entries.filter((e) => !e.name.startsWith(".")).flatMap((e) =>
    e.isDirectory() ? waitingFiles(dir, path.join(under, e.name)) : e.isFile() ? [path.join(under, e.name)] : []
  )
}

/** Waits until the import log lists `count` rows, none queued, and no file waits in the watch folder; on a timeout, says what was last seen. */
const settledRows = (root: Root, count: number) => {
  let seen = ""
  return waitFor(
    `${count} settled rows`,
    Effect.map(rowsOf, (rows) => {
      const waiting = waitingFiles(root.watchDir)
      seen = `rows ${JSON.stringify(rows.map((r) => [r.filename, r.status]))}, waiting ${JSON.stringify(waiting)}`
      return rows.length >= count && rows.every((r) => r.status !== "queued") && waiting.length === 0 ? rows : undefined
    }),
    { timeout: PATIENCE, interval: "100 millis" }
  ).pipe(Effect.catchAllDefect(() => Effect.dieMessage(`timed out waiting for ${count} settled rows; last seen: ${seen}`)))
}

const daemonLog = (root: Root) => {
  const dir = path.join(root.storageDir, "files", "logs")
  return fs.readdirSync(dir).filter((n) => n.startsWith("daemon-")).flatMap((n) =>
    fs.readFileSync(path.join(dir, n), "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { level: string; message: string })
  )
}

const databaseFiles = (root: Root) => ["", "-wal", "-shm"].map((suffix) => path.join(root.storageDir, "database", `waymark.sqlite${suffix}`))

/**
 * `body` against the daemon over `root`, started for it and stopped (its scope closed, as SIGTERM
 * does) once it ends. The test's loggers are put back after it: the daemon's file logger would
 * stay among them, and the next daemon over the same folder would write each line twice.
 */
const withDaemon = <A, E, R>(root: Root, body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(FiberRef.get(FiberRef.currentLoggers), (loggers) =>
    body.pipe(Effect.provide(daemonLayer(root)), Effect.scoped, Effect.locally(FiberRef.currentLoggers, loggers)))

const withWarnings = { LOG_LEVEL: "warning" }

describe("the originals are the source of truth", () => {
  it.scopedLive(
    "a database missing, then empty, beside the originals is said at start in one sentence at error level and rebuilt from them: every import back with its row; a deleted activity stays deleted",
    () =>
      Effect.gen(function*() {
        const root = yield* scopedRoot(withWarnings)
        const names = ["monday.gpx", "tuesday.gpx", "2024/wednesday.gpx", "thursday.gpx"]
        const expected = [...names.map((n) => [n, "success"]), ["broken.gpx", "failed"]].sort()
        yield* withDaemon(root, Effect.gen(function*() {
          names.forEach((name, i) => {
            fs.mkdirSync(path.dirname(path.join(root.watchDir, name)), { recursive: true })
            dropFile(root.watchDir, name, gpxActivity({ start: dayStart(i + 1), seconds: 1200, name: name }))
          })
          dropFile(root.watchDir, "broken.gpx", "<gpx>not a track")
          const rows = yield* settledRows(root, 5)
          expect(rows.map((r) => [r.filename, r.status]).sort()).toEqual(expected)
          // deleted: its original goes with it, and never comes back
          const thursday = (yield* send("GET", "/api/v1/activities?filters[search]=thursday")).json.activities[0].id
          expect((yield* send("GET", `/api/v1/activities?pagination[size]=10`)).json.activities).toHaveLength(4)
          yield* send("DELETE", `/api/v1/activities/${thursday}`)
        }))
        const kept = fs.readdirSync(root.originalsDir).sort()
        expect(kept).toHaveLength(4)

        for (const [damage, was] of [["missing", "was missing"], ["empty", "was empty"]] as const) {
          for (const file of databaseFiles(root)) fs.rmSync(file, { force: true })
          if (damage === "empty") fs.writeFileSync(databaseFiles(root)[0]!, "")
          const linesBefore = daemonLog(root).length
          yield* withDaemon(root, Effect.gen(function*() {
            const rebuilt = yield* settledRows(root, 4)
            expect(rebuilt.map((r) => [r.filename, r.status]).sort(), damage).toEqual(expected.filter(([n]) => n !== "thursday.gpx"))
            expect(rebuilt.find((r) => r.filename === "broken.gpx")?.errorMessage, damage).toMatch(/broken\.gpx/)
            const activities = (yield* send("GET", "/api/v1/activities?pagination[size]=10")).json.activities as Array<{ name: string }>
            expect(activities.map((a) => a.name).sort(), damage).toEqual(["2024/wednesday.gpx", "monday.gpx", "tuesday.gpx"])
          }))
          const said = daemonLog(root).slice(linesBefore).filter((l) => l.level === "ERROR")
          expect(said.map((l) => l.message), damage).toEqual([
            `The database ${databaseFiles(root)[0]} ${was} at start while ${root.originalsDir} holds 4 original files: the database is rebuilt from them (4 put back into the watch folder, each imported again); if the database is elsewhere (a wrong STORAGE_DIR, a volume not mounted), stop the daemon and put it back.`
          ])
          // each original kept once, named by its row
          expect(fs.readdirSync(root.originalsDir), damage).toHaveLength(4)
        }
      }),
    { timeout: 900_000 }
  )

  it.scopedLive("a 100 KB zip of zero-filled .fit entries (256 MB unpacked) keeps its failures in about what it weighed: eight failed rows, one compressed original", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot(withWarnings)
      const zeros = Buffer.alloc(32 * 1024 * 1024)
      const zip = zipOf(Array.from({ length: 8 }, (_, i) => ({ name: `zeros-${i}.fit`, data: zeros })), { deflate: true })
      expect(zip.length).toBeLessThan(300_000)
      yield* withDaemon(root, Effect.gen(function*() {
        dropFile(root.watchDir, "zeros.zip", zip)
        const rows = yield* settledRows(root, 8)
        expect(rows.map((r) => r.status)).toEqual(Array(8).fill("failed"))
      }))
      const sizes = fs.readdirSync(root.originalsDir).map((n) => fs.statSync(path.join(root.originalsDir, n)).size)
      expect(sizes).toHaveLength(1)
      expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(zip.length)
      // what is kept is the bytes that were dropped, compressed
      const [kept] = fs.readdirSync(root.originalsDir)
      expect(zlib.gunzipSync(fs.readFileSync(path.join(root.originalsDir, kept!))).equals(zeros)).toBe(true)
    }), { timeout: 600_000 })
})
