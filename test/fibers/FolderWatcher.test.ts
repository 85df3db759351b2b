import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { chokidar5, chokidarWatcher, chooseWatcher, folderEvents, type FolderWatcher, runsChokidar6, type WatcherHandlers } from "../../src/fibers/ImportFolderWatcher.ts"

/** A watcher of a fresh folder, and a promise of the first entry it asks to look at that `wanted` accepts. */
const watchFresh = (start: (dir: string, handlers: WatcherHandlers) => FolderWatcher, wanted: (relative: string) => boolean) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waymark-watcher-"))
  let ready!: () => void
  const scanned = new Promise<void>((resolve) => (ready = resolve))
  let found!: (relative: string) => void
  const looked = new Promise<string>((resolve) => (found = resolve))
  const watcher = start(dir, {
    look: (relative) => void (wanted(relative) && found(relative)),
    gone: () => {},
    scan: () => ready(),
    notices: {},
    warn: () => {}
  })
  const close = async () => {
    await watcher.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return { dir, scanned, looked, close }
}

/** `Fahrt_M<0xFC>nchen.gpx`: a name in Latin-1, not UTF-8. */
const latin1Name = Buffer.from("Fahrt_M\u00fcnchen.gpx", "latin1")

describe("FolderWatcher", () => {
  it("chokidar 6 is for Node 22.22 and later, as its engines say", () => {
    expect(runsChokidar6("20.20.2")).toBe(false)
    expect(runsChokidar6("22.21.9")).toBe(false)
    expect(runsChokidar6("22.22.0")).toBe(true)
    expect(runsChokidar6("24.1.0")).toBe(true)
    expect(runsChokidar6("26.12.1")).toBe(true)
  })

  it("this Node watches with chokidar 6's events if it runs them (npm installed it here), else with the folders' own events; polling is chokidar 5's", async () => {
    expect((await chooseWatcher(null)).name).toBe(runsChokidar6() ? "chokidar 6" : "the folders' own change events")
    expect((await chooseWatcher(5000)).name).toBe("chokidar 5 polling")
  })

  // the event of a name that is not UTF-8 names it with replacement characters, under which it
  // cannot be looked up: it must still reach `look` (which has it renamed), not wait for a scan
  const watchers: ReadonlyArray<readonly [string, (dir: string, handlers: WatcherHandlers) => FolderWatcher]> = [
    ["the folders' own events", folderEvents],
    ["chokidar's events", (dir, handlers) => chokidarWatcher(chokidar5, dir, handlers, null)]
  ]
  for (const [name, start] of watchers) {
    it(`${name}: a file dropped under a name that is not UTF-8 is looked at from its event, as read with replacement characters`, async () => {
      const watch = watchFresh(start, (relative) => relative.includes("\uFFFD"))
      try {
        await watch.scanned
        fs.writeFileSync(Buffer.concat([Buffer.from(`${watch.dir}/`), latin1Name]), "<gpx/>")
        expect(await watch.looked).toBe("Fahrt_M\uFFFDnchen.gpx")
      } finally {
        await watch.close()
      }
    })
  }

  // a poll compares a folder with its first look, taken on the thread pool: a file dropped
  // before that look would make no change, and wait for the scan every minute
  it("chokidar 5 polling: a file dropped the moment the watches are said set, at the top or in a subfolder there from the start, is looked at from a poll, round after round", async () => {
    for (let round = 0; round < 8; round++) {
      const wanted = new Set(["top.gpx", "sub/inside.gpx"])
      const seen = new Set<string>()
      let allSeen!: () => void
      const done = new Promise<void>((resolve) => (allSeen = resolve))
      const watch = watchFresh(
        (dir, handlers) => {
          fs.mkdirSync(path.join(dir, "sub"))
          return chokidarWatcher(chokidar5, dir, handlers, 100)
        },
        (relative) => {
          if (wanted.has(relative)) seen.add(relative)
          if (seen.size === wanted.size) allSeen()
          return false
        }
      )
      try {
        await watch.scanned
        for (const name of wanted) fs.writeFileSync(path.join(watch.dir, name), "<gpx/>")
        const missed = await Promise.race([done.then(() => null), new Promise<string>((resolve) => setTimeout(() => resolve([...wanted].filter((n) => !seen.has(n)).join(", ")), 5000))])
        expect(missed, `round ${round}: not looked at within 5 s`).toBeNull()
      } finally {
        await watch.close()
      }
    }
  }, 60_000)
})
