import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { inChannel, makeChannelFileLogger } from "../../../src/services/platform/Logs.ts"
import { appendWhole, appendWholeTo } from "../../../src/services/platform/wholeLines.ts"
import { withFullDisk } from "../../http/fullDisk.ts"

/**
 * A log line is written whole or not at all: a disk that takes only part of a line (the
 * kernel writes what fits, then fails) leaves no half line for the next to be fused onto, and
 * a full disk under stdout costs lines, never the process.
 */

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "waymark-lines-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("log lines on a full disk", () => {
  it.scoped("a channel file keeps whole lines: a WARN the disk could take only part of is not there at all, and the next line once there is room starts a line of its own", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const logger = yield* makeChannelFileLogger(dir)
      const log = (effect: Effect.Effect<void>) => effect.pipe(inChannel("daemon"), Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      yield* log(Effect.logInfo("before the disk filled"))
      // room for 40 bytes: a part of the warning's line is written, then the disk is full
      yield* withFullDisk(log(Effect.logWarning(`"ride.fit" could not be stored: the disk is full. ${"x".repeat(200)}`)), { database: false, room: 40 })
      yield* withFullDisk(log(Effect.logInfo("while the disk is full")), { database: false })
      yield* log(Effect.logInfo("room again"))
      const [file] = fs.readdirSync(dir)
      const text = fs.readFileSync(path.join(dir, file!), "utf8")
      expect(text.endsWith("\n")).toBe(true)
      const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as { level: string; message: string })
      expect(lines.map((l) => [l.level, l.message])).toEqual([["INFO", "before the disk filled"], ["INFO", "room again"]])
    }))

  it.scoped("appendWhole throws the disk's error with the file as it was; appendWholeTo says it could not", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "daemon.log")
      fs.writeFileSync(file, "one\n")
      const fd = fs.openSync(file, "a")
      const torn = yield* withFullDisk(Effect.try(() => appendWhole(fd, "two two two two\n")).pipe(Effect.flip), { database: false, room: 5 })
      fs.closeSync(fd)
      expect((torn.error as NodeJS.ErrnoException).code).toBe("ENOSPC")
      expect(fs.readFileSync(file, "utf8")).toBe("one\n")
      expect(yield* withFullDisk(Effect.sync(() => appendWholeTo(file, "three three\n")), { database: false, room: 4 })).toBe(false)
      expect(appendWholeTo(file, "four\n")).toBe(true)
      expect(fs.readFileSync(file, "utf8")).toBe("one\nfour\n")
    }))

  it("a daemon whose stdout is a full device (/dev/full) loses its lines and goes on", () => {
    const script = `
      import { Effect, Logger } from "effect"
      import { stdoutLogger } from "./src/services/platform/Logs.ts"
      await Effect.runPromise(Effect.logWarning("a line the disk cannot take").pipe(Effect.provide(Logger.replace(Logger.defaultLogger, stdoutLogger("text")))))
      process.stderr.write("still running\\n")
    `
    const out = fs.openSync("/dev/full", "w")
    try {
      const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        cwd: path.resolve(import.meta.dirname, "../../.."),
        stdio: ["ignore", out, "pipe"],
        encoding: "utf8",
        timeout: 60_000
      })
      expect(child.stderr).toBe("still running\n")
      expect(child.status).toBe(0)
    } finally {
      fs.closeSync(out)
    }
  }, 90_000)
})
