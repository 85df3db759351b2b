import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { WatchFolderLive } from "../../src/fibers/ImportWatchFolder.ts"
import * as net from "node:net"
import { spawnSync } from "node:child_process"
import { ImportQueue } from "../../src/services/import/ImportQueue.ts"
import { WatchDirectory } from "../../src/services/import/WatchDirectory.ts"
import { type Root, scopedRoot, servicesLayer } from "../support/ImportHarness.ts"

/**
 * The watcher alone (no import worker): what it offers to the ImportQueue, and when. A name
 * taken is marked done at once, so that a second offer of it would be seen.
 */

/** The settle time of these tests (WATCH_SETTLE). */
const SETTLE_MS = 300

const rootSettling = () => scopedRoot({ WATCH_SETTLE: `${SETTLE_MS}ms` })

const watching = (root: Root) => WatchFolderLive.pipe(Layer.provideMerge(servicesLayer(root)))

/** Waits until the watcher's watches are set: its first scan of the folder is done. */
const watched = Effect.flatMap(WatchDirectory, (watch) => watch.scanned())

/** The next name offered within `within`, marked done; none if nothing came. */
const nextOffered = (within: Duration.DurationInput) =>
  Effect.gen(function*() {
    const queue = yield* ImportQueue
    const name = yield* queue.take.pipe(Effect.timeoutOption(within))
    if (Option.isSome(name)) yield* queue.done(name.value)
    return Option.getOrUndefined(name)
  })

const GPX = '<?xml version="1.0"?><gpx version="1.1" creator="test"><trk><trkseg></trkseg></trk></gpx>'

/** Writes `name` in a dot-folder of the watch folder, then renames it in: it appears whole. */
const dropWhole = (root: Root, name: string, text = GPX) => {
  const staging = path.join(root.watchDir, ".staging")
  fs.mkdirSync(staging, { recursive: true })
  fs.writeFileSync(path.join(staging, name), text)
  fs.renameSync(path.join(staging, name), path.join(root.watchDir, name))
}

describe("WatchFolder", () => {
  it.scopedLive("says when its first scan is done (its watches set), and counts each scan, a watched folder's replacement's too", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      yield* Effect.gen(function*() {
        const watch = yield* WatchDirectory
        yield* watched
        expect(yield* watch.scans).toBe(1)
        // a new folder renamed into place is watched and scanned from its start
        fs.renameSync(root.watchDir, `${root.watchDir}-replaced`)
        fs.mkdirSync(root.watchDir)
        fs.writeFileSync(path.join(root.watchDir, "in-the-new-folder.gpx"), GPX)
        yield* watch.scanned(2)
        expect(yield* nextOffered("5 seconds")).toBe("in-the-new-folder.gpx")
      }).pipe(Effect.provide(watching(root)))
    }), 30_000)

  it.scopedLive("offers the files there before it started", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      fs.writeFileSync(path.join(root.watchDir, "before.gpx"), GPX)
      yield* Effect.gen(function*() {
        expect(yield* nextOffered("5 seconds")).toBe("before.gpx")
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("offers a file renamed into the folder once", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      yield* Effect.gen(function*() {
        yield* watched
        dropWhole(root, "ride.gpx")
        expect(yield* nextOffered("5 seconds")).toBe("ride.gpx")
        expect(yield* nextOffered(Duration.millis(SETTLE_MS * 3))).toBeUndefined()
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("offers a file being written only once it has stopped changing", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      yield* Effect.gen(function*() {
        yield* watched
        const file = path.join(root.watchDir, "slow-copy.gpx")
        const fd = fs.openSync(file, "w")
        // written in pieces, each sooner after the last than the settling time
        const piece = Math.ceil(GPX.length / 7)
        for (let i = 0; i < 6; i++) {
          fs.writeSync(fd, GPX.slice(i * piece, (i + 1) * piece))
          const early = yield* nextOffered(Duration.millis(SETTLE_MS / 2))
          expect(early).toBeUndefined()
        }
        fs.writeSync(fd, GPX.slice(6 * piece))
        fs.closeSync(fd)
        const lastWrite = Date.now()
        expect(yield* nextOffered("5 seconds")).toBe("slow-copy.gpx")
        expect(Date.now() - lastWrite).toBeGreaterThanOrEqual(SETTLE_MS - 50)
        expect(fs.readFileSync(file, "utf8")).toBe(GPX)
        expect(yield* nextOffered(Duration.millis(SETTLE_MS * 3))).toBeUndefined()
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("never offers dot-files, dot-folders, .part and .tmp files or other types; offers the files of subfolders by their path", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      yield* Effect.gen(function*() {
        yield* watched
        for (const name of [".hidden.gpx", "ride.gpx.part", "ride.fit.tmp", "notes.txt", "photo.jpg"]) {
          fs.writeFileSync(path.join(root.watchDir, name), GPX)
        }
        fs.mkdirSync(path.join(root.watchDir, ".hidden-folder"))
        fs.writeFileSync(path.join(root.watchDir, ".hidden-folder", "inside.gpx"), GPX)
        fs.mkdirSync(path.join(root.watchDir, "folder.gpx", "deeper"), { recursive: true })
        fs.writeFileSync(path.join(root.watchDir, "folder.gpx", "deeper", "inside.gpx"), GPX)
        dropWhole(root, "real.tcx")
        const offered = [yield* nextOffered("5 seconds"), yield* nextOffered("5 seconds")]
        expect(offered.sort()).toEqual(["folder.gpx/deeper/inside.gpx", "real.tcx"])
        expect(yield* nextOffered(Duration.millis(SETTLE_MS * 3))).toBeUndefined()
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("offers the files of a folder moved in whole, its subfolders' too, long before the scan every minute", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      const outside = path.join(root.root, "elsewhere", "2023")
      fs.mkdirSync(path.join(outside, "june"), { recursive: true })
      fs.writeFileSync(path.join(outside, "a.gpx"), GPX)
      fs.writeFileSync(path.join(outside, "june", "b.gpx"), GPX)
      yield* Effect.gen(function*() {
        yield* watched
        fs.renameSync(outside, path.join(root.watchDir, "2023"))
        const offered = [yield* nextOffered("5 seconds"), yield* nextOffered("5 seconds")]
        expect(offered.sort()).toEqual(["2023/a.gpx", "2023/june/b.gpx"])
        expect(yield* nextOffered(Duration.millis(SETTLE_MS * 3))).toBeUndefined()
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("a file the import hands back (held, tried later) is offered again only once it has held still for the settle time", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      yield* Effect.gen(function*() {
        yield* watched
        dropWhole(root, "held.gpx")
        expect(yield* nextOffered("5 seconds")).toBe("held.gpx")
        const watch = yield* WatchDirectory
        // handed back unchanged: not offered before the settle time
        yield* watch.settleAgain("held.gpx")
        expect(yield* nextOffered(Duration.millis(SETTLE_MS / 2))).toBeUndefined()
        expect(yield* nextOffered("5 seconds")).toBe("held.gpx")
        // handed back while it is written to again: offered once the writes stop
        yield* watch.settleAgain("held.gpx")
        let lastWrite = 0
        for (let i = 0; i < 4; i++) {
          fs.appendFileSync(path.join(root.watchDir, "held.gpx"), "\n")
          lastWrite = Date.now()
          expect(yield* nextOffered(Duration.millis(SETTLE_MS / 2))).toBeUndefined()
        }
        expect(yield* nextOffered("5 seconds")).toBe("held.gpx")
        expect(Date.now() - lastWrite).toBeGreaterThanOrEqual(SETTLE_MS - 50)
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("offers what is not a regular file whatever its name (a pipe, a socket, a link to a folder), to be refused; never a regular file of another type", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      yield* Effect.gen(function*() {
        yield* watched
        expect(spawnSync("mkfifo", [path.join(root.watchDir, "pipe")]).status).toBe(0)
        const server = net.createServer()
        yield* Effect.async<void>((resume) => void server.listen(path.join(root.watchDir, "x.sock"), () => resume(Effect.void)))
        yield* Effect.addFinalizer(() => Effect.sync(() => server.close()))
        fs.symlinkSync(root.storageDir, path.join(root.watchDir, "storage-link"))
        fs.writeFileSync(path.join(root.watchDir, "notes.txt"), "a regular file")
        const offered = [yield* nextOffered("5 seconds"), yield* nextOffered("5 seconds"), yield* nextOffered("5 seconds")]
        expect(offered.sort()).toEqual(["pipe", "storage-link", "x.sock"])
        expect(yield* nextOffered(Duration.millis(SETTLE_MS * 3))).toBeUndefined()
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("WATCH_POLLING=true (chokidar polling, for network shares) offers a file dropped at the top and in a subfolder once it holds still", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ WATCH_SETTLE: `${SETTLE_MS}ms`, WATCH_POLLING: "true", WATCH_POLLING_INTERVAL: "200ms" })
      yield* Effect.gen(function*() {
        yield* watched
        dropWhole(root, "polled.gpx")
        fs.mkdirSync(path.join(root.watchDir, "share"))
        // whole when it appears: a write the machine's load stops half way for longer than the settle time is another test's
        fs.writeFileSync(path.join(root.watchDir, ".staging", "inside.tcx"), GPX)
        fs.renameSync(path.join(root.watchDir, ".staging", "inside.tcx"), path.join(root.watchDir, "share", "inside.tcx"))
        const offered = [yield* nextOffered("10 seconds"), yield* nextOffered("10 seconds")]
        expect(offered.sort()).toEqual(["polled.gpx", "share/inside.tcx"])
        expect(yield* nextOffered(Duration.millis(SETTLE_MS * 3))).toBeUndefined()
      }).pipe(Effect.provide(watching(root)))
    }))

  it.scopedLive("offers each of 5,000 files renamed in at once, once", () =>
    Effect.gen(function*() {
      const root = yield* rootSettling()
      yield* Effect.gen(function*() {
        yield* watched
        const names = Array.from({ length: 5000 }, (_, i) => `bulk-${String(i).padStart(4, "0")}.gpx`)
        for (const name of names) dropWhole(root, name)
        const offered = new Set<string>()
        const started = Date.now()
        while (offered.size < names.length && Date.now() - started < 60_000) {
          const name = yield* nextOffered("5 seconds")
          if (name === undefined) break
          expect(offered.has(name)).toBe(false)
          offered.add(name)
        }
        expect(offered.size).toBe(names.length)
      }).pipe(Effect.provide(watching(root)))
    }), 90_000)
})
