import { describe, expect, layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { ImportRetryPolicy } from "../../../src/services/import/ImportRetryPolicy.ts"
import { compressRegularFile, copyRegularFile, OriginalsDisk } from "../../../src/services/import/OriginalsDisk.ts"
import { readChannel, send, TestDaemon } from "../../support/TestDaemon.ts"
import {
  daemonLayer, dayStart, dropFile, fitActivity, gpxActivity, importRows, listFiles, scopedRoot, waitFor, waitForRow
} from "../../support/ImportHarness.ts"

/**
 * What the ImportWorker does when storing a file fails for a reason that is not the file's:
 * bounded retries that never hold up the files behind, then `failed` with a reference; and a
 * full disk, which keeps the file queued until there is room.
 */

const FAST = {
  attempts: 3,
  backoff: () => Duration.millis(100),
  storageFullDelay: Duration.millis(150)
}

/**
 * The disk under files/originals, as a test drives it: full, failing, or fine; or, for the
 * real full disk (`real`), the daemon's own calls.
 */
const disk = {
  copies: 0,
  fault: null as null | "ENOSPC" | "EDQUOT" | "EIO" | "EACCES",
  faultsLeft: Infinity,
  real: false,
  copyFile(from: string, to: string) {
    if (disk.real) return copyRegularFile(from, to)
    disk.copies++
    if (disk.fault !== null && disk.faultsLeft > 0) {
      disk.faultsLeft--
      throw Object.assign(new Error(`${disk.fault}: simulated, copyfile '${from}'`), { code: disk.fault })
    }
    fs.copyFileSync(from, to)
  },
  // a failure's original, kept compressed: the same faults
  async compressFile(from: string, to: string) {
    if (disk.real) return compressRegularFile(from, to)
    disk.copyFile(from, to)
  },
  reset() {
    disk.fault = null
    disk.faultsLeft = Infinity
  }
}

const queuedNames = Effect.map(send("GET", "/api/v1/file-imports?filters[status]=queued&pagination[size]=100"), (a) => {
  expect(a.status).toBe(200)
  return (a.json.fileImports as Array<{ filename: string }>).map((f) => f.filename)
})

const sql = <A extends object = Record<string, unknown>>(statement: string) =>
  Effect.flatMap(SqlClient.SqlClient, (client) => client.unsafe<A>(statement)).pipe(Effect.orDie)

const logLines = (channel: string, pattern: RegExp) =>
  Effect.map(readChannel(channel), (lines) => lines.filter((l) => pattern.test(l.message)))

// ---------------------------------------------------------------------------------------
// A real full file system: a small tmpfs under the originals and under the database

const tryMount = (dir: string, size: string): boolean => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}
const unmount = (dir: string) => {
  try {
    execFileSync("umount", ["-l", dir], { stdio: "ignore" })
  } catch {
    // already gone
  }
}

const MOUNT_PERMITTED = (() => {
  const probe = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "waymark-mount-probe-"))
  const ok = tryMount(probe, "64k")
  if (ok) unmount(probe)
  fs.rmSync(probe, { recursive: true, force: true })
  return ok
})()
if (!MOUNT_PERMITTED) console.log("mount is not permitted here (needs root or CAP_SYS_ADMIN): the tmpfs full-disk test is skipped")

/** Fills the file system holding `dir` with one file; returns it. */
const fill = (dir: string): string => {
  const filler = path.join(dir, ".filler")
  const fd = fs.openSync(filler, "w")
  const chunk = Buffer.alloc(64 * 1024, 1)
  try {
    while (true) fs.writeSync(fd, chunk)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e
  } finally {
    fs.closeSync(fd)
  }
  // a few bytes may still fit in the last block: take them too
  try {
    fs.appendFileSync(filler, Buffer.alloc(4096, 1))
  } catch {
    // full
  }
  return filler
}


/**
 * One daemon for every test: the FAST policy, the simulated disk under the originals (a real
 * copy while no fault is set) and, where mounting is permitted, a small tmpfs under the
 * originals and another under the database, which the last test fills for real.
 */
const daemon = Layer.unwrapScoped(Effect.gen(function*() {
  const root = yield* scopedRoot()
  if (MOUNT_PERMITTED) {
    const database = path.join(root.storageDir, "database")
    for (const dir of [root.originalsDir, database]) {
      fs.mkdirSync(dir, { recursive: true })
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          if (!tryMount(dir, "8m")) throw new Error(`mount of a tmpfs at ${dir} failed`)
        }),
        () => Effect.sync(() => unmount(dir))
      )
    }
  }
  return daemonLayer(root)
})).pipe(Layer.provide(Layer.mergeAll(Layer.succeed(ImportRetryPolicy, FAST), Layer.succeed(OriginalsDisk, disk))))

describe("retries of a file that cannot be stored", () => {
  layer(daemon, { excludeTestServices: true })((it) => {
    it.effect("a commit that keeps failing is tried 3 times, then ends failed with a reference the errors log repeats; the file behind it imports meanwhile", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        yield* sql(`CREATE TRIGGER refuse_boom BEFORE INSERT ON activities WHEN NEW.name = 'Boom'
          BEGIN SELECT RAISE(ABORT, 'the trigger refuses Boom'); END`)
        dropFile(watchDir, "boom.gpx", gpxActivity({ start: dayStart(1), seconds: 1200, name: "Boom" }))
        dropFile(watchDir, "behind.fit", fitActivity({ start: dayStart(2), seconds: 1200 }))
        const row = yield* waitForRow("boom.gpx")
        expect(row.status).toBe("failed")
        const reference = /^"boom\.gpx" could not be stored \(3 attempts\); reference ([0-9a-f]{8})\.$/.exec(row.error_message ?? "")?.[1]
        expect(reference, row.error_message ?? "").toBeDefined()
        // the file behind it was imported first, during the retries
        const rows = yield* importRows()
        expect(rows.map((r) => [r.filename, r.status])).toEqual([["behind.fit", "success"], ["boom.gpx", "failed"]])
        expect(listFiles(watchDir).filter((f) => !f.startsWith("."))).toEqual([])
        const errors = yield* logLines("errors", new RegExp(`^${reference} - import of "boom.gpx" failed 3 times$`))
        expect(errors).toHaveLength(1)
        expect(errors[0]!.annotations.reference).toBe(reference)
        expect(errors[0]!.annotations.stack).toContain("the trigger refuses Boom")
        expect(yield* logLines("daemon", /^import of "boom\.gpx" stopped unexpectedly \(attempt [12] of 3\)/)).toHaveLength(2)
        // served as it is stored
        const served = yield* send("GET", "/api/v1/file-imports?filters[filename]=boom.gpx")
        expect(served.json.fileImports[0].errorMessage).toBe(row.error_message)
        yield* sql("DROP TRIGGER refuse_boom")
      }))

    it.effect("a commit that fails twice, then works, imports on its third attempt", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        disk.fault = "EIO"
        disk.faultsLeft = 2
        dropFile(watchDir, "flaky.fit", fitActivity({ start: dayStart(3), seconds: 900 }))
        const row = yield* waitForRow("flaky.fit")
        disk.reset()
        expect([row.status, row.error_message]).toEqual(["success", null])
        expect(yield* logLines("daemon", /^import of "flaky\.fit" stopped unexpectedly/)).toHaveLength(2)
      }))

    it.effect("a full disk under the originals keeps the file queued, uncounted, until there is room (ENOSPC, then EDQUOT)", () =>
      Effect.gen(function*() {
        const { watchDir, originalsDir } = yield* TestDaemon
        for (const [fault, n] of [["ENOSPC", 4], ["EDQUOT", 5]] as const) {
          disk.fault = fault
          const before = disk.copies
          const name = `full-${fault}.fit`
          dropFile(watchDir, name, fitActivity({ start: dayStart(n), seconds: 900 }))
          // far more tries than the 3 attempts of an unexpected failure, and still queued
          yield* waitFor(`6 tries of ${name}`, Effect.sync(() => (disk.copies - before >= 6 ? true : undefined)))
          expect(yield* importRows(name)).toEqual([])
          expect(listFiles(watchDir)).toContain(name)
          expect(yield* queuedNames).toContain(name)
          expect(listFiles(originalsDir).filter((f) => f.endsWith(".part"))).toEqual([])
          disk.reset()
          const row = yield* waitForRow(name)
          expect(row.status).toBe("success")
          // it leaves the folder just after its row is committed
          yield* waitFor(`${name} out of the folder`, Effect.sync(() => (listFiles(watchDir).includes(name) ? undefined : true)))
        }
        expect((yield* logLines("daemon", /could not be stored: the disk is full/)).length).toBeGreaterThanOrEqual(12)
        expect(yield* logLines("errors", /full-/)).toEqual([])
      }))

    it.effect("a full database (SQLITE_FULL) keeps the file queued until there is room", () =>
      Effect.gen(function*() {
        const { watchDir, originalsDir } = yield* TestDaemon
        const [{ page_count }] = (yield* sql<{ page_count: number }>("PRAGMA page_count")) as [{ page_count: number }]
        yield* sql(`PRAGMA max_page_count = ${page_count}`)
        const before = (yield* logLines("daemon", /"db-full\.fit" could not be stored: the disk is full/)).length
        dropFile(watchDir, "db-full.fit", fitActivity({ start: dayStart(6), seconds: 3600, step: 1 }))
        yield* waitFor("three refusals of the full database", Effect.map(
          logLines("daemon", /"db-full\.fit" could not be stored: the disk is full/),
          (lines) => (lines.length - before >= 4 ? true : undefined)
        ))
        expect(yield* importRows("db-full.fit")).toEqual([])
        expect(yield* queuedNames).toContain("db-full.fit")
        // the original kept before the transaction was removed with its rollback
        expect(listFiles(originalsDir).filter((f) => !f.startsWith("."))).toHaveLength((yield* importRows()).filter((r) => r.original_file).length)
        yield* sql("PRAGMA max_page_count = 1073741823")
        expect((yield* waitForRow("db-full.fit")).status).toBe("success")
      }))

    it.effect("a file, or a refused zip, whose copy into storage keeps failing (no permission) is never removed without it: no row, it stays, the daemon log says why, and it is tried again until the copy works", () =>
      Effect.gen(function*() {
        const { watchDir, originalsDir } = yield* TestDaemon
        disk.fault = "EACCES"
        const before = disk.copies
        const bytes = fitActivity({ start: dayStart(7), seconds: 900 })
        dropFile(watchDir, "no-room.fit", bytes)
        const zip = Buffer.from("this is no zip at all")
        dropFile(watchDir, "broken.zip", zip)
        const stays = (name: string) => logLines("daemon", new RegExp(`^"${name.replace(".", "\\.")}" stays in the watch folder: its copy could not be kept in storage \\(EACCES: simulated`))
        // the file's 3 attempts and the abandon, then a second round: tried again
        yield* waitFor("two rounds of the file", Effect.map(stays("no-room.fit"), (lines) => (lines.length >= 2 ? true : undefined)))
        yield* waitFor("the zip kept back twice", Effect.map(stays("broken.zip"), (lines) => (lines.length >= 2 ? true : undefined)))
        expect(disk.copies - before).toBeGreaterThanOrEqual(10)
        expect(yield* importRows("no-room.fit")).toEqual([])
        expect(yield* importRows("broken.zip")).toEqual([])
        expect(listFiles(watchDir)).toEqual(expect.arrayContaining(["broken.zip", "no-room.fit"]))
        expect((yield* stays("no-room.fit"))[0]!.level).toBe("WARN")
        disk.reset()
        expect((yield* waitForRow("no-room.fit")).status).toBe("success")
        const refused = yield* waitForRow("broken.zip")
        expect(refused.status).toBe("failed")
        expect(fs.readFileSync(path.join(originalsDir, refused.original_file!))).toEqual(zip)
        yield* waitFor("both out of the folder", Effect.sync(() => (listFiles(watchDir).some((f) => ["broken.zip", "no-room.fit"].includes(f)) ? undefined : true)))
      }))

    // last: it leaves the disks as it found them, but fills them to the last byte meanwhile
    it.effect.skipIf(!MOUNT_PERMITTED)("a real full disk (tmpfs): ENOSPC under the originals and SQLITE_FULL in the database keep a file queued; it imports once there is room", () =>
      Effect.gen(function*() {
        const { watchDir, originalsDir, databaseFile } = yield* TestDaemon
        disk.real = true
        dropFile(watchDir, "tmpfs-first.fit", fitActivity({ start: dayStart(20), seconds: 600 }))
        expect((yield* waitForRow("tmpfs-first.fit")).status).toBe("success")

        // no room for the original
        const filler = fill(originalsDir)
        dropFile(watchDir, "tmpfs-no-room.fit", fitActivity({ start: dayStart(21), seconds: 1800 }))
        yield* waitFor("three refusals", Effect.map(logLines("daemon", /"tmpfs-no-room\.fit" could not be stored: the disk is full/), (l) => (l.length >= 3 ? true : undefined)))
        expect(yield* importRows("tmpfs-no-room.fit")).toEqual([])
        expect(yield* queuedNames).toContain("tmpfs-no-room.fit")
        fs.rmSync(filler)
        expect((yield* waitForRow("tmpfs-no-room.fit")).status).toBe("success")

        // no room for the database to grow: its write-ahead log emptied first (the frames it
        // holds would be written over again, room enough for a small activity), so that any
        // activity needs room the disk has not: an hour of points rather than four hours
        const [checkpoint] = yield* sql<{ busy: number }>("PRAGMA wal_checkpoint(TRUNCATE)")
        expect(checkpoint!.busy).toBe(0)
        const dbFiller = fill(path.dirname(databaseFile))
        dropFile(watchDir, "tmpfs-no-room-db.fit", fitActivity({ start: dayStart(22), seconds: 3600, step: 2 }))
        yield* waitFor("three refusals", Effect.map(logLines("daemon", /"tmpfs-no-room-db\.fit" could not be stored: the disk is full/), (l) => (l.length >= 3 ? true : undefined)))
        expect(yield* importRows("tmpfs-no-room-db.fit")).toEqual([])
        expect(yield* queuedNames).toContain("tmpfs-no-room-db.fit")
        fs.rmSync(dbFiller)
        expect((yield* waitForRow("tmpfs-no-room-db.fit")).status).toBe("success")
        expect(yield* logLines("errors", /tmpfs-no-room/)).toEqual([])
      }).pipe(Effect.ensuring(Effect.sync(() => void (disk.real = false)))), { timeout: 60_000 })
  })
})

