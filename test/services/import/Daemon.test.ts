import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { fileForm, send, TestDaemon } from "../../support/TestDaemon.ts"
import {
  dayStart, dropFile, fitActivity, freshDaemon, gpxActivity, importRows, listFiles, tcxActivity, waitFor, waitForGone, waitForRow
} from "../../support/ImportHarness.ts"
import { zipOf } from "../../support/zipOf.ts"
import { keptBytes } from "../../support/keptBytes.ts"

/** The import path through the running daemon: watch folder, worker, API. */

const queuedNames = Effect.map(send("GET", "/api/v1/file-imports?filters[status]=queued&pagination[size]=100"), (a) => {
  expect(a.status).toBe(200)
  return (a.json.fileImports as Array<{ filename: string }>).map((f) => f.filename)
})

describe("watch folder", () => {
  layer(freshDaemon(), { excludeTestServices: true })((it) => {
    it.effect("imports a file within 2 s of its final rename, from a .part name or from a dot-folder", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        // a first import, untimed: loading the parse worker from source (tsx) is not the watcher
        dropFile(watchDir, "warm-up.fit", fitActivity({ start: dayStart(9), seconds: 600 }), "part")
        yield* waitForRow("warm-up.fit", "20 seconds")
        const renamedAt = dropFile(watchDir, "renamed.fit", fitActivity({ start: dayStart(1), seconds: 1200 }), "part")
        const row = yield* waitForRow("renamed.fit", "2 seconds")
        expect(Date.now() - renamedAt).toBeLessThan(2000)
        expect(row.status).toBe("success")
        const movedAt = dropFile(watchDir, "moved.gpx", gpxActivity({ start: dayStart(2), seconds: 1200 }), "dotdir")
        expect((yield* waitForRow("moved.gpx", "2 seconds")).status).toBe("success")
        expect(Date.now() - movedAt).toBeLessThan(2000)
        yield* waitForGone(path.join(watchDir, "moved.gpx"))
      }))

    it.effect("imports a gzipped file dropped into the folder (a Strava export's activities/*.fit.gz)", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        dropFile(watchDir, "1234567.fit.gz", zlib.gzipSync(fitActivity({ start: dayStart(5), seconds: 900 })), "part")
        expect((yield* waitForRow("1234567.fit.gz", "20 seconds")).status).toBe("success")
        yield* waitForGone(path.join(watchDir, "1234567.fit.gz"))
      }))

    it.effect("unpacks a dropped Strava export (gzipped files in folders flattened, other entries left out), each file with its own row and its activities.csv name, description, commute flag and gear", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const zip = zipOf([
          { name: "activities/", data: "" },
          { name: "activities/111.fit.gz", data: zlib.gzipSync(fitActivity({ start: dayStart(6), seconds: 900 })) },
          { name: "activities/222.gpx", data: gpxActivity({ start: dayStart(7), seconds: 900 }) },
          { name: "elsewhere/333.tcx", data: tcxActivity({ start: dayStart(8), seconds: 900 }) },
          { name: "profile.json", data: "{}" },
          {
            name: "activities.csv",
            data: "Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Commute,Activity Gear,Filename,Commute\n" +
              "111,\"Mar 10, 2024, 6:00:00 AM\",Col de la Croix,Ride,\"Windy, then \"\"sunny\"\"\nat the top\",true,Canyon Endurace,activities/111.fit.gz,1.0\n" +
              "222,\"Mar 10, 2024, 7:00:00 AM\",Lunch Run,Run,,false,,activities/222.gpx,0.0\n"
          }
        ])
        dropFile(watchDir, "export_123.zip", zip)
        for (const name of ["111.fit.gz", "222.gpx", "333.tcx"]) {
          expect((yield* waitForRow(name, "20 seconds")).status, name).toBe("success")
        }
        yield* waitForGone(path.join(watchDir, "export_123.zip"))
        const ride = (yield* send("GET", `/api/v1/activities/${(yield* waitForRow("111.fit.gz")).activity_id}`)).json
        expect(ride).toMatchObject({ name: "Col de la Croix", description: "Windy, then \"sunny\"\nat the top", isCommute: true })
        const gear = (yield* send("GET", "/api/v1/gear")).json.gear as Array<{ id: string; name: string }>
        expect(gear.find((g) => g.id === ride.gearId)?.name).toBe("Canyon Endurace")
        const run = (yield* send("GET", `/api/v1/activities/${(yield* waitForRow("222.gpx")).activity_id}`)).json
        expect(run).toMatchObject({ name: "Lunch Run", isCommute: false, gearId: null })
        expect((yield* importRows()).some((r) => r.filename === "profile.json")).toBe(false)
      }))

    it.effect("a zip holding another archive is refused whole: one failed row naming the inner archive and what to do, none of its files imported, the zip kept in storage", () =>
      Effect.gen(function*() {
        const { originalsDir, watchDir } = yield* TestDaemon
        const zip = zipOf([
          { name: "activities/444.fit.gz", data: zlib.gzipSync(fitActivity({ start: dayStart(14), seconds: 900 })) },
          { name: "activities/555.gpx", data: gpxActivity({ start: dayStart(15), seconds: 900 }) },
          { name: "inner/more.zip", data: zipOf([{ name: "666.fit", data: fitActivity({ start: dayStart(16), seconds: 900 }) }]) },
          { name: "other/notes.tar.gz", data: "not looked into" }
        ])
        dropFile(watchDir, "with-archive.zip", zip)
        const row = yield* waitForRow("with-archive.zip")
        expect(row).toMatchObject({ status: "failed", activity_id: null })
        expect(row.error_message).toBe(
          '"with-archive.zip" was not unpacked: it holds another archive, "inner/more.zip", and archives inside an archive are not unpacked; ' +
            "nothing was unpacked. Unpack it and drop its activity files (or that archive on its own) into the watch folder, then drop this zip again without it."
        )
        expect(keptBytes(originalsDir, row)).toEqual(zip)
        yield* waitForGone(path.join(watchDir, "with-archive.zip"))
        expect(listFiles(watchDir).filter((f) => !f.startsWith("."))).toEqual([])
        expect((yield* importRows()).filter((r) => ["444.fit.gz", "555.gpx", "more.zip", "666.fit"].includes(r.filename))).toEqual([])
      }))

    it.effect("a zip with a path leading upward, or damaged half way, gets a failed row saying why and is kept in storage, unpacking none of its files", () =>
      Effect.gen(function*() {
        const { originalsDir, watchDir } = yield* TestDaemon
        const entries = [
          { name: "a.fit", data: fitActivity({ start: dayStart(10), seconds: 900 }) },
          { name: "b.fit", data: fitActivity({ start: dayStart(11), seconds: 900 }) }
        ]
        const escaping = zipOf([...entries, { name: "../../escape.tcx", data: tcxActivity({ start: dayStart(8), seconds: 900 }) }])
        dropFile(watchDir, "escaping.zip", escaping)
        // the second entry claims one byte more than it holds
        const damaged = zipOf(entries)
        const central = damaged.lastIndexOf(Buffer.from("b.fit")) - 46
        damaged.writeUInt32LE(damaged.readUInt32LE(central + 24) + 1, central + 24)
        dropFile(watchDir, "damaged.zip", damaged)
        const escapingRow = yield* waitForRow("escaping.zip")
        expect(escapingRow).toMatchObject({ status: "failed", activity_id: null })
        expect(escapingRow.error_message).toMatch(/^"escaping\.zip" was not unpacked: it holds a file whose path leads outside the archive/)
        const damagedRow = yield* waitForRow("damaged.zip")
        expect(damagedRow.status).toBe("failed")
        expect(damagedRow.error_message).toMatch(/^"damaged\.zip" was not unpacked: it is damaged/)
        // kept in storage like every failed original, out of the watch folder: not tried again
        expect(keptBytes(originalsDir, escapingRow)).toEqual(escaping)
        expect(keptBytes(originalsDir, damagedRow)).toEqual(damaged)
        yield* waitForGone(path.join(watchDir, "escaping.zip"), path.join(watchDir, "damaged.zip"))
        expect(fs.existsSync(path.join(path.dirname(watchDir), "escape.tcx"))).toBe(false)
        expect(fs.readdirSync(watchDir).filter((f) => /\.(fit|tcx)$/.test(f))).toEqual([])
        expect((yield* importRows()).some((r) => ["a.fit", "b.fit", "escape.tcx"].includes(r.filename))).toBe(false)
        const listed = (yield* send("GET", "/api/v1/file-imports?filters[filename]=escaping.zip")).json.fileImports
        expect(listed).toMatchObject([{ filename: "escaping.zip", source: "zipFile", status: "failed" }])
      }))

    it.effect("ignores dot-files, dot-folders, .part and .tmp files and unsupported types, which stay in place with no row; imports subfolders and removes those it empties", () =>
      Effect.gen(function*() {
        const { originalsDir, watchDir } = yield* TestDaemon
        const bytes = fitActivity({ start: dayStart(3), seconds: 600 })
        const ignored = [".hidden.fit", "writing.fit.part", "writing.gpx.tmp", "notes.txt", "photo.jpg", ".dot-folder/inside.fit"]
        fs.mkdirSync(path.join(watchDir, ".dot-folder"))
        for (const name of ignored) fs.writeFileSync(path.join(watchDir, name), bytes)
        fs.mkdirSync(path.join(watchDir, "2023-rides", "march"), { recursive: true })
        fs.writeFileSync(path.join(watchDir, "2023-rides", "march", "nested.fit"), bytes)
        fs.writeFileSync(path.join(watchDir, "2023-rides", "flat.gpx"), gpxActivity({ start: dayStart(13), seconds: 600 }))
        const nested = yield* waitForRow("2023-rides/march/nested.fit")
        expect(nested.status).toBe("success")
        expect(keptBytes(originalsDir, nested)).toEqual(Buffer.from(bytes))
        expect((yield* waitForRow("2023-rides/flat.gpx")).status).toBe("success")
        // the folders the import emptied are gone
        yield* waitForGone(path.join(watchDir, "2023-rides"))
        dropFile(watchDir, "sentinel.tcx", tcxActivity({ start: dayStart(4), seconds: 600 }))
        // dropped after the others: its import comes after any of theirs
        yield* waitForRow("sentinel.tcx")
        for (const name of ignored) expect(fs.existsSync(path.join(watchDir, name)), name).toBe(true)
        const rows = yield* importRows()
        for (const name of ignored) expect(rows.some((r) => r.filename.endsWith(path.basename(name))), name).toBe(false)
        expect(yield* queuedNames).toEqual([])
      }))

    it.effect("imports one file at a time, and a file leaves the watch folder only after its row is committed", () =>
      Effect.gen(function*() {
        const { watchDir, originalsDir } = yield* TestDaemon
        const names = Array.from({ length: 10 }, (_, i) => `bulk-${i}.${["fit", "gpx", "tcx"][i % 3]}`)
        const build = (i: number) => {
          const shape = { start: dayStart(10 + i), seconds: 3600, step: 1 }
          return i % 3 === 0 ? fitActivity(shape) : i % 3 === 1 ? gpxActivity(shape) : tcxActivity(shape)
        }
        const staged = names.map((name, i) => [name, build(i)] as const)
        for (const [name, bytes] of staged) dropFile(watchDir, name, bytes)
        let samples = 0
        let maxInFlight = 0
        yield* waitFor("the bulk import", Effect.gen(function*() {
          // listing first, rows second: a file missing from the listing was removed before the query
          const present = new Set(listFiles(watchDir))
          const originals = listFiles(originalsDir).filter((f) => !f.startsWith("."))
          const rows = yield* importRows()
          const names_ = new Set(rows.map((r) => r.filename))
          const referenced = new Set(rows.map((r) => r.original_file))
          for (const name of names) if (!present.has(name)) expect(names_.has(name), `${name} left the watch folder without a row`).toBe(true)
          // an original is written just before its commit: at most one is not referenced yet
          maxInFlight = Math.max(maxInFlight, originals.filter((o) => !referenced.has(o)).length)
          samples++
          return names.every((n) => names_.has(n)) ? true : undefined
        }), { timeout: "60 seconds", interval: "5 millis" })
        expect(samples).toBeGreaterThan(5)
        expect(maxInFlight).toBeLessThanOrEqual(1)
        const rows = yield* importRows()
        for (const name of names) expect(rows.filter((r) => r.filename === name).map((r) => r.status), name).toEqual(["success"])
      }))

    it.effect("GET /api/v1/status keeps answering while a bulk import runs", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        const names = Array.from({ length: 8 }, (_, i) => `busy-${i}.gpx`)
        for (const [i, name] of names.entries()) dropFile(watchDir, name, gpxActivity({ start: dayStart(40 + i), seconds: 4 * 3600, step: 1 }))
        const importing = yield* Effect.fork(Effect.forEach(names, (n) => waitForRow(n, "60 seconds")))
        let answered = 0
        let duringImport = 0
        while (true) {
          const done = yield* Fiber.poll(importing)
          const answer = yield* send("GET", "/api/v1/status").pipe(Effect.timeout("5 seconds"))
          expect(answer.status).toBe(200)
          expect(answer.json).toMatchObject({ app: "waymark" })
          answered++
          if (done._tag === "Some") break
          if (listFiles(watchDir).some((f) => names.includes(f))) duringImport++
          yield* Effect.sleep("10 millis")
        }
        yield* Fiber.join(importing)
        expect(duringImport).toBeGreaterThan(0)
        expect(answered).toBeGreaterThan(duringImport)
      }))
  })
})

describe("upload, delete and import again", () => {
  layer(freshDaemon(), { excludeTestServices: true })((it) => {
    const bytes = fitActivity({ start: dayStart(100), seconds: 2400, sport: "cycling" })

    const uploadAndWait = (name: string) =>
      Effect.gen(function*() {
        const accepted = yield* send("POST", "/api/v1/activity/upload", { body: fileForm(name, bytes) })
        expect(accepted.status).toBe(202)
        expect(accepted.json).toMatchObject({ status: "queued" })
        return yield* waitFor(`${name} in file-imports`, Effect.map(send("GET", `/api/v1/file-imports?filters[filename]=${name}`), (a) => {
          const done = (a.json.fileImports as Array<any>).find((f) => f.status !== "queued")
          return done
        }))
      })

    it.effect("an upload ends success in GET /file-imports; the activity and its GPX are served; DELETE removes the original; the same file then imports again", () =>
      Effect.gen(function*() {
        const { originalsDir } = yield* TestDaemon
        const first = yield* uploadAndWait("upload.fit")
        expect(first).toMatchObject({ status: "success", source: "fitFile", errorMessage: null })
        const id: string = first.activityId
        const activity = yield* send("GET", `/api/v1/activities/${id}`)
        expect(activity.status).toBe(200)
        expect(activity.json).toMatchObject({ id, sportType: "Ride", elapsedTimeInSeconds: 2400, hasGpx: true })
        const gpx = yield* send("GET", `/api/v1/activities/${id}/gpx`)
        expect(gpx.status).toBe(200)
        expect(gpx.text).toContain("<trkpt")
        expect(listFiles(originalsDir)).toHaveLength(1)

        // the same bytes again: skipped, naming the activity
        const again = yield* uploadAndWait("upload-copy.fit")
        expect(again.status).toBe("skipped")
        expect(again.errorMessage).toContain(id)

        expect((yield* send("DELETE", `/api/v1/activities/${id}`)).status).toBeLessThan(300)
        expect((yield* send("GET", `/api/v1/activities/${id}`)).status).toBe(404)
        expect(listFiles(originalsDir)).toEqual([])

        const third = yield* uploadAndWait("upload-again.fit")
        expect(third.status).toBe("success")
        expect(third.activityId).not.toBe(id)
        expect(listFiles(originalsDir)).toHaveLength(1)
      }))
  })
})
