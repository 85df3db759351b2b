import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { dayStart, dropFile, fitActivity, freshDaemon, waitFor, waitForRow } from "../support/ImportHarness.ts"
import { TestDaemon } from "../support/TestDaemon.ts"

/** Every line of every channel file, parsed. */
const allLines = Effect.map(TestDaemon, (daemon) =>
  fs.existsSync(daemon.logsDir)
    ? fs.readdirSync(daemon.logsDir).flatMap((name) =>
      fs.readFileSync(`${daemon.logsDir}/${name}`, "utf8").trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, any>)
    )
    : [])

describe("logs a person reads", () => {
  layer(freshDaemon(), { excludeTestServices: true })((it) => {
    it.effect("a file that cannot be imported is a warning; an imported one is info; no debug line at the default level", () =>
      Effect.gen(function*() {
        const { watchDir } = yield* TestDaemon
        dropFile(watchDir, "good.fit", fitActivity({ start: dayStart(2), seconds: 600 }))
        dropFile(watchDir, "broken.gpx", "<gpx><trk><trkseg></trkseg></trk></gpx>")
        expect((yield* waitForRow("good.fit")).status).toBe("success")
        expect((yield* waitForRow("broken.gpx")).status).toBe("failed")
        // The row is committed before its log line reaches the channel file: wait for both lines.
        const about = (lines: ReadonlyArray<Record<string, any>>, name: string) =>
          lines.find((l) => String(l.message).startsWith(`imported "${name}"`))
        const lines = yield* waitFor(
          "both import lines in the log",
          Effect.map(allLines, (lines) => about(lines, "broken.gpx") && about(lines, "good.fit") ? lines : undefined)
        )
        expect(about(lines, "broken.gpx")?.level).toBe("WARN")
        expect(about(lines, "good.fit")?.level).toBe("INFO")
        expect(lines.filter((l) => l.level === "DEBUG" || l.level === "TRACE")).toEqual([])
      }))
  })
})
