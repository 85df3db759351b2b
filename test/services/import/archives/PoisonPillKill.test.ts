import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { startChildDaemon } from "../../../support/ChildDaemon.ts"
import { dayStart, gpxActivity, scopedRoot } from "../../../support/ImportHarness.ts"
import { archiveBeingRead, count, databaseFile, until } from "../../../support/killNine.ts"
import { zipOf } from "../../../support/zipOf.ts"

/**
 * A daemon that dies while it reads an archive (SIGKILL stands in for a crash or running out of
 * memory: from the next start they look alike) does not read it again: the next start sets it
 * aside with a failed row saying why, the daemon stays up, and nothing of the archive enters
 * the folder.
 */

const ENTRIES = 3000

describe("a file that stopped the daemon", () => {
  it.scopedLive("an archive being read when the daemon was killed is set aside at the next start with a failed row, never read again", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ LOG_LEVEL: "warning" })
      const start = () => startChildDaemon({ env: root.env, apiKey: root.apiKey, readyTimeout: "120 seconds" })
      const track = gpxActivity({ start: dayStart(1), seconds: 60 })
      const zip = zipOf(Array.from({ length: ENTRIES }, (_, i) => ({ name: `rides/${i}.gpx`, data: track })), { deflate: true })
      const first = yield* start()
      fs.writeFileSync(path.join(root.watchDir, ".pill.zip.part"), zip)
      fs.renameSync(path.join(root.watchDir, ".pill.zip.part"), path.join(root.watchDir, "pill.zip"))
      // killed while its poison-pill mark is there: in the middle of its read
      yield* until("the archive being read", first, () => archiveBeingRead(root))
      expect(yield* first.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" })

      const second = yield* start()
      // its row is written before it leaves the folder: both waited for
      const outOfFolder = () => fs.readdirSync(root.watchDir).filter((n) => !n.startsWith(".")).length === 0
      yield* until("the archive set aside, out of the folder", second, () => count(root, "SELECT COUNT(*) AS n FROM file_imports WHERE filename = 'pill.zip'") > 0 && outOfFolder())
      const db = new Database(databaseFile(root), { readonly: true, fileMustExist: true })
      const row = db.prepare("SELECT status, error_message AS errorMessage FROM file_imports WHERE filename = 'pill.zip'").get() as { status: string; errorMessage: string }
      db.close()
      expect(row.status).toBe("failed")
      expect(row.errorMessage).toMatch(/^"pill\.zip" was being read when the daemon stopped .*: it is set aside unread/)
      // not read again: none of its entries entered the folder (it was drained above), and the daemon is up
      expect(count(root, "SELECT COUNT(*) AS n FROM file_imports")).toBe(1)
      expect((yield* second.get("/api/v1/status")).status).toBe(200)
      expect(second.hasExited()).toBe(false)
      yield* second.kill("SIGTERM")
    }), { timeout: 600_000 })
})
