import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ImportWorkerLive } from "../../src/fibers/ImportWorker.ts"
import { ImportQueue } from "../../src/services/import/ImportQueue.ts"
import { dayStart, fitActivity, importRows, scopedRoot, servicesLayer, waitFor } from "../support/ImportHarness.ts"

describe("ImportWorker (parse ahead on every worker, commit in queue order)", () => {
  it.scopedLive("files are committed in queue order though a later, smaller file is parsed first", () =>
    Effect.gen(function*() {
      const root = yield* scopedRoot({ IMPORT_PARSE_WORKERS: "2" })
      // a day-long ride first, then small ones that the second worker parses meanwhile
      const names = ["day-long.fit", "small-1.fit", "small-2.fit", "small-3.fit"]
      fs.writeFileSync(path.join(root.watchDir, names[0]!), fitActivity({ start: dayStart(0), seconds: 24 * 3600 }))
      for (const [i, name] of names.slice(1).entries()) fs.writeFileSync(path.join(root.watchDir, name), fitActivity({ start: dayStart(i + 1), seconds: 600 }))
      yield* Effect.gen(function*() {
        const queue = yield* ImportQueue
        for (const name of names) yield* queue.offer(name)
        const rows = yield* waitFor("four import rows", Effect.map(importRows(), (r) => (r.length === 4 ? r : undefined)), { timeout: "60 seconds" })
        expect(rows.map((r) => [r.filename, r.status])).toEqual(names.map((n) => [n, "success"]))
      }).pipe(Effect.provide(Layer.provideMerge(ImportWorkerLive, servicesLayer(root))))
    }), { timeout: 90_000 })
})
