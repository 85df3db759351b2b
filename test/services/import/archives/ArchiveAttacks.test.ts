import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { identityOf } from "../../../../src/services/import/files/FileOnDisk.ts"
import { ImportService } from "../../../../src/services/import/ImportService.ts"
import { ReadingMarks } from "../../../../src/services/import/ReadingMarks.ts"
import { UnpackedEntries, zipKey } from "../../../../src/services/import/archives/UnpackedEntries.ts"
import { exportPlanner } from "../../../../src/services/import/archives/exportPlanner.ts"
import { stageZip, removeStaging, ZipProblem, type ZipLimits } from "../../../../src/services/import/archives/ZipArchive.ts"
import { dayStart, gpxActivity, importRows, listFiles, scopedRoot, servicesLayer } from "../../../support/ImportHarness.ts"
import { tempDirs } from "../../../support/tempDirs.ts"
import { zipOf } from "../../../support/zipOf.ts"

/**
 * Archives built to stop the daemon, each made here and scaled down by lowering the archive's
 * limits: an entry that inflates past its limit (zeros), an entry whose header lies about its
 * size, entries that together pass the archive's total, two entries of one name; a file that was
 * being read when the process died (its poison-pill mark left behind) set aside at start and
 * never read again; an unpacking a stop cut short resumed from its journal, nothing twice,
 * nothing lost.
 */

const MiB = 1024 * 1024
const LIMITS: ZipLimits = { entries: 100, entryBytes: 1 * MiB, totalBytes: 3 * MiB }
const tempDir = tempDirs("waymark-attack-")
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")

/** `zip` whose entry `name` says, in both its headers, that it unpacks to `claimed` bytes. */
const lyingAbout = (zip: Buffer, name: string, claimed: number): Buffer => {
  const out = Buffer.from(zip)
  for (const [signature, sizeAt, nameLengthAt, nameAt] of [[0x04034b50, 22, 26, 30], [0x02014b50, 24, 28, 46]] as const) {
    for (let at = out.indexOf(Buffer.from([signature & 0xff, (signature >> 8) & 0xff, (signature >> 16) & 0xff, signature >>> 24])); at !== -1; at = out.indexOf(Buffer.from([signature & 0xff, (signature >> 8) & 0xff, (signature >> 16) & 0xff, signature >>> 24]), at + 4)) {
      const length = out.readUInt16LE(at + nameLengthAt)
      if (out.toString("utf8", at + nameAt, at + nameAt + length) === name) out.writeUInt32LE(claimed, at + sizeAt)
    }
  }
  return out
}

/** Stages `zip` written into a fresh folder; the refusal, or the staged zip, and what the folder holds after. */
const stageInFolder = async (zip: Buffer) => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, "attack.zip"), zip)
  try {
    const staged = await stageZip(path.join(dir, "attack.zip"), dir, exportPlanner(dir, "attack.zip"), LIMITS)
    return { staged, error: null, left: fs.readdirSync(dir).sort() }
  } catch (error) {
    return { staged: null, error: error as Error, left: fs.readdirSync(dir).sort() }
  }
}

const zeros = (bytes: number) => Buffer.alloc(bytes)

describe("an archive's entries are counted against its limits as they inflate", () => {
  it("an entry of zeros past the entry's limit fails the archive naming the entry and the limit, and leaves no staging folder", async () => {
    const zip = zipOf([{ name: "a.gpx", data: gpxActivity({ start: dayStart(1), seconds: 600 }) }, { name: "big.fit", data: zeros(2 * MiB) }], { deflate: true })
    expect(zip.length).toBeLessThan(20_000)
    const { error, left } = await stageInFolder(zip)
    expect(error).toBeInstanceOf(ZipProblem)
    expect(error?.message).toBe(`its entry "big.fit" unpacks to more than 1 MiB, the limit of one entry of an archive (ARCHIVE_ENTRY_MAX_SIZE)`)
    expect(left).toEqual(["attack.zip"])
  })

  it("an entry whose header says it is small but inflates past it fails the archive as damaged, naming the entry; its write stream never outlives the staging folder", async () => {
    const zip = lyingAbout(zipOf([{ name: "big.fit", data: zeros(2 * MiB) }], { deflate: true }), "big.fit", 100)
    const { error, left } = await stageInFolder(zip)
    expect(error).toBeInstanceOf(ZipProblem)
    expect(error?.message).toMatch(/^its entry "big\.fit" is damaged \(/)
    expect(left).toEqual(["attack.zip"])
    // an unhandled stream error would surface after the refusal: let the event loop turn a few times
    await new Promise((resolve) => setTimeout(resolve, 50))
  })

  it("an entry whose header claims a size past the limit is refused before anything of it is opened", async () => {
    const zip = lyingAbout(zipOf([{ name: "small.fit", data: zeros(10) }], { deflate: true }), "small.fit", 2 * MiB)
    const { error, left } = await stageInFolder(zip)
    expect(error?.message).toMatch(/^its entry "small\.fit" unpacks to more than 1 MiB/)
    expect(left).toEqual(["attack.zip"])
  })

  it("entries each under the entry's limit but past the archive's total together fail it, naming the limit and where it was passed", async () => {
    const zip = zipOf(Array.from({ length: 4 }, (_, i) => ({ name: `z${i}.fit`, data: zeros(MiB - 10) })), { deflate: true })
    const { error, left } = await stageInFolder(zip)
    expect(error?.message).toBe(`it unpacks to more than 3 MiB, the limit of an archive (ARCHIVE_MAX_SIZE), once its entry "z3.fit" is unpacked`)
    expect(left).toEqual(["attack.zip"])
  })

  it("two entries of the same name are each read once", async () => {
    const first = gpxActivity({ start: dayStart(2), seconds: 600 })
    const second = gpxActivity({ start: dayStart(3), seconds: 600 })
    const { staged } = await stageInFolder(zipOf([{ name: "ride.gpx", data: first }, { name: "ride.gpx", data: second }]))
    expect(staged).not.toBeNull()
    try {
      expect(staged!.files.map((f) => [f.entry, f.at, f.contentHash])).toEqual([["ride.gpx", "-:0", sha256(first)], ["ride.gpx", "-:1", sha256(second)]])
      expect(staged!.files.map((f) => fs.readFileSync(path.join(staged!.staging, f.name), "utf8"))).toEqual([first, second])
    } finally {
      removeStaging(staged!)
    }
  })
})

describe("the daemon's import of such archives", () => {
  it.scoped("a zip whose entry passes ARCHIVE_ENTRY_MAX_SIZE gets one failed row naming the entry and the limit, and leaves the watch folder", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ ARCHIVE_ENTRY_MAX_SIZE: "1M" })
      fs.writeFileSync(path.join(root.watchDir, "big.zip"), zipOf([{ name: "big.fit", data: zeros(2 * MiB) }], { deflate: true }))
      yield* Effect.gen(function*() {
        const entry = yield* (yield* ImportService).prepareEntry("big.zip")
        expect(entry._tag).toBe("Handled")
        const rows = yield* importRows()
        expect(rows.map((r) => [r.filename, r.status, r.error_message])).toEqual([[
          "big.zip",
          "failed",
          `"big.zip" was not unpacked: its entry "big.fit" unpacks to more than 1 MiB, the limit of one entry of an archive (ARCHIVE_ENTRY_MAX_SIZE).`
        ]])
        expect(listFiles(root.watchDir).filter((n) => !n.startsWith("."))).toEqual([])
        // its read is over: no poison-pill mark is left
        expect(yield* Effect.sync((yield* ReadingMarks).found)).toEqual([])
      }).pipe(Effect.provide(servicesLayer(root)))
    }))

  it.scoped("two entries of one name in a zip enter the folder once each, under two names", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const first = gpxActivity({ start: dayStart(4), seconds: 600 })
      const second = gpxActivity({ start: dayStart(5), seconds: 600 })
      fs.writeFileSync(path.join(root.watchDir, "twice.zip"), zipOf([{ name: "ride.gpx", data: first }, { name: "ride.gpx", data: second }]))
      yield* Effect.gen(function*() {
        yield* (yield* ImportService).prepareEntry("twice.zip")
        const placed = listFiles(root.watchDir).filter((n) => !n.startsWith("."))
        expect(placed).toEqual(["ride-1.gpx", "ride.gpx"])
        expect(placed.map((n) => sha256(fs.readFileSync(path.join(root.watchDir, n)))).sort()).toEqual([sha256(first), sha256(second)].sort())
      }).pipe(Effect.provide(servicesLayer(root)))
    }))

  it.scoped("a zip that was being read when the process died is set aside at start with a failed row saying so, never read again, even once its row is lost", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const bytes = zipOf([{ name: "ride.gpx", data: gpxActivity({ start: dayStart(6), seconds: 600 }) }])
      fs.writeFileSync(path.join(root.watchDir, "pill.zip"), bytes)
      yield* Effect.gen(function*() {
        const marks = yield* ReadingMarks
        // what a process that died while reading the zip leaves: its mark
        yield* Effect.sync(() => marks.mark("pill.zip"))
        const imports = yield* ImportService
        yield* imports.recoverAtStart()
        const [row] = yield* importRows()
        expect([row?.filename, row?.status]).toEqual(["pill.zip", "failed"])
        expect(row?.error_message).toBe(
          `"pill.zip" was being read when the daemon stopped (a crash, running out of memory, or a kill): it is set aside unread, so that it cannot stop the daemon again. Retry it once the cause is known.`
        )
        // set aside unread: nothing of it entered the folder, and it left it
        expect(listFiles(root.watchDir).filter((n) => !n.startsWith("."))).toEqual([])
        expect(marks.found()).toEqual([])
        expect(fs.readdirSync(path.join(root.storageDir, "files", "poison-pills"))).toEqual([row!.original_file])
        // the database loses the row: the original goes back into the folder marked, and is set aside again, still unread
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM file_imports`
        yield* imports.recoverAtStart()
        const again = yield* importRows()
        expect(again.map((r) => [r.filename, r.status])).toEqual([["pill.zip", "failed"]])
        expect(listFiles(root.watchDir).filter((n) => !n.startsWith("."))).toEqual([])
        expect(fs.readdirSync(path.join(root.storageDir, "files", "poison-pills"))).toEqual([again[0]!.original_file])
      }).pipe(Effect.provide(servicesLayer(root)))
    }))

  it.scoped("an unpacking a stop cut short resumes from its journal: entries waiting or imported are not let in again, one recorded but never placed is, and the rest once each", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      const files = Array.from({ length: 5 }, (_, i) => ({ name: `r${i}.gpx`, data: gpxActivity({ start: dayStart(10 + i), seconds: 600 }) }))
      const zipPath = path.join(root.watchDir, "export.zip")
      fs.writeFileSync(zipPath, zipOf(files))
      const zip = zipKey("export.zip", identityOf(fs.statSync(zipPath)))
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // the stop came once r0 waited in the folder, r1 was imported (its file gone), r2 was recorded but not yet placed
        fs.writeFileSync(path.join(root.watchDir, "r0.gpx"), files[0]!.data)
        yield* sql`INSERT INTO file_imports ${
          sql.insert({ id: "row-r1", filename: "r1.gpx", source: "gpxFile", status: "success", imported_on: 1, content_hash: sha256(files[1]!.data), source_size: 1, source_mtime: 1 })
        }`
        yield* (yield* UnpackedEntries).record(zip, [0, 1, 2].map((i) => ({ entry: `-:${i}`, archive: "zip-1", filename: `r${i}.gpx`, contentHash: sha256(files[i]!.data) })))
        yield* (yield* ImportService).prepareEntry("export.zip")
        // every entry once: r1 only as its row, the others in the folder, the zip gone and its journal with it
        expect(listFiles(root.watchDir).filter((n) => !n.startsWith("."))).toEqual(["r0.gpx", "r2.gpx", "r3.gpx", "r4.gpx"])
        for (const i of [0, 2, 3, 4]) expect(fs.readFileSync(path.join(root.watchDir, `r${i}.gpx`), "utf8")).toBe(files[i]!.data)
        expect(yield* sql`SELECT COUNT(*) AS n FROM unpacked_entries`).toEqual([{ n: 0 }])
        // the archive the stopped unpacking named is the one its files keep
        expect((yield* sql<{ archive: string }>`SELECT DISTINCT archive FROM export_metadata`).map((r) => r.archive)).toEqual(["zip-1"])
      }).pipe(Effect.provide(servicesLayer(root)))
    }))
})
