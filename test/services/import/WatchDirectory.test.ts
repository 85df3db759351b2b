import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { identityOf } from "../../../src/services/import/files/FileOnDisk.ts"
import { publishFile } from "../../../src/services/import/files/PublishFile.ts"
import { removeIfUnchanged, WatchDirectory } from "../../../src/services/import/WatchDirectory.ts"
import { tempDirs } from "../../support/tempDirs.ts"

const tempDir = tempDirs("waymark-watchdir-")

const makeRoot = () => {
  const root = tempDir()
  const watchDir = path.join(root, "watch")
  const uploadsDir = path.join(watchDir, ".uploads")
  fs.mkdirSync(uploadsDir, { recursive: true })
  return { root, watchDir, uploadsDir }
}

const watchDirectory = (root: ReturnType<typeof makeRoot>) =>
  WatchDirectory.Default.pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
      ["STORAGE_DIR", path.join(root.root, "storage")],
      ["WATCH_DIR", root.watchDir]
    ]))))
  )

const upload = (dir: string, content: string) => {
  const file = path.join(dir, `upload-${Math.random().toString(16).slice(2)}`)
  fs.writeFileSync(file, content)
  return file
}

describe("WatchDirectory", () => {
  it.effect("tidying after a stop removes what an upload cut off by a crash left in .uploads; the folder's own files stay", () =>
    Effect.gen(function*() {
      const root = makeRoot()
      fs.writeFileSync(path.join(root.uploadsDir, "0b7c-cut-off"), "half a fi")
      fs.writeFileSync(path.join(root.uploadsDir, "another"), "x")
      fs.writeFileSync(path.join(root.watchDir, "waiting.fit"), "x")
      fs.writeFileSync(path.join(root.watchDir, ".ride.fit.part"), "x")
      const watch = yield* WatchDirectory.pipe(Effect.provide(watchDirectory(root)))
      yield* watch.tidyAfterStop
      expect(fs.readdirSync(root.uploadsDir)).toEqual([])
      expect(fs.readdirSync(root.watchDir).sort()).toEqual([".ride.fit.part", ".uploads", "waiting.fit"])
      expect((yield* watch.queued()).map((f) => f.filename)).toEqual(["waiting.fit"])
    }))

  it.effect("deliver never replaces a file: a clash takes name-1, name-2, ...", () =>
    Effect.gen(function*() {
      const root = makeRoot()
      const watch = yield* WatchDirectory.pipe(Effect.provide(watchDirectory(root)))
      fs.writeFileSync(path.join(root.watchDir, "ride.fit"), "first")
      expect(yield* watch.deliver(upload(root.uploadsDir, "second"), "ride.fit")).toBe("ride-1.fit")
      expect(yield* watch.deliver(upload(root.uploadsDir, "third"), "ride.fit")).toBe("ride-2.fit")
      expect(fs.readFileSync(path.join(root.watchDir, "ride.fit"), "utf8")).toBe("first")
      expect(fs.readFileSync(path.join(root.watchDir, "ride-1.fit"), "utf8")).toBe("second")
      expect(fs.readFileSync(path.join(root.watchDir, "ride-2.fit"), "utf8")).toBe("third")
      expect(fs.readdirSync(root.uploadsDir)).toEqual([])
    }))

  it.effect("a delivery that cannot be placed fails and leaves the upload to the caller", () =>
    Effect.gen(function*() {
      const root = makeRoot()
      const watch = yield* WatchDirectory.pipe(Effect.provide(watchDirectory(root)))
      const temp = upload(root.uploadsDir, "data")
      const exit = yield* Effect.exit(watch.deliver(temp, "sub/ride.fit"))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(fs.existsSync(temp)).toBe(true)
    }))
})

describe("removal from the watch folder", () => {
  it("a file is removed only if it is still the one imported; one renamed over its name stays, under its name", () => {
    const root = makeRoot()
    const file = path.join(root.watchDir, "sync.fit")
    fs.writeFileSync(file, "the version imported")
    const imported = identityOf(fs.statSync(file))
    expect(removeIfUnchanged(root.watchDir, "sync.fit", imported)).toEqual({ _tag: "Removed" })
    expect(fs.existsSync(file)).toBe(false)
    expect(removeIfUnchanged(root.watchDir, "sync.fit", imported)).toEqual({ _tag: "Gone" })

    fs.writeFileSync(file, "the version imported")
    const read = identityOf(fs.statSync(file))
    // a connector renames a newer version over it after the import read it
    fs.writeFileSync(path.join(root.uploadsDir, "newer"), "a newer version")
    fs.renameSync(path.join(root.uploadsDir, "newer"), file)
    expect(removeIfUnchanged(root.watchDir, "sync.fit", read)).toEqual({ _tag: "Replaced", name: "sync.fit" })
    expect(fs.readFileSync(file, "utf8")).toBe("a newer version")
    expect(fs.readdirSync(root.watchDir).sort()).toEqual([".uploads", "sync.fit"])
  })

  it("a link renamed over the name is put back as it is, never followed nor deleted", () => {
    const root = makeRoot()
    fs.mkdirSync(path.join(root.watchDir, "sub"))
    const file = path.join(root.watchDir, "sub", "a.gpx")
    fs.writeFileSync(file, "imported")
    const read = identityOf(fs.statSync(file))
    fs.rmSync(file)
    fs.symlinkSync("/etc/passwd", file)
    expect(removeIfUnchanged(root.watchDir, "sub/a.gpx", read)).toEqual({ _tag: "Replaced", name: "sub/a.gpx" })
    expect(fs.readlinkSync(file)).toBe("/etc/passwd")
  })

  it.effect("a removal cut short by a stop (the file set aside under a dot-name) is put back when the folder is tidied", () =>
    Effect.gen(function*() {
      const root = makeRoot()
      fs.mkdirSync(path.join(root.watchDir, "2023"))
      fs.writeFileSync(path.join(root.watchDir, "2023", ".waymark-removing-0a1b2c3d.ride.fit"), "set aside")
      fs.writeFileSync(path.join(root.watchDir, "2023", "ride.fit"), "another ride of that name")
      const watch = yield* WatchDirectory.pipe(Effect.provide(watchDirectory(root)))
      yield* watch.tidyAfterStop
      expect(fs.readdirSync(path.join(root.watchDir, "2023")).sort()).toEqual(["ride-1.fit", "ride.fit"])
      expect(fs.readFileSync(path.join(root.watchDir, "2023", "ride-1.fit"), "utf8")).toBe("set aside")
    }))

  it.effect("a held file is waiting again once it differs from the bytes its failed row was made of", () =>
    Effect.gen(function*() {
      const root = makeRoot()
      const watch = yield* WatchDirectory.pipe(Effect.provide(watchDirectory(root)))
      const file = path.join(root.watchDir, "half.gpx")
      fs.writeFileSync(file, "<gpx>")
      const read = identityOf(fs.statSync(file))
      // the copy went on between the read and the hold
      fs.appendFileSync(file, "<trk/></gpx>")
      watch.hold("half.gpx", read)
      expect(watch.waiting().map((f) => f.filename)).toEqual(["half.gpx"])
      watch.hold("half.gpx", identityOf(fs.statSync(file)))
      expect(watch.waiting()).toEqual([])
    }))

  it.live("a subfolder the import emptied is removed only once it stayed empty and unchanged for the quiet time", () =>
    Effect.gen(function*() {
      const root = makeRoot()
      const watch = yield* WatchDirectory.pipe(Effect.provide(watchDirectory(root)))
      fs.mkdirSync(path.join(root.watchDir, "rides", "march"), { recursive: true })
      watch.noteRemoved("rides/march/a.fit")
      watch.sweepEmptied(200)
      expect(fs.existsSync(path.join(root.watchDir, "rides", "march"))).toBe(true)
      yield* Effect.sleep("250 millis")
      // a slow copy writes its next file into it
      fs.writeFileSync(path.join(root.watchDir, "rides", "march", "b.fit"), "x")
      watch.sweepEmptied(200)
      expect(fs.existsSync(path.join(root.watchDir, "rides", "march", "b.fit"))).toBe(true)
      fs.rmSync(path.join(root.watchDir, "rides", "march", "b.fit"))
      watch.noteRemoved("rides/march/b.fit")
      watch.sweepEmptied(200)
      yield* Effect.sleep("250 millis")
      watch.sweepEmptied(200)
      expect(fs.existsSync(path.join(root.watchDir, "rides", "march"))).toBe(false)
      // its parent, emptied in turn, after its own quiet time
      watch.sweepEmptied(200)
      expect(fs.existsSync(path.join(root.watchDir, "rides"))).toBe(true)
      yield* Effect.sleep("250 millis")
      watch.sweepEmptied(200)
      expect(fs.existsSync(path.join(root.watchDir, "rides"))).toBe(false)
      expect(fs.existsSync(root.watchDir)).toBe(true)
    }))
})

describe("publishFile", () => {
  it("skip: an existing file is kept and the new one dropped", () => {
    const root = makeRoot()
    fs.writeFileSync(path.join(root.watchDir, "a.fit"), "old")
    const temp = upload(root.uploadsDir, "new")
    expect(publishFile(temp, root.watchDir, "a.fit", "skip")).toEqual({ _tag: "Exists", name: "a.fit" })
    expect(fs.readFileSync(path.join(root.watchDir, "a.fit"), "utf8")).toBe("old")
    expect(fs.existsSync(temp)).toBe(false)
  })

  it("overwrite: the existing file is replaced in one step", () => {
    const root = makeRoot()
    fs.writeFileSync(path.join(root.watchDir, "a.fit"), "old")
    const temp = upload(root.uploadsDir, "new")
    expect(publishFile(temp, root.watchDir, "a.fit", "overwrite")).toEqual({ _tag: "Published", name: "a.fit" })
    expect(fs.readFileSync(path.join(root.watchDir, "a.fit"), "utf8")).toBe("new")
    expect(fs.existsSync(temp)).toBe(false)
  })

  it("a name without extension takes its suffix at the end", () => {
    const root = makeRoot()
    fs.writeFileSync(path.join(root.watchDir, "ride"), "old")
    expect(publishFile(upload(root.uploadsDir, "new"), root.watchDir, "ride", "suffix")).toEqual({ _tag: "Published", name: "ride-1" })
  })
})
