import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { publishFile } from "../../../src/services/import/PublishFile.ts"
import { WatchDirectory } from "../../../src/services/import/WatchDirectory.ts"
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
  it.effect("removes at start what an upload cut off by a crash left in .uploads; the folder's own files stay", () =>
    Effect.gen(function*() {
      const root = makeRoot()
      fs.writeFileSync(path.join(root.uploadsDir, "0b7c-cut-off"), "half a fi")
      fs.writeFileSync(path.join(root.uploadsDir, "another"), "x")
      fs.writeFileSync(path.join(root.watchDir, "waiting.fit"), "x")
      fs.writeFileSync(path.join(root.watchDir, ".ride.fit.part"), "x")
      const watch = yield* WatchDirectory.pipe(Effect.provide(watchDirectory(root)))
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
