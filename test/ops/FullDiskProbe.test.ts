import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { startChildDaemon } from "../support/ChildDaemon.ts"
import { scopedRoot } from "../support/ImportHarness.ts"

/**
 * `/healthz` on a disk that is really full: the watch folder is a small tmpfs (mounted here,
 * as root) filled to its last byte. Each probe answers 503 naming the full disk and leaves
 * nothing behind, however often it is called; with room again it answers 200.
 */

/** Mounts a tmpfs of `size` at `dir` for the scope; false where this machine does not allow it. */
const tmpfs = (dir: string, size: string) =>
  Effect.acquireRelease(
    Effect.sync(() => spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]).status === 0),
    (mounted) => Effect.sync(() => mounted && spawnSync("umount", ["-l", dir]))
  )

const canMount = process.platform === "linux" && process.getuid?.() === 0

describe("/healthz on a full disk", () => {
  it.scopedLive.skipIf(!canMount)("answers 503 saying the watch folder's disk is full, and leaves no file behind after 200 probes; 200 once there is room", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot()
      expect(yield* tmpfs(root.watchDir, "1m")).toBe(true)
      const daemon = yield* startChildDaemon({ env: root.env, apiKey: root.apiKey, readyTimeout: "120 seconds" })
      const probe = () =>
        Effect.promise(async () => {
          const response = await fetch(`${daemon.baseUrl}/healthz`)
          return { status: response.status, json: (await response.json()) as any }
        })
      expect((yield* probe()).status).toBe(200)
      // fill the disk to its last block
      const filler = path.join(root.watchDir, ".filler")
      const fd = fs.openSync(filler, "w")
      const block = Buffer.alloc(4096, 1)
      try {
        for (;;) fs.writeSync(fd, block)
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC")
      } finally {
        fs.closeSync(fd)
      }
      const before = fs.readdirSync(root.watchDir).sort()
      let last = { status: 0, json: undefined as any }
      for (let i = 0; i < 200; i++) {
        last = yield* probe()
        // the checks are evaluated once a second at most: some probes share an evaluation, and
        // a pause after every 50 makes the 200 span four of them at least
        if (i % 50 === 49 && i < 199) yield* Effect.sleep("1100 millis")
      }
      // the checks' next evaluation sees the full disk (a probe may be answered the one before, when its own is late)
      while (last.status === 200) {
        yield* Effect.sleep("50 millis")
        last = yield* probe()
      }
      expect(last.status).toBe(503)
      expect(last.json.checks.watchFolder).toEqual({ ok: false, error: "Error: the watch folder does not take a file: its disk is full" })
      expect(fs.readdirSync(root.watchDir).sort()).toEqual(before)
      expect(fs.readdirSync(path.join(root.watchDir, ".uploads"))).toEqual([])
      // room again
      fs.rmSync(filler)
      // the checks' next evaluation sees the room (the test times out if it never does)
      while ((yield* probe()).status !== 200) yield* Effect.sleep("50 millis")
      expect(fs.readdirSync(root.watchDir).filter((n) => n.startsWith(".healthz"))).toEqual([])
      yield* daemon.kill("SIGTERM")
    }), { timeout: 300_000 })
})
