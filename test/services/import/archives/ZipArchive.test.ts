import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  freeNameIn, publishStaged, removeStaging, stageZip, ZipChanged, ZipProblem
} from "../../../../src/services/import/archives/ZipArchive.ts"
import { exportPlanner } from "../../../../src/services/import/archives/exportPlanner.ts"
import { dayStart, fitActivity, gpxActivity } from "../../../support/ImportHarness.ts"
import { tempDirs } from "../../../support/tempDirs.ts"
import { zipOf } from "../../../support/zipOf.ts"

/** The zip staged and each of its files let into `dir` (what ArchiveImport does without an export's metadata); the names they got. */
const unpackZip = async (zipPath: string, dir: string) => {
  const staged = await stageZip(zipPath, dir, exportPlanner(dir))
  if (staged === null) return null
  const taken = new Set<string>()
  try {
    return staged.files.map((file) => publishStaged(staged, dir, file.name, freeNameIn(dir, file.name, taken)))
  } finally {
    removeStaging(staged)
  }
}

/** stageZip on its own: what enters the folder, and when nothing does. */

const tempDir = tempDirs("waymark-zip-")

/** A watch folder with `zips` (path under it -> bytes) written into it. */
const folderWith = (zips: Record<string, Buffer>) => {
  const dir = tempDir()
  for (const [name, bytes] of Object.entries(zips)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), bytes)
  }
  return dir
}

const topFiles = (dir: string) => fs.readdirSync(dir).filter((name) => !fs.lstatSync(path.join(dir, name)).isDirectory()).sort()

describe("unpackZip", () => {
  it("two zips of the same name in different subfolders unpacked at once each unpack all their files", async () => {
    const big = (n: number) => gpxActivity({ start: dayStart(n), seconds: 20_000, step: 1 })
    const dir = folderWith({
      "alice/export.zip": zipOf([{ name: "a1.gpx", data: big(1) }, { name: "a2.gpx", data: big(2) }, { name: "a3.fit", data: fitActivity({ start: dayStart(3), seconds: 600 }) }]),
      "bob/export.zip": zipOf([{ name: "b1.gpx", data: big(4) }, { name: "b2.gpx", data: big(5) }, { name: "b3.fit", data: fitActivity({ start: dayStart(6), seconds: 600 }) }])
    })
    const [alice, bob] = await Promise.all([
      unpackZip(path.join(dir, "alice", "export.zip"), dir),
      unpackZip(path.join(dir, "bob", "export.zip"), dir)
    ])
    expect(alice!.sort()).toEqual(["a1.gpx", "a2.gpx", "a3.fit"])
    expect(bob!.sort()).toEqual(["b1.gpx", "b2.gpx", "b3.fit"])
    expect(topFiles(dir)).toEqual(["a1.gpx", "a2.gpx", "a3.fit", "b1.gpx", "b2.gpx", "b3.fit"])
    expect(fs.readFileSync(path.join(dir, "b2.gpx"), "utf8")).toBe(big(5))
    // no staging folder left behind
    expect(fs.readdirSync(dir).filter((name) => name.startsWith("."))).toEqual([])
  })

  it("a zip that changes while it is read (its modification time) lets none of its files into the folder", async () => {
    const zip = zipOf([{ name: "a.fit", data: fitActivity({ start: dayStart(7), seconds: 600 }) }])
    const dir = folderWith({ "late.zip": zip })
    const unpacking = unpackZip(path.join(dir, "late.zip"), dir)
    // the zip is open: a writer touches it
    fs.utimesSync(path.join(dir, "late.zip"), new Date(), new Date(Date.now() + 5000))
    await expect(unpacking).rejects.toBeInstanceOf(ZipChanged)
    expect(topFiles(dir)).toEqual(["late.zip"])
    expect(fs.readdirSync(dir).filter((name) => name.startsWith("."))).toEqual([])
  })

  it("a zip that grows while it is read is not refused as damaged: it changed", async () => {
    const zip = zipOf([{ name: "a.fit", data: fitActivity({ start: dayStart(8), seconds: 600 }) }])
    const dir = folderWith({ "growing.zip": zip })
    const unpacking = unpackZip(path.join(dir, "growing.zip"), dir)
    fs.appendFileSync(path.join(dir, "growing.zip"), "more")
    await expect(unpacking).rejects.toBeInstanceOf(ZipChanged)
    expect(topFiles(dir)).toEqual(["growing.zip"])
  })

  it("a link named .zip is not followed", async () => {
    const dir = folderWith({ "elsewhere/real.zip": zipOf([{ name: "a.fit", data: fitActivity({ start: dayStart(9), seconds: 600 }) }]) })
    fs.symlinkSync(path.join(dir, "elsewhere", "real.zip"), path.join(dir, "link.zip"))
    await expect(unpackZip(path.join(dir, "link.zip"), dir)).rejects.toMatchObject({ code: "ELOOP" })
    expect(topFiles(dir)).toEqual(["link.zip"])
  })

  it("a nested archive refuses the whole zip, naming it", async () => {
    const dir = folderWith({
      "nested.zip": zipOf([{ name: "a.fit", data: fitActivity({ start: dayStart(10), seconds: 600 }) }, { name: "deep/b.7z", data: "7z" }])
    })
    const refused = await unpackZip(path.join(dir, "nested.zip"), dir).catch((e) => e)
    expect(refused).toBeInstanceOf(ZipProblem)
    expect(refused.message).toContain('"deep/b.7z"')
    expect(topFiles(dir)).toEqual(["nested.zip"])
  })
})
