import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { dayStart, fitActivity, freshDaemon, importRows, waitFor } from "../support/ImportHarness.ts"
import { readChannel, send, TestDaemon } from "../support/TestDaemon.ts"

const FILES = 24

layer(freshDaemon(), { excludeTestServices: true })("GET /api/v1/file-imports/progress", (it) => {
  it.effect("says how many files of a batch are done, of how many, and the time left, while the log says the same; idle once it is over", () =>
    Effect.gen(function*() {
      const { watchDir } = yield* TestDaemon
      const idle = yield* send("GET", "/api/v1/file-imports/progress")
      expect(idle.status).toBe(200)
      expect(idle.json).toEqual({ running: false, done: 0, total: 0, imported: 0, skipped: 0, failed: 0, filesPerSecond: null, secondsLeft: null, words: "" })

      // written in a dot-folder and moved in together, as an archive's files are
      const staging = path.join(watchDir, ".staging")
      fs.mkdirSync(staging)
      for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(staging, `ride-${i}.fit`), fitActivity({ start: dayStart(i), seconds: 3600, step: 2 }))
      fs.writeFileSync(path.join(staging, "broken.fit"), "not a FIT file")
      for (const name of fs.readdirSync(staging)) fs.renameSync(path.join(staging, name), path.join(watchDir, name))

      const seen: Array<any> = []
      yield* waitFor("every row", Effect.gen(function*() {
        const answer = yield* send("GET", "/api/v1/file-imports/progress")
        expect(answer.status).toBe(200)
        seen.push(answer.json)
        return (yield* importRows()).length === FILES + 1 && !answer.json.running ? true : undefined
      }), { timeout: "60 seconds", interval: "10 millis" })

      const under = seen.filter((p) => p.running && p.done > 0 && p.done < p.total)
      expect(under.length, JSON.stringify(seen.slice(0, 5))).toBeGreaterThan(0)
      for (const p of under) {
        expect(p.total).toBeLessThanOrEqual(FILES + 1)
        expect(p.imported + p.skipped + p.failed).toBe(p.done)
        expect(p.filesPerSecond).toBeGreaterThan(0)
        // counted down from the last file done, at most what the rate gives for the files left; none once past
        if (p.secondsLeft !== null) {
          expect(p.secondsLeft).toBeGreaterThanOrEqual(1)
          expect(p.secondsLeft).toBeLessThanOrEqual(Math.round((p.total - p.done) / p.filesPerSecond))
        }
      }
      expect(Math.max(...seen.map((p) => p.total))).toBe(FILES + 1)
      expect(seen.at(-1)).toMatchObject({ running: false, done: 0, total: 0 })
      const log = (yield* readChannel("daemon")).map((l) => l.message)
      expect(log.some((m) => /^import finished: 25 files in .*: 24 imported, 0 skipped, 1 failed$/.test(m)), log.join("\n")).toBe(true)
    }))
})
