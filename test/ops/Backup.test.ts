import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { REPO_DIR, startChildDaemon, type ChildDaemon } from "../support/ChildDaemon.ts"
import { programFile } from "../support/programs.ts"
import { dayStart, dropFile, gpxActivity, makeRoot, type Root } from "../support/ImportHarness.ts"
import { PNG_1x1 } from "../support/TestDaemon.ts"

/** `npm run cli -- app:backup <file>` over the folders of `root`, as a separate process. */
const backup = (root: Root, file: string) =>
  Effect.sync(() => {
    const result = childProcess.spawnSync(process.execPath, [programFile("cli"), "app:backup", file], {
      cwd: REPO_DIR,
      env: { PATH: process.env["PATH"]!, HOME: process.env["HOME"] ?? "/tmp", ...root.env },
      encoding: "utf8",
      timeout: 120_000
    })
    return { code: result.status, stdout: result.stdout, stderr: result.stderr }
  })

const activities = (daemon: ChildDaemon) =>
  Effect.map(daemon.get("/api/v1/activities?pagination[size]=100"), (a) => {
    assert.strictEqual(a.status, 200)
    return a.json.activities as Array<any>
  })

/** How long a condition may take on a busy machine: the imports of a child daemon included. */
const PATIENCE_MS = 120_000

/** Polls `probe` every 100 ms until it answers true; dies after PATIENCE_MS (the machine may be busy). */
const eventually = (what: string, probe: () => boolean, daemon: ChildDaemon) =>
  Effect.gen(function*() {
    for (const deadline = Date.now() + PATIENCE_MS; Date.now() < deadline;) {
      if (probe()) return
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.dieMessage(`${what} after ${PATIENCE_MS / 1000} s:\n${daemon.output()}`)
  })

const waitForActivities = (daemon: ChildDaemon, n: number) =>
  Effect.gen(function*() {
    for (const deadline = Date.now() + PATIENCE_MS; Date.now() < deadline;) {
      const list = yield* activities(daemon)
      if (list.length >= n) return list
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.dieMessage(`fewer than ${n} activities after ${PATIENCE_MS / 1000} s:\n${daemon.output()}`)
  })

const addImage = (daemon: ChildDaemon, root: Root, activityId: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("file", new Blob([PNG_1x1], { type: "image/png" }), "photo.png")
    const response = await fetch(`${daemon.baseUrl}/api/v1/activities/${activityId}/images`, {
      method: "POST",
      headers: { authorization: `Bearer ${root.apiKey}` },
      body: form
    })
    assert.strictEqual(response.status, 201)
    return (await response.json()) as { id: string; url: string }
  })

const scopedRoot = Effect.acquireRelease(Effect.sync(() => makeRoot()), (r) => Effect.sync(() => fs.rmSync(r.root, { recursive: true, force: true })))

describe("npm run cli -- app:backup <file>", () => {
  it.scopedLive("copies the database while the daemon runs, never over a file; restored into a fresh storage folder with the files, a daemon starts on it with every activity, import and image, and imports again what was imported after the backup", () =>
    Effect.gen(function*() {
      const original = yield* scopedRoot
      const daemon = yield* startChildDaemon({ env: original.env, apiKey: original.apiKey, readyTimeout: "90 seconds" })
      dropFile(original.watchDir, "morning.gpx", gpxActivity({ start: dayStart(1), seconds: 1800, name: "Morning" }))
      dropFile(original.watchDir, "evening.gpx", gpxActivity({ start: dayStart(2), seconds: 2400, name: "Evening" }))
      const before = yield* waitForActivities(daemon, 2)
      const image = yield* addImage(daemon, original, before[0].id)

      const target = path.join(original.root, "backups", "waymark.sqlite")
      const run = yield* backup(original, target)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.include(run.stdout, `Database copied to ${target}`)
      assert.include(run.stdout, "2 activities, 2 file imports")
      assert.include(run.stdout, path.join(original.storageDir, "files", "originals"))
      // never over a file: an earlier backup stays as it was (a database there, so that only the file refuses it)
      const existing = path.join(original.root, "existing.sqlite")
      fs.writeFileSync(existing, "an earlier backup")
      const refused = yield* backup(original, existing)
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stdout + refused.stderr, "already exists")
      assert.strictEqual(fs.readFileSync(existing, "utf8"), "an earlier backup")

      // the daemon goes on working; what it does after the backup is not in the copy
      dropFile(original.watchDir, "later.gpx", gpxActivity({ start: dayStart(3), seconds: 600 }))
      yield* waitForActivities(daemon, 3)
      const imagesDir = path.join(original.storageDir, "files", "activities")
      const originalsDir = path.join(original.storageDir, "files", "originals")
      const imagesAtBackup = fs.readdirSync(imagesDir)
      yield* daemon.kill("SIGTERM")

      // one self-contained SQLite file: sound, rollback journal, no -wal beside it
      const copy = new Database(target, { readonly: true })
      assert.strictEqual(copy.pragma("integrity_check", { simple: true }), "ok")
      assert.strictEqual(copy.pragma("journal_mode", { simple: true }), "delete")
      copy.close()
      assert.isFalse(fs.existsSync(`${target}-wal`))
      assert.deepStrictEqual(fs.readdirSync(path.dirname(target)), ["waymark.sqlite"], "no partial copy left behind")

      // the restore: the database file, then the files as they are now (rsync -a in production)
      const restored = yield* scopedRoot
      fs.mkdirSync(path.join(restored.storageDir, "database"), { recursive: true })
      fs.copyFileSync(target, path.join(restored.storageDir, "database", "waymark.sqlite"))
      fs.cpSync(imagesDir, path.join(restored.storageDir, "files", "activities"), { recursive: true })
      fs.cpSync(originalsDir, path.join(restored.storageDir, "files", "originals"), { recursive: true })
      fs.cpSync(path.join(original.storageDir, "files", "original-names"), path.join(restored.storageDir, "files", "original-names"), { recursive: true })

      const again = yield* startChildDaemon({ env: restored.env, apiKey: restored.apiKey, readyTimeout: "90 seconds" })
      // the activities of the copy, as they were (the one imported after the backup comes back beside them)
      const after = (yield* activities(again)).filter((a) => before.some((b) => b.id === a.id))
      assert.deepStrictEqual(after, before.map((a) => (a.id === before[0].id ? { ...a, images: [image] } : a)).map((a) => ({
        ...a,
        images: a.images.map((i: any) => ({ ...i, url: i.url.replace(daemon.baseUrl, again.baseUrl) }))
      })))
      const imports = yield* again.get("/api/v1/file-imports?filters[status]=success")
      assert.includeDeepMembers(imports.json.fileImports.map((f: any) => [f.filename, f.status]), [["evening.gpx", "success"], ["morning.gpx", "success"]])
      const served = yield* Effect.promise(() => fetch(`${again.baseUrl}/files/activities/${imagesAtBackup[0]}`, { headers: { authorization: `Bearer ${restored.apiKey}` } }))
      assert.strictEqual(served.status, 200)
      assert.deepStrictEqual(Buffer.from(yield* Effect.promise(() => served.arrayBuffer())), Buffer.from(PNG_1x1))
      const gpx = yield* again.get(`/api/v1/activities/${before[1].id}/gpx`)
      assert.strictEqual(gpx.status, 200)
      // the original of the import made after the backup has no row in the copy: the restored
      // daemon imports it again under its name, with its row, and keeps it
      const restoredOriginals = path.join(restored.storageDir, "files", "originals")
      assert.strictEqual(fs.readdirSync(originalsDir).length, 3)
      const all = yield* waitForActivities(again, 3)
      assert.strictEqual(all.length, 3)
      const reimported = yield* again.get("/api/v1/file-imports")
      assert.deepStrictEqual(reimported.json.fileImports.map((f: any) => [f.filename, f.status]).sort(), [
        ["evening.gpx", "success"],
        ["later.gpx", "success"],
        ["morning.gpx", "success"]
      ])
      yield* eventually("three originals, each named by a row", () => fs.readdirSync(restoredOriginals).length === 3, again)
      yield* again.kill("SIGTERM")
      const daemonLog = fs.readdirSync(path.join(restored.storageDir, "files", "logs")).filter((n) => n.startsWith("daemon-"))
        .map((n) => fs.readFileSync(path.join(restored.storageDir, "files", "logs", n), "utf8")).join("")
      assert.include(daemonLog, "1 original files in")
    }), { timeout: 300_000 })

  it.scopedLive("says so when there is no database where STORAGE_DIR points", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot
      const missing = yield* backup(root, path.join(root.root, "first.sqlite"))
      assert.strictEqual(missing.code, 1)
      assert.include(missing.stdout + missing.stderr, "there is no database at")
      assert.isFalse(fs.existsSync(path.join(root.root, "first.sqlite")))
    }), { timeout: 240_000 })
})
